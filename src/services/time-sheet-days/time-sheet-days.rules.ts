import type { PlannedWrite, ReadContext, Row, ValidationErrors, WriteContext } from '../../resources/define-resource'
import { Day, calendarDay, millis } from '../../timesheets/calendar'
import { MINUTE_MS, minutesOf } from '../../timesheets/durations'
import { periodErrors } from '../by-user'
import { assertNoRunningEntry, assertNotLocked, SheetOwner } from '../../timesheets/fan-out'
import { lockUserTime, openSheets, recomputeDays } from '../../timesheets/recompute'
import { DAY_TABLE, dayOf, isoOrNull, numberOrNull } from '../../timesheets/sheet-rows'
import { today } from '../../timesheets/periods'
import { DAY_MOVES, SheetStatus, assertDaysHappened, assertMove, moveColumns } from '../../timesheets/workflow'
import { logSheetEvents, sheetEvents } from '../../timesheets/events'
import { conflict } from '../../errors'

/**
 * The write rules of time sheet days (CONTRACT §7.4): the workflow moves and their guards, the
 * manual overrides, and no field changes on a submitted or approved day.
 */
/** Override fields of the API and the columns that keep them. */
const OVERRIDES = {
  startsAt: 'manualStartsAt',
  endsAt: 'manualEndsAt',
  breakTime: 'manualBreakTimeMs',
  duration: 'manualDurationMs'
} as const
type OverrideField = keyof typeof OVERRIDES
const isOverride = (field: string): field is OverrideField => Object.hasOwn(OVERRIDES, field)

/** Fields that a submitted or approved day refuses (`externalId` only links the record; `declinedNote` goes with a decline). */
const SHEET_FIELDS = ['note', 'declinedNote', 'startsAt', 'endsAt', 'breakTime', 'duration']

/** What `beforeWrite` decided, for `toRow` and `afterWrite` of the same write: the day, and the columns its move and overrides set. */
export interface DayPlan {
  userId: number
  day: Day
  columns: Row
}

/** A body value as its column keeps it: minutes → exact milliseconds, instants → ISO. */
function columnValue(field: string, value: unknown): unknown {
  if (value === null || value === undefined) return null
  if (field === 'breakTime' || field === 'duration') return Math.round((value as number) * MINUTE_MS)
  if (field === 'startsAt' || field === 'endsAt') return new Date(value as string).toISOString()
  return value
}

const storedValue = (field: string, raw: Row) =>
  isOverride(field)
    ? field === 'startsAt' || field === 'endsAt'
      ? isoOrNull(raw[OVERRIDES[field]])
      : numberOrNull(raw[OVERRIDES[field]])
    : (raw[field] ?? null)

/** The sheet fields of the body that would change the stored day. */
const changedFields = (data: Row, raw: Row) =>
  SHEET_FIELDS.filter(
    (field) => data[field] !== undefined && columnValue(field, data[field]) !== storedValue(field, raw)
  )

function assertFieldsEditable(data: Row, raw: Row, from: SheetStatus, to: SheetStatus) {
  if (from !== 'submitted' && from !== 'approved') return
  const refused = changedFields(data, raw).filter((field) => !(field === 'declinedNote' && to === 'declined'))
  if (refused.length === 0) return
  throw conflict(
    `The time sheet day is ${from}: ${refused.join(', ')} cannot be changed; move it back to draft first`,
    {
      reason: 'day-not-draft',
      ids: [Number(raw.id)],
      validationErrors: Object.fromEntries(
        refused.map((field) => [field, `cannot be changed while the day is ${from}`])
      )
    }
  )
}

/** An overridden start must lie on the day (when the day is valid); the end must not be before the start. */
function overrideErrors(data: Row, raw: Row | undefined, day: Day | undefined, zone: string): ValidationErrors {
  const errors: ValidationErrors = {}
  if (day !== undefined && typeof data.startsAt === 'string' && calendarDay(data.startsAt, zone) !== day)
    errors.startsAt = `must be on ${day} (company timezone ${zone})`
  const start = data.startsAt !== undefined ? data.startsAt : raw?.startsAt
  const end = data.endsAt !== undefined ? data.endsAt : raw?.endsAt
  if (start && end && millis(end) < millis(start))
    errors[data.endsAt !== undefined ? 'endsAt' : 'startsAt'] =
      data.endsAt !== undefined ? 'must not be before startsAt' : 'must not be after endsAt'
  return errors
}

