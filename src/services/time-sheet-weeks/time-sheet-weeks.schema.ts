import { defineResource, output, patchOnly } from '../../resources/define-resource'
import type { PlannedWrite, WriteContext } from '../../resources/define-resource'
import { DateString, Enum, Id, Int32, Num, Str, Timestamp } from '../../resources/types'
import { minutesOf } from '../../timesheets/durations'
import { moveWeek } from '../../timesheets/fan-out'
import { lockUserTime } from '../../timesheets/recompute'
import { dayOf } from '../../timesheets/sheet-rows'
import { SHEET_STATUSES, SheetStatus } from '../../timesheets/workflow'
import { logFanOut } from '../../timesheets/events'

const Count = () => Int32({ minimum: 0 })

/** The user's lock comes before the week's own row is written, like every time-sheet write (no deadlock with a recomputation). */
async function lockWeekUser({ trx, companyId, existing }: WriteContext) {
  await lockUserTime(trx, { companyId, userId: Number(existing!.userId) })
}

/** A week's status fans out to its seven days (CONTRACT §7.5); the status it shows is derived from them. */
async function fanOutWeek(_id: number, { data, companyId, trx, params, existing }: PlannedWrite) {
  if (data.status === undefined) return
  // The user and the week start, which a PATCH cannot change, as the write read them.
  const week = existing!
  const owner = {
    companyId,
    userId: Number(week.userId),
    actingUserId: params.user?.id ?? null,
    timezone: params.company!.timezone
  }
  logFanOut(params, await moveWeek(trx, owner, dayOf(week.weekStart), data.status as SheetStatus))
}

/**
 * One user's ISO week (CONTRACT §7.5): sums and counts over its seven calendar days, whether
 * or not a day has a row. Read-only except `status` (a fan-out to the days) and `externalId`.
 */
export const timeSheetWeekResource = defineResource({
  path: 'time-sheet-weeks',
  entity: 'TimeSheetWeek',
  methods: ['find', 'get', 'patch'],
  fields: {
    userId: output(Id(), { nullable: false }),
    weekStart: output(DateString(), { nullable: false }),
    status: patchOnly(Enum(SHEET_STATUSES), { nullable: false }),
    submittedCount: output(Count(), { nullable: false }),
    approvedCount: output(Count(), { nullable: false }),
    declinedCount: output(Count(), { nullable: false }),
    submittedAt: output(Timestamp()),
    approvedAt: output(Timestamp()),
    declinedAt: output(Timestamp()),
    sumActual: output(Num(), { stored: false, nullable: false }),
    sumTarget: output(Num(), { stored: false, nullable: false }),
    hasMultipleDayTimeEntryCount: output(Count(), { nullable: false }),
    recomputableCount: output(Count(), { nullable: false }),
    hasOpenTimeEntryCount: output(Count(), { nullable: false }),
    openTimeEntryEarliestDay: output(DateString()),
    computedAt: output(Timestamp()),
    externalId: patchOnly(Str())
  },
  filters: ['id', 'userId', 'weekStart', 'status', 'externalId', 'createdAt', 'updatedAt'],
  beforeWrite: lockWeekUser,
  // The stored status is derived from the days: the fan-out sets it.
  toRow: (row) => {
    delete row.status
  },
  afterWrite: fanOutWeek,
  async loadVirtual(items, { rows }) {
    items.forEach((item, i) => {
      item.sumActual = minutesOf(rows[i].sumActualMs)
      item.sumTarget = minutesOf(rows[i].sumTargetMs)
    })
  }
})
