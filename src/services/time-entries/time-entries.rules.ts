import type { Knex } from 'knex'
import type {
  PlannedRemove,
  PlannedWrite,
  ReadContext,
  RemoveContext,
  ResourceCall,
  Row,
  ValidationErrors,
  WriteContext
} from '../../resources/define-resource'
import { calendarDay, Day, millis, uniqueDays } from '../../timesheets/calendar'
import { span, spansOverlap } from '../../timesheets/durations'
import { changeClock, EntryClock, workedMs } from '../../timesheets/entry-clock'
import {
  assertDaysWritable,
  lockUserTime,
  recomputeDays,
  refuseUnwritable,
  writableBounds,
  WritableBounds,
  writableQuery
} from '../../timesheets/recompute'
import { logRecomputed } from '../../timesheets/events'
import { conflict } from '../../errors'
import { unplannedInstant } from '../../db/dialect'
import { StatementShapes } from '../../db/statement-shapes'

/**
 * The write rules of time entries (CONTRACT §7.2, §11.4): type/assignment/event consistency, the pause
 * clock and the pause list, no overlap and one running entry per user, and the time-sheet hook points.
 */
/** What `beforeWrite` decided, for `toRow` and `afterWrite` of the same write. */
export interface EntryPlan {
  clock: EntryClock
  /** The closed pauses changed: afterWrite stores `clock.pauses` anew. */
  pausesChanged: boolean
  userId: number
  days: Day[]
}

/** The user and day a delete changes, locked and checked by `beforeRemove`, recomputed by `afterRemove`. */
export interface EntryRemovePlan {
  companyId: number
  userId: number
  days: Day[]
}

/** The longest finished entry (CONTRACT §10.3); a running one is not limited. */
const MAX_ENTRY_MS = 24 * 60 * 60 * 1000

const zoneOf = ({ params }: ResourceCall) => params.company!.timezone
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())
const instant = (value: unknown) => (value === undefined ? undefined : value === null ? null : millis(value as string))
const given = (value: unknown) => value !== undefined && value !== null

/** Fills `assignmentId` and `eventTypeId` from the event (else the type's event type) and checks they agree. */
async function checkAssignment({
  data,
  companyId,
  trx,
  referenced
}: WriteContext<EntryPlan>): Promise<ValidationErrors> {
  const errors: ValidationErrors = {}
  // An invalid or missing typeId is the schema's 400; the span is still checked.
  if (data.typeId === undefined) return errors
  // The rows the reference check has just read, if it did (a missing one is its 400).
  const stored = (field: string, table: string, id: unknown, columns: string[]): Promise<Row | undefined> =>
    referenced?.[field]
      ? Promise.resolve(referenced[field].get(Number(id)))
      : trx(table)
          .where({ id, companyId })
          .first(...columns)
  const type = await stored('typeId', 'time_entry_types', data.typeId, ['isUnassigned', 'eventTypeId'])
  if (!type) return errors // the reference check reports it
  if (type.isUnassigned) {
    for (const field of ['assignmentId', 'eventId']) {
      if (given(data[field])) errors[field] = 'must be empty for a time entry type with isUnassigned: true'
    }
    return errors
  }
  if (given(data.eventId)) {
    const event = await stored('eventId', 'assignment_events', data.eventId, ['assignmentId', 'typeId'])
    if (!event) return errors
    if (given(data.assignmentId) && data.assignmentId !== Number(event.assignmentId)) {
      errors.assignmentId = `does not match the assignment of event ${data.eventId} (assignment ${event.assignmentId})`
    }
    if (given(data.eventTypeId) && data.eventTypeId !== Number(event.typeId)) {
      errors.eventTypeId = `does not match the type of event ${data.eventId} (type ${event.typeId})`
    }
    data.assignmentId ??= Number(event.assignmentId)
    if (data.eventTypeId === undefined) data.eventTypeId = Number(event.typeId)
  }
  if (data.eventTypeId === undefined && type.eventTypeId !== null) data.eventTypeId = Number(type.eventTypeId)
  return errors
}