/** The override columns of the body, and who manipulated the day when an override changed. */
function overrideColumns(data: Row, raw: Row | undefined, actingUserId: number | null, now: string): Row {
  const columns: Row = {}
  for (const field of Object.keys(OVERRIDES) as OverrideField[]) {
    if (data[field] !== undefined) columns[OVERRIDES[field]] = columnValue(field, data[field])
  }
  const changed = raw ? changedFields(data, raw).filter(isOverride) : Object.keys(columns)
  if (changed.length === 0) return columns
  const anyLeft = (Object.values(OVERRIDES) as string[]).some(
    (column) => (column in columns ? columns[column] : (raw?.[column] ?? null)) !== null
  )
  return { ...columns, manipulatedAt: anyLeft ? now : null, manipulatedById: anyLeft ? actingUserId : null }
}

export async function checkTimeSheetDay(write: WriteContext<DayPlan>): Promise<ValidationErrors | void> {
  const { data, existing, companyId, trx, params } = write
  const zone = params.company!.timezone
  const raw: Row | undefined = existing ? await trx(DAY_TABLE).where({ id: existing.id, companyId }).first() : undefined
  // On create, an invalid or missing userId or day is the schema's 400 and undefined here.
  const userId = Number(raw?.userId ?? data.userId)
  const day: Day | undefined = raw ? dayOf(raw.day) : data.day
  // The field checks first, all together: they need no user, and only startsAt's needs a valid day.
  const dayErrors = raw || day === undefined ? undefined : periodErrors('day', day, zone)
  const errors = { ...dayErrors, ...overrideErrors(data, raw, dayErrors ? undefined : day, zone) }
  if (Object.keys(errors).length > 0) return errors
  if (day === undefined || Number.isNaN(userId)) return // the schema's 400
  // A user of another company is the reference check's 400.
  if (!raw && !(await trx('users').where({ id: userId, companyId }).first('id'))) return
  await lockUserTime(trx, { companyId, userId })
  const taken: Row | undefined = raw ? undefined : await trx(DAY_TABLE).where({ companyId, userId, day }).first('id')
  if (taken) {
    throw conflict(`User ${userId} already has a time sheet day for ${day}; change it with PATCH`, {
      reason: 'duplicate',
      ids: [Number(taken.id)],
      validationErrors: { day: 'already has a time sheet day of this user' }
    })
  }
  const from = (raw?.status ?? 'draft') as SheetStatus
  const to = (data.status ?? from) as SheetStatus
  assertMove(DAY_MOVES, 'time sheet day', from, to)
  if (from !== to) assertDaysHappened(to, [day], today(zone))
  if (raw) assertFieldsEditable(data, raw, from, to)

  const actingUserId = params.user?.id ?? null
  const owner: SheetOwner = { companyId, userId, actingUserId, timezone: zone }
  if (to === 'submitted' && from !== 'submitted') await assertNoRunningEntry(trx, owner, [day])
  if (from === 'approved' && to !== 'approved') await assertNotLocked(trx, owner, [day])
  const now = new Date().toISOString()
  const move =
    from === to
      ? {}
      : moveColumns(from, to, {
          now,
          actingUserId,
          submittedFirstAt: raw?.submittedFirstAt ?? null,
          withDeciders: true
        })
  write.plan = { userId, day, columns: { ...move, ...overrideColumns(data, raw, actingUserId, now) } }
}

export function timeSheetDayRow(row: Row, { plan }: PlannedWrite<DayPlan>) {
  Object.assign(row, plan.columns)
}

/** The day's figures, its week and month (created with a new day) and the carry chain. */
export async function afterTimeSheetDayWrite(id: number, { trx, companyId, params, plan }: PlannedWrite<DayPlan>) {
  const { userId, day } = plan
  const created = await openSheets(trx, companyId, userId, { days: [day] })
  const changed = await recomputeDays(trx, { companyId, userId, days: [day] })
  // The day itself is this request's record: its service announces it.
  logSheetEvents(params, sheetEvents(created, changed, { days: [Number(id)] }))
}

/** The figures of a page of days, from their millisecond columns. */
export async function loadDayFigures(items: Row[], { rows }: ReadContext) {
  for (const [i, item] of items.entries()) {
    const row = rows[i]
    item.startsAt = isoOrNull(row.startsAt)
    item.endsAt = isoOrNull(row.endsAt)
    item.breakTime = minutesOf(row.breakTimeMs)
    item.duration = minutesOf(row.durationMs)
    item.expectedDuration = minutesOf(row.expectedDurationMs)
    item.breakTimeErrorExpected = minutesOf(row.breakTimeErrorExpectedMs)
    item.breakTimeErrorValue = minutesOf(row.breakTimeErrorValueMs)
    item.breakTimeErrorDurationMin = minutesOf(row.breakTimeErrorDurationMinMs)
    item.durationErrorExpected = minutesOf(row.durationErrorExpectedMs)
    item.durationErrorValue = minutesOf(row.durationErrorValueMs)
  }
}
