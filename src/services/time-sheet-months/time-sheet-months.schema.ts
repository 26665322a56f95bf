import { defineResource, output, patchOnly, writeOnly } from '../../resources/define-resource'
import type { PlannedWrite, ReadContext, Row, WriteContext } from '../../resources/define-resource'
import { DateString, Enum, Id, Int32, Num, Str, Text, Timestamp } from '../../resources/types'
import { CORRECTION_TYPES, currentDifferenceMs } from '../../timesheets/aggregates'
import { MINUTE_MS, minutesOf } from '../../timesheets/durations'
import { moveMonth } from '../../timesheets/fan-out'
import { today } from '../../timesheets/periods'
import { lockUserTime, recompute } from '../../timesheets/recompute'
import { dayOf } from '../../timesheets/sheet-rows'
import { MONTH_MOVES, SHEET_STATUSES, SheetStatus, assertMove } from '../../timesheets/workflow'
import { logFanOut, logRecomputed } from '../../timesheets/events'
import { conflict } from '../../errors'

const Count = () => Int32({ minimum: 0 })
const Minutes = () => Num()
/** A manual carry in minutes (about ±19 years of work). */
const ManualCarry = () => Num({ minimum: -10_000_000, maximum: 10_000_000 })
const CARRY_MANUAL = { carryInManual: 'carryInManualMs', carryOutManual: 'carryOutManualMs' } as const

/** The move is checked early (409 before anything is written); a locked month refuses manual carries. */
async function checkMonth({ data, existing, companyId, trx }: WriteContext) {
  await lockUserTime(trx, { companyId, userId: existing!.userId })
  if (data.status !== undefined) assertMove(MONTH_MOVES, 'time sheet month', existing!.status, data.status)
  const manual = Object.keys(CARRY_MANUAL).filter((field) => data[field] !== undefined)
  if (existing!.lockedAt && manual.length > 0) {
    throw conflict(
      `The month is approved and locked: ${manual.join(', ')} cannot be changed; reopen the month (status draft) first`,
      {
        reason: 'month-locked',
        ids: [existing!.id],
        validationErrors: Object.fromEntries(manual.map((field) => [field, 'cannot be changed on a locked month']))
      }
    )
  }
}

function monthRow(row: Row, { data }: PlannedWrite) {
  // The status moves through moveMonth (fan-out and lock), never as a plain column write.
  delete row.status
  for (const [field, column] of Object.entries(CARRY_MANUAL)) {
    if (data[field] !== undefined) row[column] = data[field] === null ? null : Math.round(data[field] * MINUTE_MS)
  }
}

/** The status move with its fan-out, then the month and the carry chain after it (manual carries). */
async function afterMonthWrite(id: number, { data, companyId, trx, params }: PlannedWrite) {
  const month: Row = await trx('time_sheet_months').where({ id, companyId }).first()
  const owner = {
    companyId,
    userId: Number(month.userId),
    actingUserId: params.user?.id ?? null,
    timezone: params.company!.timezone
  }
  if (data.status !== undefined) logFanOut(params, await moveMonth(trx, owner, month, data.status as SheetStatus))
  // A manual carry or the lock moves the carry of the months after it.
  logRecomputed(
    { params },
    await recompute(trx, companyId, owner.userId, { days: [], weekStarts: [], months: [dayOf(month.month)] })
  )
}

const dailyOf = (value: unknown): [number, number][] =>
  typeof value === 'string' ? JSON.parse(value) : ((value as [number, number][] | null) ?? [])

/** The figures of a page of months: locked snapshots while locked, `currentDifference` against today. */
async function loadMonthFigures(items: Row[], { params, rows }: ReadContext) {
  const day = today(params.company!.timezone)
  for (const [i, item] of items.entries()) {
    const row = rows[i]
    const locked = row.lockedAt !== null && row.lockedAt !== undefined
    item.sumActual = minutesOf(locked ? row.sumActualLockedMs : row.sumActualComputedMs)
    item.sumTarget = minutesOf(locked ? row.sumTargetLockedMs : row.sumTargetComputedMs)
    item.sumActualComputed = minutesOf(row.sumActualComputedMs)
    item.sumTargetComputed = minutesOf(row.sumTargetComputedMs)
    for (const name of [
      'carryIn',
      'carryInComputed',
      'carryOut',
      'carryOutComputed',
      'carryOutForfeited',
      'sumActualLocked',
      'sumTargetLocked',
      'carryInLocked',
      'carryOutLocked'
    ]) {
      item[name] = minutesOf(row[`${name}Ms`])
    }
    item.currentDifference = minutesOf(currentDifferenceMs(dayOf(row.month), dailyOf(row.dailyFigures), day))
  }
}

/**
 * One user's month (CONTRACT §7.6): sums over its calendar days, its own approval workflow that
 * fans out to the days and locks the month, and the carry chain of overtime from month to month.
 */
export const timeSheetMonthResource = defineResource({
  path: 'time-sheet-months',
  entity: 'TimeSheetMonth',
  methods: ['find', 'get', 'patch'],
  fields: {
    userId: output(Id(), { nullable: false }),
    month: output(DateString(), { nullable: false }),
    status: patchOnly(Enum(SHEET_STATUSES), { nullable: false }),
    note: patchOnly(Text()),
    declinedNote: output(Text()),
    submittedCount: output(Count(), { nullable: false }),
    approvedCount: output(Count(), { nullable: false }),
    declinedCount: output(Count(), { nullable: false }),
    submittedAt: output(Timestamp()),
    submittedFirstAt: output(Timestamp()),
    approvedAt: output(Timestamp()),
    declinedAt: output(Timestamp()),
    sumActual: output(Minutes(), { stored: false, nullable: false }),
    sumTarget: output(Minutes(), { stored: false, nullable: false }),
    sumActualComputed: output(Minutes(), { stored: false, nullable: false }),
    sumTargetComputed: output(Minutes(), { stored: false, nullable: false }),
    carryIn: output(Minutes(), { stored: false, nullable: false }),
    carryInComputed: output(Minutes(), { stored: false, nullable: false }),
    carryOut: output(Minutes(), { stored: false, nullable: false }),
    carryOutComputed: output(Minutes(), { stored: false, nullable: false }),
    carryOutForfeited: output(Minutes(), { stored: false, nullable: false }),
    carryInCorrectionType: output(Enum(CORRECTION_TYPES)),
    carryOutCorrectionType: output(Enum(CORRECTION_TYPES)),
    lockedAt: output(Timestamp()),
    sumActualLocked: output(Minutes(), { stored: false }),
    sumTargetLocked: output(Minutes(), { stored: false }),
    carryInLocked: output(Minutes(), { stored: false }),
    carryOutLocked: output(Minutes(), { stored: false }),
    currentDifference: output(Minutes(), { stored: false, nullable: false }),
    hasMultipleDayTimeEntryCount: output(Count(), { nullable: false }),
    recomputableCount: output(Count(), { nullable: false }),
    hasOpenTimeEntryCount: output(Count(), { nullable: false }),
    openTimeEntryEarliestDay: output(DateString()),
    computedAt: output(Timestamp()),
    carryInManual: writeOnly(ManualCarry(), { create: false, stored: false }),
    carryOutManual: writeOnly(ManualCarry(), { create: false, stored: false }),
    externalId: patchOnly(Str())
  },
  filters: ['id', 'userId', 'month', 'status', 'externalId', 'createdAt', 'updatedAt'],
  beforeWrite: checkMonth,
  toRow: monthRow,
  afterWrite: afterMonthWrite,
  loadVirtual: loadMonthFigures
})