async function clockOf(trx: Knex.Transaction, existing: Row, companyId: number): Promise<EntryClock> {
  const pauses: Row[] = await trx('time_entry_pauses')
    .where({ companyId, timeEntryId: existing.id })
    .select('startsAt', 'endsAt')
  return {
    start: millis(existing.startsAt),
    end: existing.endsAt === null ? null : millis(existing.endsAt),
    pausedAt: existing.pausedAt === null ? null : millis(existing.pausedAt),
    pauses: pauses.map((p) => ({ start: millis(p.startsAt), end: millis(p.endsAt) }))
  }
}

/** The shape of `WRITE_CHECK`: with or without an end, with or without the entry's own id (an update's). */
type WriteCheckShape = readonly ['running' | 'finished', 'new' | 'other']

/**
 * `assertWritableWithoutOverlap`'s statement, compiled once per shape (`StatementShapes`). Its
 * values (each handed to knex as it is): the user, `writableBounds` of the days, the earliest start of a finished entry that can
 * reach this one, the entry's start, its end (a finished one) and its id (an update).
 */
const WRITE_CHECK = new StatementShapes(
  (
    trx,
    [end, own]: WriteCheckShape,
    [companyId, userId, firstDay, lastDay, firstMonth, lastMonth, earliest, start, until, id]: readonly [
      number,
      number,
      ...WritableBounds,
      string,
      string,
      string | null,
      number | undefined
    ]
  ) => {
    // PostgreSQL gives a column of a union the type of its parts in turn, and NULL beside NULL is text.
    const pg = trx.client.config.client === 'pg'
    const none = (type: string, column: string) => trx.raw(pg ? `null::${type} as ??` : 'null as ??', [column])
    const entries = (query: Knex.QueryBuilder) =>
      query.select(none('date', 'key'), trx.raw("'entry' as kind"), 'id', 'startsAt', 'endsAt')
    // A finished entry lasts at most a day (MAX_ENTRY_MS), so one that shares time with this one
    // starts at most a day before it: an index range, not every earlier entry of the user. The
    // running entry (at most one, a partial index) may have started any time before. The exact
    // half-open rule is spansOverlap's.
    const finished = entries(
      trx('time_entries')
        .where({ companyId, userId })
        .whereNotNull('endsAt')
        .where('startsAt', '>=', unplannedInstant(trx, earliest))
        .where('endsAt', '>=', start)
    )
    if (end === 'finished') finished.where('startsAt', '<=', unplannedInstant(trx, until!))
    if (own === 'other') finished.whereNot('id', id!)
    const open = entries(trx('time_entries').where({ companyId, userId }).whereNull('endsAt'))
    if (own === 'other') open.whereNot('id', id!)
    // Each part keeps its index range. On PostgreSQL a named statement, one per shape, its range
    // bounds hidden from the planner (`unplannedInstant`): planned anew, the overlap's part cost
    // ten times its execution, and its plan is the user's index ranges whatever the values
    // (docs/decisions.md, "Named prepared statements on PostgreSQL").
    return writableQuery(
      trx,
      { companyId, userId },
      [firstDay, lastDay, firstMonth, lastMonth],
      [none('integer', 'id'), none('timestamptz', 'starts_at'), none('timestamptz', 'ends_at')]
    )
      .unionAll(open)
      .unionAll(finished)
      .options({ name: `crewclock_writable_overlap_${end}_${own}` })
  }
)

/**
 * 409 when a day the write touches is approved or its month locked (`assertDaysWritable`, that
 * first), or when the user already has a running entry or an entry that shares time with this
 * one: both checks in one statement, one round trip.
 */
async function assertWritableWithoutOverlap(
  trx: Knex.Transaction,
  affected: { companyId: number; userId: number; days: Day[] },
  id: number | undefined,
  clock: EntryClock
) {
  const { companyId, userId } = affected
  const bounds = writableBounds(affected.days)
  if (bounds === null) throw new Error('A time entry touches at least one day')
  const rows: Row[] = await WRITE_CHECK.statement(
    trx,
    [clock.end === null ? 'running' : 'finished', id === undefined ? 'new' : 'other'],
    [companyId, userId, ...bounds, iso(clock.start - MAX_ENTRY_MS)!, iso(clock.start)!, iso(clock.end), id]
  )
  refuseUnwritable(affected, rows)
  // In start order, as one scan gave them: the first overlapping entry is the one named.
  const others = rows
    .filter((row) => row.kind === 'entry')
    .sort((a: Row, b: Row) => millis(a.startsAt) - millis(b.startsAt))
  const running = clock.end === null ? others.find((other) => other.endsAt === null) : undefined
  if (running) {
    throw conflict(`User ${userId} already has a running time entry (id ${running.id})`, {
      reason: 'running-entry',
      ids: [Number(running.id)],
      timeEntryId: Number(running.id)
    })
  }
  const mine = span(clock.start, clock.end)
  const overlapping = others.find((other) => spansOverlap(mine, span(other.startsAt, other.endsAt)))
  if (overlapping) {
    throw conflict(`The time entry overlaps time entry ${overlapping.id} of user ${userId}`, {
      reason: 'overlap',
      ids: [Number(overlapping.id)],
      timeEntryId: Number(overlapping.id)
    })
  }
}

export async function checkTimeEntry(write: WriteContext<EntryPlan>): Promise<ValidationErrors | void> {
  const { data, existing, companyId, trx } = write
  const errors = write.method === 'create' ? await checkAssignment(write) : {}
  // `pauses` says whether a pause is open, so `pausedAt` beside it could only contradict it.
  // Either makes the clock change meaningless, so it is not applied (the other fields' errors still are reported).
  const combination: ValidationErrors = {}
  if (data.pauses !== undefined && data.pausedAt !== undefined)
    combination.pauses = 'cannot be combined with pausedAt in one body'
  if (given(data.resumedAt) && data.pausedAt !== null)
    combination.resumedAt = 'is accepted only together with pausedAt: null'
  if (Object.keys(combination).length > 0) return { ...errors, ...combination }
  const before = existing ? await clockOf(trx, existing, companyId) : null
  const change = {
    start: instant(data.startsAt) ?? undefined,
    end: instant(data.endsAt),
    pausedAt: instant(data.pausedAt),
    resumedAt: instant(data.resumedAt) ?? undefined,
    pauses:
      data.pauses === undefined
        ? undefined
        : ((data.pauses ?? []) as Row[]).map((p) => ({ start: millis(p.startsAt), end: instant(p.endsAt) ?? null }))
  }
  const outcome = changeClock(before, change, Date.now())
  if (!outcome.ok) {
    if (outcome.status === 409)
      throw conflict(`Cannot change ${outcome.field}: ${outcome.message}`, {
        reason: 'not-pausable',
        ...(existing ? { ids: [Number(existing.id)] } : {}),
        validationErrors: outcome.errors
      })
    Object.assign(errors, outcome.errors)
  }
  // CONTRACT §10.3: a finished entry spans at most a day; named endsAt whichever end moved.
  if (outcome.ok && outcome.clock.end !== null && outcome.clock.end - outcome.clock.start > MAX_ENTRY_MS) {
    errors.endsAt = 'must be at most 24 hours after startsAt'
  }
  if (!outcome.ok || Object.keys(errors).length > 0) return errors

  const userId = Number(existing?.userId ?? data.userId)
  // Without a valid userId (the schema's 400) there is no user whose time to lock and check.
  if (Number.isNaN(userId)) return errors
  const zone = zoneOf(write)
  // An entry counts on the calendar day of its start (CONTRACT §7.2), before and after a PATCH.
  const days = uniqueDays(existing ? [calendarDay(existing.startsAt, zone)] : [], [
    calendarDay(outcome.clock.start, zone)
  ])
  await lockUserTime(trx, { companyId, userId })
  await assertWritableWithoutOverlap(trx, { companyId, userId, days }, existing?.id, outcome.clock)
  data.pausedAt = iso(outcome.clock.pausedAt)
  write.plan = {
    clock: outcome.clock,
    pausesChanged: change.pauses !== undefined || outcome.closedPause !== null,
    userId,
    days
  }
}

export function timeEntryRow(row: Row, { plan }: PlannedWrite<EntryPlan>) {
  row.workedMs = workedMs(plan.clock)
}

export async function afterTimeEntryWrite(id: number, write: PlannedWrite<EntryPlan>) {
  const { trx, companyId } = write
  const { clock, pausesChanged, userId, days } = write.plan
  if (pausesChanged) {
    // Replaced as a whole, in order (the open pause is the entry's pausedAt column).
    await trx('time_entry_pauses').where({ companyId, timeEntryId: id }).delete()
    const rows = [...clock.pauses]
      .sort((x, y) => x.start - y.start)
      .map((p) => ({ companyId, timeEntryId: id, startsAt: iso(p.start), endsAt: iso(p.end) }))
    if (rows.length > 0) await trx('time_entry_pauses').insert(rows)
  }
  logRecomputed(write, await recomputeDays(trx, { companyId, userId, days }))
}

/** The day the removed entry counted on is locked and must be writable (CONTRACT §7.2). */
export async function beforeTimeEntryRemove(remove: RemoveContext<EntryRemovePlan>) {
  const { trx, companyId, existing } = remove
  const affected = {
    companyId,
    userId: Number(existing.userId),
    days: [calendarDay(existing.startsAt, zoneOf(remove))]
  }
  await lockUserTime(trx, affected)
  await assertDaysWritable(trx, affected)
  remove.plan = affected
}

export async function afterTimeEntryRemove(remove: PlannedRemove<EntryRemovePlan>) {
  logRecomputed(remove, await recomputeDays(remove.trx, remove.plan))
}

/** The column that carries an entry's closed pauses on its row in lists and gets (`pausesRead`). */
const PAUSES_COLUMN = 'pausesRead'

/**
 * An entry's closed pauses as a JSON array of `[startsAt, endsAt]` pairs in order, selected with
 * the entry (`readColumns`): a list or get reads its page and the pauses in one statement.
 */
export function pausesColumn(db: Knex, table: string): Knex.Raw {
  // The databases differ in the aggregate only (PostgreSQL's is null over no rows).
  const pairs =
    db.client.config.client === 'pg'
      ? `coalesce(json_agg(json_build_array(p.starts_at, p.ends_at) order by p.starts_at, p.id), '[]'::json)`
      : 'json_group_array(json_array(p.starts_at, p.ends_at) order by p.starts_at, p.id)'
  return db.raw(`(select ${pairs} from time_entry_pauses p where p.company_id = ?? and p.time_entry_id = ??) as ??`, [
    `${table}.companyId`,
    `${table}.id`,
    PAUSES_COLUMN
  ])
}

const closedPause = (startsAt: string, endsAt: string) => ({
  startsAt: iso(millis(startsAt)),
  endsAt: iso(millis(endsAt))
})

/** `pauses` of a page of entries: the closed ones in order, then the open one (`pausedAt`). */
export async function loadPauses(items: Row[], { db, companyId, rows: stored }: ReadContext) {
  if (items.length > 0 && stored.every((row) => row[PAUSES_COLUMN] !== undefined)) {
    items.forEach((item, i) => {
      const read = stored[i][PAUSES_COLUMN]
      const pairs: [string, string][] = typeof read === 'string' ? JSON.parse(read) : read
      item.pauses = pairs.map(([startsAt, endsAt]) => closedPause(startsAt, endsAt))
      if (item.pausedAt !== null) item.pauses.push({ startsAt: item.pausedAt, endsAt: null })
    })
    return
  }
  const rows: Row[] = await db('time_entry_pauses')
    .where({ companyId })
    .whereIn(
      'timeEntryId',
      items.map((item) => item.id)
    )
    .orderBy([{ column: 'startsAt' }, { column: 'id' }])
    .select('timeEntryId', 'startsAt', 'endsAt')
  const byEntry = new Map<number, Row>(items.map((item) => [Number(item.id), item]))
  for (const item of items) item.pauses = []
  for (const row of rows) byEntry.get(Number(row.timeEntryId))?.pauses.push(closedPause(row.startsAt, row.endsAt))
  for (const item of items) if (item.pausedAt !== null) item.pauses.push({ startsAt: item.pausedAt, endsAt: null })
}
