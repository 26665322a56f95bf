import { conflict } from '../errors'
import type { Knex } from 'knex'
import { TableUpdate, updateTables } from '../db/update-rows'
import { QueryPart, RowsPart, wholeRowsOf, WholeRowsShapes } from '../db/json-rows'
import { isLocked, lockedForWrite, noteLocked, unplannedDay, unplannedInstant } from '../db/dialect'
import { StatementShapes } from '../db/statement-shapes'
import type { Row } from '../resources/define-resource'
import { Day, calendarDay, coversSeveralDays, dayBounds, millis } from './calendar'
import { MINUTE_MS } from './durations'
import { AbsenceInput, DayFigures, EntryInput, NO_OVERRIDES, computeDay, effectiveFigures } from './day-figures'
import {
  DayState,
  MonthCarry,
  carryMonth,
  monthDeclinedNote,
  summarize,
  weekStatus,
  weekTimestamps
} from './aggregates'
import { addDays, daysFrom, lastDayOfMonth, monthDays, monthOf, weekDays, weekStartOf } from './periods'
import {
  CreatedRows,
  DAY_TABLE,
  MONTH_TABLE,
  WEEK_TABLE,
  WantedSheets,
  changedColumns,
  dayFigureColumns,
  dayOf,
  ensureSheets,
  isoOrNull,
  lockedFigures,
  numberOrNull,
  overridesOf,
  previousMonth,
  storedDayFigures,
  toDbValue,
  valueChanged
} from './sheet-rows'
import { ACCOUNT_AND_SCHEDULE_COLUMNS, Schedule, accountAndScheduleOf, accountAndScheduleQuery } from './schedule'
import { AccountStart, chainCarryInMs, chainStartOf, loadAccountStart } from './account'
import type { SheetStatus } from './workflow'

/**
 * The one recomputation of time sheets (CONTRACT §7.6). Every write that changes a user's days
 * (entries, absences, day overrides and moves, working-time settings) calls it in its own
 * transaction: it recomputes the stored day rows, the week and month rows around them and the
 * carry chain forward, and writes only what changed. A day without a row is a draft day with
 * its computed figures; an approved day keeps its figures (and is flagged `recomputable` when a
 * recomputation would change them); a locked month keeps its snapshot.
 */
export interface AffectedDays {
  companyId: number
  userId: number
  days: Day[]
}

/** What to recompute: rows that do not exist are skipped (they are created on demand elsewhere). */
export interface Scope {
  days: Day[]
  weekStarts: Day[]
  months: Day[]
}

/** Ids of the rows whose stored values changed. */
export interface Recomputed {
  days: number[]
  weeks: number[]
  months: number[]
  /** Those rows as they are stored now, by id: the event log takes them instead of reading them again. */
  stored?: StoredRows
}

export interface StoredRows {
  days: Map<number, Row>
  weeks: Map<number, Row>
  months: Map<number, Row>
}

const noneChanged = (): Recomputed => ({
  days: [],
  weeks: [],
  months: [],
  stored: { days: new Map(), weeks: new Map(), months: new Map() }
})

const sortedUnique = (values: Day[]) => [...new Set(values)].sort()

/** 409 for a write that touches approved days (as dates). */
function refuseApprovedDays(userId: number, days: string[]) {
  if (days.length === 0) return
  throw conflict(
    `The time sheet of user ${userId} is approved for ${days.sort().join(', ')}; reopen ${days.length === 1 ? 'the day' : 'those days'} (status draft) first`,
    { reason: 'day-approved', days }
  )
}

/** 409 for a write that touches locked months (as their first days). */
function refuseLockedMonths(userId: number, months: string[]) {
  if (months.length === 0) return
  throw conflict(
    `The time sheet month ${months.sort().join(', ')} of user ${userId} is approved and locked; reopen the month (status draft) first`,
    { reason: 'month-locked', months }
  )
}

/** pg's statement name of the check below (docs/decisions.md, "Named prepared statements on PostgreSQL"). */
const DAYS_WRITABLE = { name: 'crewclock_days_writable' }

/**
 * Refuses (409) a write that touches an approved day or a day of a locked month (CONTRACT §7.2,
 * §7.3): reopen the day (or the month) first. On PostgreSQL a named statement: its union was
 * planned anew for 0.27 ms on every time entry write, against 0.05 ms of execution; its plan is
 * the user's range of two `(company_id, user_id, day|month)` keys whatever the values, and it
 * names its columns.
 */
export async function assertDaysWritable(trx: Knex.Transaction, affected: AffectedDays): Promise<void> {
  const bounds = writableBounds(affected.days)
  if (bounds) refuseUnwritable(affected, await writableQuery(trx, affected, bounds).options(DAYS_WRITABLE))
}

/** The first and last of `days` and of their months: the ranges `writableQuery` reads (none without days). */
export function writableBounds(days: Day[]): WritableBounds | null {
  if (days.length === 0) return null
  const sorted = sortedUnique(days)
  return [sorted[0], sorted[sorted.length - 1], monthOf(sorted[0]), monthOf(sorted[sorted.length - 1])]
}

/** `[first day, last day, first month, last month]` (`writableBounds`). */
export type WritableBounds = readonly [Day, Day, Day, Day]

/**
 * `assertDaysWritable`'s statement, unsent: the approved days and the locked months in `bounds`
 * (`writableBounds` of the days), as `key` and `kind`, with `columns` beside them (a caller's
 * `union all` of other parts). Its values go to knex as they are (a `StatementShapes` template).
 */
export function writableQuery(
  trx: Knex | Knex.Transaction,
  { companyId, userId }: { companyId: number; userId: number },
  [firstDay, lastDay, firstMonth, lastMonth]: WritableBounds,
  columns: (string | Knex.Raw)[] = []
): Knex.QueryBuilder {
  const user = { companyId, userId }
  // One statement for both (every time entry write runs it), the days themselves picked out by
  // `refuseUnwritable`.
  return trx(DAY_TABLE)
    .where(user)
    .where('day', '>=', firstDay)
    .where('day', '<=', lastDay)
    .where('status', 'approved')
    .select({ key: 'day' }, trx.raw("'day' as kind"), ...columns)
    .unionAll(
      trx(MONTH_TABLE)
        .where(user)
        .where('month', '>=', firstMonth)
        .where('month', '<=', lastMonth)
        .whereNotNull('lockedAt')
        .select({ key: 'month' }, trx.raw("'month' as kind"), ...columns)
    )
}

/** 409 when the rows of `writableQuery` name one of the days or their months (rows of other kinds are passed over). */
export function refuseUnwritable({ userId, days }: AffectedDays, rows: Row[]) {
  const sorted = sortedUnique(days)
  const months = sortedUnique(sorted.map(monthOf))
  const found = (kind: string, wanted: Day[]) =>
    rows.filter((row) => row.kind === kind && wanted.includes(dayOf(row.key))).map((row) => dayOf(row.key))
  refuseApprovedDays(userId, found('day', sorted))
  refuseLockedMonths(userId, found('month', months))
}

/**
 * The calendar days `from`..`to` (both included) of a user, for a write that covers a span (an
 * absence): the checks and the recomputation read the rows that exist in it, so their work
 * follows those rows, never the length of the span (CONTRACT §10.3).
 */
export interface AffectedSpan {
  companyId: number
  userId: number
  spans: { from: Day; to: Day }[]
}

/** The user's rows of `table` whose `column` lies in one of `spans` (one range scan each). */
async function rowsInSpans(
  trx: Knex.Transaction,
  table: string,
  column: string,
  user: { companyId: number; userId: number },
  spans: { from: Day; to: Day }[],
  only: Row = {}
): Promise<Row[]> {
  const rows = new Map<number, Row>()
  for (const { from, to } of spans) {
    for (const row of await trx(table).where(user).where(only).where(column, '>=', from).where(column, '<=', to))
      rows.set(Number(row.id), row)
  }
  return [...rows.values()]
}

/** `assertDaysWritable` for spans: the approved days and locked months that lie in them. */
export async function assertSpansWritable(
  trx: Knex.Transaction,
  { companyId, userId, spans }: AffectedSpan
): Promise<void> {
  const user = { companyId, userId }
  const approved = (await rowsInSpans(trx, DAY_TABLE, 'day', user, spans, { status: 'approved' })).map((row) =>
    dayOf(row.day)
  )
  refuseApprovedDays(userId, approved)
  const monthSpans = spans.map(({ from, to }) => ({ from: monthOf(from), to }))
  const locked = (await rowsInSpans(trx, MONTH_TABLE, 'month', user, monthSpans))
    .filter((row) => row.lockedAt)
    .map((row) => dayOf(row.month))
  refuseLockedMonths(userId, locked)
}

/**
 * Recomputes the rows that exist in `spans` (days, the weeks and months around them) and the carry
 * chain after them. Every day of a span that a stored row covers (its own, its week's or its
 * month's) is recomputed from its inputs: a day without a row counts in its week and month too.
 */
export async function recomputeSpans(
  trx: Knex.Transaction,
  { companyId, userId, spans }: AffectedSpan
): Promise<Recomputed> {
  const user = { companyId, userId }
  const keys = (rows: Row[], column: string) => rows.map((row) => dayOf(row[column]))
  const days = keys(await rowsInSpans(trx, DAY_TABLE, 'day', user, spans), 'day')
  const weekStarts = keys(
    await rowsInSpans(
      trx,
      WEEK_TABLE,
      'weekStart',
      user,
      spans.map(({ from, to }) => ({ from: weekStartOf(from), to }))
    ),
    'weekStart'
  )
  const months = keys(
    await rowsInSpans(
      trx,
      MONTH_TABLE,
      'month',
      user,
      spans.map(({ from, to }) => ({ from: monthOf(from), to }))
    ),
    'month'
  )
  const inSpans = (first: Day, last: Day) =>
    spans.flatMap(({ from, to }) => {
      const start = first > from ? first : from
      const end = last < to ? last : to
      return start <= end ? daysFrom(start, end) : []
    })
  const covered = [
    ...weekStarts.flatMap((start) => inSpans(start, addDays(start, 6))),
    ...months.flatMap((month) => inSpans(month, lastDayOfMonth(month)))
  ]
  return recompute(trx, companyId, userId, { days: [...days, ...covered], weekStarts, months })
}

/** Recomputes the rows of `days`, of their weeks and months, and the carry chain after them. */
export async function recomputeDays(
  trx: Knex.Transaction,
  { companyId, userId, days }: AffectedDays
): Promise<Recomputed> {
  return recompute(trx, companyId, userId, { days, weekStarts: days.map(weekStartOf), months: days.map(monthOf) })
}

/** Recomputes every row of the user from `fromDay` on (all of them without it), as from scratch. */
export async function recomputeUser(
  trx: Knex.Transaction,
  companyId: number,
  userId: number,
  fromDay: Day | null = null
): Promise<Recomputed> {
  const from = (table: string, column: string, first: Day | null) => {
    const query = trx(table).where({ companyId, userId })
    if (first !== null) query.where(column, '>=', first)
    return query.select(column).then((rows: Row[]) => rows.map((row) => dayOf(row[column])))
  }
  return recompute(
    trx,
    companyId,
    userId,
    {
      days: await from(DAY_TABLE, 'day', fromDay),
      weekStarts: await from(WEEK_TABLE, 'weekStart', fromDay && weekStartOf(fromDay)),
      months: await from(MONTH_TABLE, 'month', fromDay && monthOf(fromDay))
    },
    'from-scratch'
  )
}

/**
 * Recomputes every user's time sheets from `fromDay` on (all of them with null), after the
 * company's working-time model or timezone changed. Approved days stay frozen (and are flagged
 * `recomputable`), locked months keep their snapshots. Users are locked in id order. Returns the
 * rows that changed, by user (users without a change are left out).
 */
export async function recomputeCompany(
  trx: Knex.Transaction,
  companyId: number,
  fromDay: Day | null
): Promise<Map<number, Recomputed>> {
  const users = new Set<number>()
  for (const table of [DAY_TABLE, WEEK_TABLE, MONTH_TABLE]) {
    for (const row of await trx(table).where({ companyId }).distinct('userId')) users.add(Number(row.userId))
  }
  const changed = new Map<number, Recomputed>()
  for (const userId of [...users].sort((a, b) => a - b)) {
    await lockUserTime(trx, { companyId, userId })
    const { days, weeks, months } = await recomputeUser(trx, companyId, userId, fromDay)
    // Ids only: one company.recomputed event stands for the rows, whose stored state is not kept.
    if (days.length + weeks.length + months.length > 0) changed.set(userId, { days, weeks, months })
  }
  return changed
}

/** pg's statement name of the lock (a key look-up: its plan is the same for every user). */
const LOCK_USER = { name: 'crewclock_lock_user' }

/**
 * Serialises the writes of one user's time (entries, absences, time sheets) on PostgreSQL with a
 * row lock on the user, so that two concurrent writes cannot both pass the checks or interleave
 * their recomputations. SQLite already runs one write transaction at a time. `FOR NO KEY UPDATE`,
 * not `FOR UPDATE`: it excludes the other writers of the user just the same, but not the key-share
 * lock a foreign key check takes when another transaction inserts a row that references the user,
 * which would otherwise deadlock with a company-wide recomputation locking users in id order.
 * A lock the transaction already holds takes no statement: an earlier `lockUserTime`, or a write's
 * read of the user it references (`ReferenceSpec.lock`: a time entry's and an absence's `userId`).
 */
export async function lockUserTime(
  trx: Knex.Transaction,
  { companyId, userId }: { companyId: number; userId: number }
) {
  if (trx.client.config.client !== 'pg' || isLocked(trx, 'users', userId)) return
  const locked = await lockedForWrite(trx, trx('users').where({ id: userId, companyId }))
    .first('id')
    .options(LOCK_USER)
  if (locked) noteLocked(trx, 'users', userId)
}

/** The rows `openSheets` created, and the rows their computation changed (new months pass their carry on). */
export interface OpenedSheets extends CreatedRows {
  changed: Recomputed
}

/**
 * Creates the missing rows of `wanted` (days with their week and month; months gap-free) and
 * computes them, in the caller's transaction, under the user's lock.
 */
export async function openSheets(
  trx: Knex.Transaction,
  companyId: number,
  userId: number,
  wanted: WantedSheets
): Promise<OpenedSheets> {
  await lockUserTime(trx, { companyId, userId })
  const account = await loadAccountStart(trx, companyId, userId)
  const created = await ensureSheets(trx, companyId, userId, wanted, chainStartOf(account))
  const keys = (rows: { key: Day }[]) => rows.map((row) => row.key)
  const changed = await recompute(
    trx,
    companyId,
    userId,
    { days: keys(created.days), weekStarts: keys(created.weeks), months: keys(created.months) },
    'from-scratch'
  )
  return { ...created, changed }
}

/**
 * How a recomputation finds the days of the weeks and months it recomputes (issue #22).
 * `incremental`, for every write: the days of the scope (those whose inputs changed) are
 * recomputed from their entries and absences; every other day of the periods is taken as stored,
 * since the last write that changed it left it so: a day row's figures, status and flags, and for
 * a day without a row the figures its month keeps in `dailyFigures`, with the running and
 * multi-day entries of all of them from one query. A day known neither way is recomputed.
 * `from-scratch`: every day of the periods is recomputed from its inputs (rows just created,
 * schedule and account changes, and the tests that check the incremental path against it).
 */
export type RecomputeMode = 'incremental' | 'from-scratch'

/**
 * Recomputes the existing rows of `scope` and the carry chain after its months. `scope.days` are
 * the days whose inputs changed.
 */
export async function recompute(
  trx: Knex.Transaction,
  companyId: number,
  userId: number,
  scope: Scope,
  mode: RecomputeMode = 'incremental'
): Promise<Recomputed> {
  const result = noneChanged()
  const user = { companyId, userId }
  const months = new Set(scope.months)
  // Incrementally, a month none of whose days changed keeps what its days add up to: only its
  // carry follows the chain (a manual carry, a lock).
  const changedMonths = new Set(scope.days.map(monthOf))
  const aggregates = (month: Day) => months.has(month) && (mode === 'from-scratch' || changedMonths.has(month))
  const { weekRows, chain, days, accountRows } = await readSheetRows(trx, user, scope, aggregates)
  const monthRows = chain.filter((row) => aggregates(dayOf(row.month)))
  const periodBounds: [Day, Day][] = [
    ...weekRows.map((row): [Day, Day] => [dayOf(row.weekStart), addDays(dayOf(row.weekStart), 6)]),
    ...monthRows.map((row): [Day, Day] => [dayOf(row.month), lastDayOfMonth(dayOf(row.month))])
  ]
  const aggregated = new Set(monthRows.map((row) => dayOf(row.month)))
  // The days of the week and month rows, and the days of the scope no such row covers.
  const covered = new Set(periodBounds.flatMap(([first, last]) => daysFrom(first, last)))
  const dayRows = sortedUnique(scope.days)
    .filter((day) => !covered.has(day))
    .flatMap((day) => days.get(day) ?? [])
  const carried = chain.some((row) => months.has(dayOf(row.month)))
  if (dayRows.length + weekRows.length + monthRows.length === 0 && !carried) return result

  const { account, schedule } = accountAndScheduleOf(accountRows, companyId, userId)
  const periods = [...dayRows.map((row): [Day, Day] => [dayOf(row.day), dayOf(row.day)]), ...periodBounds]
  const changed = mode === 'from-scratch' ? null : new Set(scope.days)
  const writes: TableUpdate[] = []
  const states = await recomputeDayRows(trx, user, dayRuns(periods), days, changed, chain, schedule, result, writes)
  recomputeWeekRows(companyId, weekRows, states, result, writes)
  recomputeMonthChain(companyId, chain, months, aggregated, states, schedule, account, result, writes)
  await updateTables(trx, writes)
  return result
}

/** The rows a recomputation starts from, read by `readSheetRows`. */
interface SheetRows {
  /** The scope's week rows. */
  weekRows: Row[]
  /** The user's month rows from the month before the scope's first on, in order (the carry chain). */
  chain: Row[]
  /** Day rows by day: every day of the scope's weeks, of its months `aggregates` names, and of its days. */
  days: Map<Day, Row>
  /** The rows of `accountAndScheduleQuery`: where the user's account starts, the user's schedule. */
  accountRows: Row[]
}

/** The shape of `readSheetRows`' statement: whether the scope has weeks, whether it has months, how many runs of days. */
type SheetRowsShape = readonly [boolean, boolean, number]

/** Its values: the user; the first and last week start, the month before the first month (each if any); each run's first and last day. */
type SheetRowsValues = readonly [number, number, ...Day[]]

/** The most runs of days whose statement `readSheetRows` keeps compiled (and PostgreSQL named); more are built each time. */
const TEMPLATED_RUNS = 3

/** `readSheetRows`' statement, compiled once per shape (`WholeRowsShapes`). */
const SHEET_ROWS = new WholeRowsShapes(
  [WEEK_TABLE, MONTH_TABLE, DAY_TABLE],
  (db, shape: SheetRowsShape, values: SheetRowsValues) => sheetRowsParts(db, shape, values),
  'sheet rows'
)

/** The parts of `readSheetRows`' statement for `shape` with `values`, each value handed to knex as it is. */
function sheetRowsParts(
  db: Knex | Knex.Transaction,
  [weeks, months, runs]: SheetRowsShape,
  [companyId, userId, ...bounds]: SheetRowsValues
): (RowsPart | QueryPart)[] {
  const user = { companyId, userId }
  let at = 0
  const next = () => bounds[at++]
  const inRange = (column: string, from: Day, to: Day) => (query: Knex.QueryBuilder) =>
    query.where(user).where(column, '>=', unplannedDay(db, from)).where(column, '<=', unplannedDay(db, to))
  const parts: (RowsPart | QueryPart)[] = []
  if (weeks) parts.push({ table: WEEK_TABLE, filter: inRange('weekStart', next(), next()) })
  if (months) {
    const from = next()
    parts.push({
      table: MONTH_TABLE,
      filter: (query) => query.where(user).where('month', '>=', unplannedDay(db, from))
    })
  }
  for (let i = 0; i < runs; i++) parts.push({ table: DAY_TABLE, filter: inRange('day', next(), next()) })
  parts.push({ query: accountAndScheduleQuery(db, companyId, userId), columns: ACCOUNT_AND_SCHEDULE_COLUMNS })
  return parts
}

/**
 * Every row a recomputation of `scope` reads, in one statement (`wholeRowsOf`): the scope's
 * weeks, the carry chain from the month before its first month, and the days of its weeks, of
 * the months whose figures it recomputes and of its days, as runs of consecutive days; last, the
 * user's account and schedule (`accountAndScheduleQuery`). The
 * days are read by the scope, not by the week and month rows found: a week or month without a
 * row adds days nobody reads. Each part is the user's range of a `(company_id, user_id, …)`
 * index, its bounds hidden from PostgreSQL's planner, so the statement is named (by its text).
 * Before (2026-12-06) these were three to four statements, one after the other.
 */
async function readSheetRows(
  trx: Knex.Transaction,
  user: { companyId: number; userId: number },
  scope: Scope,
  aggregates: (month: Day) => boolean
): Promise<SheetRows> {
  const weekStarts = sortedUnique(scope.weekStarts)
  const months = sortedUnique(scope.months)
  const runs = dayRuns([
    ...weekStarts.map((week): [Day, Day] => [week, addDays(week, 6)]),
    ...months.filter(aggregates).map((month): [Day, Day] => [month, lastDayOfMonth(month)]),
    ...scope.days.map((day): [Day, Day] => [day, day])
  ])
  const shape: SheetRowsShape = [weekStarts.length > 0, months.length > 0, runs.length]
  const values: SheetRowsValues = [
    user.companyId,
    user.userId,
    ...(weekStarts.length > 0 ? [weekStarts[0], weekStarts[weekStarts.length - 1]] : []),
    ...(months.length > 0 ? [previousMonth(months[0])] : []),
    ...runs.flat()
  ]
  // The account and the schedule come in the same statement, as its last part: a statement less
  // for node-sqlite3's threads (PATCH week status +4 to +12 % in an A/B of both positions), and on
  // PostgreSQL a round trip less (0.3 ms of a 25-month carry chain's 2.6 ms in the twelfth session,
  // 2026-12-07; merged while each run built its text, the POST had measured 0 and -9 %).
  // Compiled once per shape and named while its text is one of a few (the runs of days make the shapes).
  const found =
    runs.length <= TEMPLATED_RUNS
      ? await SHEET_ROWS.read(trx, shape, values)
      : await wholeRowsOf(trx, sheetRowsParts(trx, shape, values), false)
  const accountRows = found.pop()!
  const wanted = new Set(weekStarts)
  const weekRows = weekStarts.length > 0 ? found.shift()!.filter((row) => wanted.has(dayOf(row.weekStart))) : []
  const byMonth = (a: Row, b: Row) => (dayOf(a.month) < dayOf(b.month) ? -1 : 1)
  const chain = months.length > 0 ? found.shift()!.sort(byMonth) : []
  const days = new Map<Day, Row>()
  for (const rows of found) for (const row of rows) days.set(dayOf(row.day), row)
  return { weekRows, chain, days, accountRows }
}

interface DayInputs {
  entries: Map<Day, EntryInput[]>
  absences: AbsenceInput[]
}

/**
 * pg's statement name of the read of the inputs (SQLite ignores it; it keeps the statement
 * prepared by text). PostgreSQL planned the entries' and the absences' reads for every
 * recomputation against the indexes of their tables (user_absences has 17), 0.15–0.33 ms each,
 * more than they take to run. The plan cannot depend on the values (the user's ranges of the
 * `(company_id, user_id, …)` indexes) and the statement names its columns. Its ranges are hidden
 * from the planner (`unplannedInstant`): with their values known, the custom plans looked cheaper
 * than the generic one and PostgreSQL went on planning it (0.14 ms at each bind).
 */
const INPUTS = { name: 'crewclock_day_inputs' }

/**
 * The user's entries that start in `[from, to]` and approved absences that touch it: one statement
 * (`union all`, each part its own index range; an entry's row has no absence columns and an
 * absence's no `worked_ms`), one round trip instead of two.
 */
async function loadInputs(
  trx: Knex.Transaction,
  { companyId, userId }: { companyId: number; userId: number },
  from: Day,
  to: Day,
  zone: string
): Promise<DayInputs> {
  return inputsOf(await INPUTS_READ.statement(trx, [], [companyId, userId, ...inputsBounds(from, to, zone)]), zone)
}

/** `loadInputs`' statement, compiled once (`StatementShapes`). */
const INPUTS_READ = new StatementShapes((db, _shape: [], [companyId, userId, start, end]: InputsValues) =>
  inputsQuery(db, companyId, userId, start, end).options(INPUTS)
)

type InputsValues = readonly [number, number, string, string]

/** The instants `inputsQuery` reads between: the start of `from` and the end of `to` in `zone`, as ISO text. */
const inputsBounds = (from: Day, to: Day, zone: string): [string, string] => [
  dayBounds(from, zone).start.toISOString(),
  dayBounds(to, zone).end.toISOString()
]

/**
 * `loadInputs`' statement, unsent: its rows are tagged `entry` or `absence` in `kind`. `start` and
 * `end` are `inputsBounds`; every value goes to knex as it is (a `StatementShapes` template).
 */
function inputsQuery(
  db: Knex | Knex.Transaction,
  companyId: number,
  userId: number,
  startsAt: string,
  endsAt: string
): Knex.QueryBuilder {
  const start = unplannedInstant(db, startsAt)
  const end = unplannedInstant(db, endsAt)
  return db('time_entries')
    .where({ companyId, userId })
    .where('startsAt', '>=', start)
    .where('startsAt', '<', end)
    .select(
      db.raw("'entry' as kind"),
      'startsAt',
      'endsAt',
      'workedMs',
      db.raw('null as compensation_declined_at'),
      db.raw('null as is_absence_hourly'),
      db.raw('null as count_as_working_time'),
      db.raw('null as need_compensation')
    )
    .unionAll(
      db('user_absences')
        .join('user_absence_types', 'user_absence_types.id', 'user_absences.typeId')
        .where('user_absences.companyId', companyId)
        .where('user_absences.userId', userId)
        .where('user_absences.status', 'approved')
        .where('user_absences.startsAt', '<', end)
        .where('user_absences.endsAt', '>', start)
        .select(
          db.raw("'absence' as kind"),
          'user_absences.startsAt',
          'user_absences.endsAt',
          db.raw('null as worked_ms'),
          'user_absences.compensationDeclinedAt',
          'user_absence_types.isAbsenceHourly',
          'user_absence_types.countAsWorkingTime',
          'user_absence_types.needCompensation'
        )
    )
}

/** The inputs in the rows of `inputsQuery` (rows of another `kind` are passed over). */
function inputsOf(rows: Row[], zone: string): DayInputs {
  const entries = new Map<Day, EntryInput[]>()
  const absences: AbsenceInput[] = []
  for (const row of rows) {
    if (row.kind === 'absence') {
      absences.push({
        startsAt: millis(row.startsAt),
        endsAt: millis(row.endsAt),
        hourly: Boolean(row.isAbsenceHourly),
        countAsWorkingTime: Boolean(row.countAsWorkingTime),
        needCompensation: Boolean(row.needCompensation),
        compensationDeclined: row.compensationDeclinedAt !== null && row.compensationDeclinedAt !== undefined
      })
      continue
    }
    if (row.kind !== 'entry') continue
    const entry = {
      startsAt: millis(row.startsAt),
      endsAt: row.endsAt === null ? null : millis(row.endsAt),
      workedMs: numberOrNull(row.workedMs)
    }
    const day = calendarDay(entry.startsAt, zone)
    entries.set(day, [...(entries.get(day) ?? []), entry])
  }
  return { entries, absences }
}

const stamp = () => new Date().toISOString()

/**
 * The periods as disjoint runs of consecutive days, in order: the days a recomputation computes
 * are those of the rows it recomputes, not every day between the first and the last of them
 * (a user's rows of 2001 and of today are two runs, not 25 years).
 */
export function dayRuns(periods: [Day, Day][]): [Day, Day][] {
  const runs: [Day, Day][] = []
  for (const [first, last] of [...periods].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const previous = runs[runs.length - 1]
    if (previous && first <= addDays(previous[1], 1)) {
      if (last > previous[1]) previous[1] = last
    } else runs.push([first, last])
  }
  return runs
}

/**
 * Every calendar day of the runs as the aggregates see it: the days of `changed` (all of them
 * when null) and those known neither by a row nor by their month's `dailyFigures` are computed
 * from their inputs and their stored rows brought up to date; the others are taken as stored.
 * `rows`: the stored day rows (whole rows, also of the days kept as stored: the days computed
 * afresh are compared with theirs), by day, at least those of the runs.
 */
async function recomputeDayRows(
  trx: Knex.Transaction,
  user: { companyId: number; userId: number },
  runs: [Day, Day][],
  rows: Map<Day, Row>,
  changed: Set<Day> | null,
  monthRows: Row[],
  schedule: Schedule,
  result: Recomputed,
  writes: TableUpdate[]
): Promise<Map<Day, DayState>> {
  const states = new Map<Day, DayState>()
  const recomputed: Recomputation[] = []
  const days = runs.flatMap(([from, to]) => daysFrom(from, to))
  // Computed from their inputs: every day, or the changed ones and those known neither by a row
  // nor by their month's figures; the others are kept as stored.
  const fresh: Day[] = []
  const kept: Day[] = []
  const daily = changed === null ? new Map<Day, [number, number]>() : monthDailyFigures(monthRowsOf(monthRows, days))
  for (const day of days) {
    if (changed === null || changed.has(day) || (!rows.has(day) && !daily.has(day))) fresh.push(day)
    else kept.push(day)
  }
  const freshRuns = asRuns(fresh)
  let firstInputs: DayInputs | undefined
  if (kept.length > 0) {
    // One scan per run of the periods (a changed day in it costs less than a second query),
    // in the statement of the first run of fresh days' inputs where there is one.
    const pieces = flagPieces(runs)
    let flags: EntryFlags
    if (freshRuns.length > 0 && pieces.length <= FLAG_PIECES_WITH_INPUTS) {
      const read = await flaggedInputs(trx, user, freshRuns[0], pieces, schedule.timezone)
      flags = read.flags
      firstInputs = read.inputs
    } else flags = await entryFlags(trx, user, runs, schedule.timezone)
    for (const day of kept) states.set(day, keptState(day, rows.get(day), daily.get(day), flags))
  }
  for (const [i, [from, to]] of freshRuns.entries()) {
    const inputs = (i === 0 ? firstInputs : undefined) ?? (await loadInputs(trx, user, from, to, schedule.timezone))
    computeRun(user, from, to, inputs, rows, schedule, states, recomputed)
  }
  writeChanged(writes, DAY_TABLE, user.companyId, recomputed, result.days, result.stored!.days)
  return states
}

const asRuns = (days: Day[]) => dayRuns(days.map((day): [Day, Day] => [day, day]))

/** The month rows of the months of `days`. */
function monthRowsOf(monthRows: Row[], days: Day[]): Row[] {
  const wanted = new Set(days.map(monthOf))
  return monthRows.filter((row) => wanted.has(dayOf(row.month)))
}

/**
 * The `[duration, expected]` figures the month rows keep for each of their days (`dailyFigures`),
 * by day; a month whose list does not match its days (a row not yet computed) gives none.
 */
function monthDailyFigures(monthRows: Row[]): Map<Day, [number, number]> {
  const figures = new Map<Day, [number, number]>()
  for (const row of monthRows) {
    const list: unknown =
      typeof row.dailyFigures === 'string' ? JSON.parse(row.dailyFigures) : (row.dailyFigures ?? null)
    const days = monthDays(dayOf(row.month))
    if (!Array.isArray(list) || list.length !== days.length) continue
    days.forEach((day, i) => figures.set(day, [Number(list[i][0]), Number(list[i][1])]))
  }
  return figures
}

/** The days of a user with a running entry and those with a finished entry that runs past their end. */
interface EntryFlags {
  open: Set<Day>
  multiDay: Set<Day>
}

const noFlags = (): EntryFlags => ({ open: new Set(), multiDay: new Set() })

/** pg's statement name of `entryFlags`' read (its text is the same for every run on PostgreSQL). */
const ENTRY_FLAGS = { name: 'crewclock_entry_flags' }

/**
 * The entries that start in the runs and either run or cross a local midnight of the runs (which
 * an entry that runs past the end of its own day does): one index range scan per run, the
 * crossing tested in SQL, so only the few flagged entries come back. On PostgreSQL a named
 * statement whose range the planner does not see (`unplannedInstant`): planned anew it cost
 * 0.29 ms of parsing and planning on every recomputation, against 0.03 ms of execution.
 */
async function entryFlags(
  trx: Knex.Transaction,
  { companyId, userId }: { companyId: number; userId: number },
  runs: [Day, Day][],
  zone: string
): Promise<EntryFlags> {
  const flags = noFlags()
  for (const piece of flagPieces(runs)) {
    const values = pieceValues(trx, piece, zone)
    const rows: Row[] = await FLAGS_READ.statement(trx, [values.length], [companyId, userId, ...values])
    addFlags(flags, rows, zone)
  }
  return flags
}

/** `entryFlags`' statement of one piece, compiled once per shape (the piece's number of values, `pieceValues`). */
const FLAGS_READ = new StatementShapes(
  (db, [count]: readonly [number], [companyId, userId, ...piece]: readonly [number, number, ...string[]]) =>
    flagsQuery(db, companyId, userId, piece.slice(0, count)).select('startsAt', 'endsAt').options(ENTRY_FLAGS)
)

const flagPieces = (runs: [Day, Day][]) => runs.flatMap((run) => piecesOf(run, FLAG_RUN_DAYS))

/**
 * The values `flagsQuery` binds for the piece `[from, to]`: where it starts, its last local
 * midnight and its midnights (`crossesMidnight`: PostgreSQL one array, SQLite each of them), as
 * ISO text. Their number is the statement's shape.
 */
function pieceValues(trx: Knex.Transaction, [from, to]: [Day, Day], zone: string): string[] {
  const midnights = daysFrom(from, to).map((day) => dayBounds(day, zone).end.toISOString())
  const bounds = [dayBounds(from, zone).start.toISOString(), midnights[midnights.length - 1]]
  // An ISO instant has no comma, brace or quote: the array literal needs no escaping.
  return trx.client.config.client === 'pg' ? [...bounds, `{${midnights.join(',')}}`] : [...bounds, ...midnights]
}

/** `entryFlags`' statement for one piece of at most `FLAG_RUN_DAYS` days (its `pieceValues`), without its columns. */
function flagsQuery(
  db: Knex | Knex.Transaction,
  companyId: number,
  userId: number,
  [start, lastMidnight, ...midnights]: readonly string[]
): Knex.QueryBuilder {
  const [crossing, bindings] = crossesMidnight(db, midnights)
  return db('time_entries')
    .where({ companyId, userId })
    .where('startsAt', '>=', unplannedInstant(db, start))
    .where('startsAt', '<', unplannedInstant(db, lastMidnight))
    .where((query) => query.whereNull('endsAt').orWhereRaw(`(${crossing})`, bindings))
}

/** Flags the start days of the flagged entries in `rows` (their `startsAt` and `endsAt`). */
function addFlags(flags: EntryFlags, rows: Row[], zone: string) {
  for (const row of rows) {
    const day = calendarDay(row.startsAt, zone)
    if (row.endsAt === null) flags.open.add(day)
    else if (coversSeveralDays(row.startsAt, row.endsAt, zone)) flags.multiDay.add(day)
  }
}

/**
 * Pieces of `entryFlags` read in the statement of the first run's inputs (`flaggedInputs`): a
 * write's recomputation has one or two runs, and a bound keeps the statement within SQLite's
 * limit of 500 parts of a compound select and its texts a few (named by text on PostgreSQL).
 */
const FLAG_PIECES_WITH_INPUTS = 3

/**
 * The inputs of `[from, to]` (`loadInputs`) and the flags of `pieces` (`entryFlags`) in one
 * statement, one round trip instead of two: the flags' parts join the inputs' `union all`,
 * tagged `flag`, in its columns.
 */
async function flaggedInputs(
  trx: Knex.Transaction,
  { companyId, userId }: { companyId: number; userId: number },
  [from, to]: [Day, Day],
  pieces: [Day, Day][],
  zone: string
): Promise<{ inputs: DayInputs; flags: EntryFlags }> {
  const values = pieces.map((piece) => pieceValues(trx, piece, zone))
  const rows: Row[] = await FLAGGED_INPUTS.statement(
    trx,
    values.map((piece) => piece.length),
    [companyId, userId, ...inputsBounds(from, to, zone), ...values.flat()]
  )
  const flags = noFlags()
  addFlags(
    flags,
    rows.filter((row) => row.kind === 'flag'),
    zone
  )
  return { inputs: inputsOf(rows, zone), flags }
}

/**
 * `flaggedInputs`' statement, compiled once per shape (the number of values of each piece,
 * `pieceValues`), named on PostgreSQL by its text: a write's recomputation has a few shapes.
 */
const FLAGGED_INPUTS = new StatementShapes(
  (
    db,
    counts: readonly number[],
    [companyId, userId, start, end, ...pieces]: readonly [number, number, ...string[]]
  ) => {
    const nothing = (column: string) => db.raw(`null as ${column}`)
    const query = inputsQuery(db, companyId, userId, start, end)
    let at = 0
    for (const count of counts)
      query.unionAll(
        flagsQuery(db, companyId, userId, pieces.slice(at, (at += count))).select(
          db.raw("'flag' as kind"),
          'startsAt',
          'endsAt',
          ...[
            'worked_ms',
            'compensation_declined_at',
            'is_absence_hourly',
            'count_as_working_time',
            'need_compensation'
          ].map(nothing)
        )
      )
    return query
  },
  'inputs and flags'
)

/**
 * Days per statement of `entryFlags`. SQLite refuses an expression deeper than 1000, and its
 * crossing test has one arm per day: a run of an absence's 1096 days was a 500 (found by an outside
 * review). An entry that starts in one piece and crosses a midnight of a later one crosses the
 * piece's last midnight first, so the pieces flag what the whole run would.
 */
const FLAG_RUN_DAYS = 366

/** `[from, to]` as consecutive runs of at most `days` days. */
function piecesOf([from, to]: [Day, Day], days: number): [Day, Day][] {
  const pieces: [Day, Day][] = []
  for (let first = from; first <= to; first = addDays(first, days)) {
    const last = addDays(first, days - 1)
    pieces.push([first, last < to ? last : to])
  }
  return pieces
}

/**
 * An entry of `time_entries` starts before one of `midnights` (ascending ISO instants; PostgreSQL:
 * their array literal, `pieceValues`) and ends after it. On PostgreSQL as "ends after the first midnight after its start", found by `width_bucket` (a
 * binary search of the sorted array, one parameter): one `(starts_at < ? and ends_at > ?)` arm per
 * midnight made it plan the statement anew against each of the table's indexes for every
 * recomputation (a month of 141 entries: 1.5–1.7 ms a round trip, of it 0.6–1.0 ms planning; this
 * form 0.17–0.19 ms; `min()` over an `unnest` per row 0.51). SQLite keeps the arms: its statement is
 * prepared once per run length, and a `json_each` of the midnights, parsed again for every row, took
 * three times as long (430 against 154 µs).
 */
function crossesMidnight(db: Knex | Knex.Transaction, midnights: readonly string[]): [string, Knex.Value[]] {
  if (db.client.config.client === 'pg') {
    // Past the last midnight the subscript is NULL, and so is the comparison.
    const [array] = midnights
    return [
      '?? > (?::timestamptz[])[width_bucket(??, ?::timestamptz[]) + 1]',
      ['time_entries.endsAt', array, 'time_entries.startsAt', array]
    ]
  }
  return [
    midnights.map(() => '(?? < ? and ?? > ?)').join(' or '),
    midnights.flatMap((midnight) => ['startsAt', midnight, 'endsAt', midnight])
  ]
}

/**
 * A day as stored: its row's workflow, or, without a row, a draft day; its duration and target
 * from its row or its month's `dailyFigures` (the only figures weeks and months sum up).
 */
function keptState(day: Day, row: Row | undefined, daily: [number, number] | undefined, flags: EntryFlags): DayState {
  const [durationMs, expectedDurationMs] = daily ?? [0, 0]
  return {
    day,
    status: (row?.status ?? 'draft') as SheetStatus,
    figures: row
      ? { ...NO_FIGURES, durationMs: Number(row.durationMs), expectedDurationMs: Number(row.expectedDurationMs) }
      : { ...NO_FIGURES, durationMs, expectedDurationMs },
    recomputable: Boolean(row?.recomputable),
    hasOpenTimeEntry: flags.open.has(day),
    hasMultipleDayTimeEntry: flags.multiDay.has(day),
    submittedAt: isoOrNull(row?.submittedAt),
    submittedFirstAt: isoOrNull(row?.submittedFirstAt),
    approvedAt: isoOrNull(row?.approvedAt),
    declinedAt: isoOrNull(row?.declinedAt),
    declinedNote: row?.declinedNote ?? null
  }
}

const NO_FIGURES: DayFigures = {
  startsAt: null,
  endsAt: null,
  breakTimeMs: null,
  durationMs: 0,
  expectedDurationMs: 0,
  breakTimeErrorType: null,
  breakTimeErrorExpectedMs: null,
  breakTimeErrorValueMs: null,
  breakTimeErrorDurationMinMs: null,
  durationErrorExpectedMs: null,
  durationErrorValueMs: null
}

/** The states of the days `from`..`to` (`rows`: the stored day rows by day), and the recomputation of their stored rows. */
function computeRun(
  user: { companyId: number; userId: number },
  from: Day,
  to: Day,
  inputs: DayInputs,
  rows: Map<Day, Row>,
  schedule: Schedule,
  states: Map<Day, DayState>,
  recomputed: Recomputation[]
) {
  for (const day of daysFrom(from, to)) {
    const row = rows.get(day)
    const dayCalendar = schedule.on(day)
    const computed = computeDay(day, inputs.entries.get(day) ?? [], inputs.absences, dayCalendar)
    const fresh = effectiveFigures(computed, row ? overridesOf(row) : NO_OVERRIDES, dayCalendar)
    const frozen = row?.status === 'approved'
    const figures = frozen ? storedDayFigures(row) : fresh
    const recomputable =
      frozen && Object.keys(changedColumns(dayFigureColumns(figures), dayFigureColumns(fresh))).length > 0
    states.set(day, {
      day,
      status: (row?.status ?? 'draft') as SheetStatus,
      figures,
      recomputable,
      hasOpenTimeEntry: computed.hasOpenTimeEntry,
      hasMultipleDayTimeEntry: computed.hasMultipleDayTimeEntry,
      submittedAt: isoOrNull(row?.submittedAt),
      submittedFirstAt: isoOrNull(row?.submittedFirstAt),
      approvedAt: isoOrNull(row?.approvedAt),
      declinedAt: isoOrNull(row?.declinedAt),
      declinedNote: row?.declinedNote ?? null
    })
    if (row) recomputed.push({ row, columns: { ...(frozen ? {} : dayFigureColumns(fresh)), recomputable } })
  }
}

/** A stored row and the values a recomputation gives its columns. */
interface Recomputation {
  row: Row
  columns: Row
}

/**
 * Plans the write of each row whose stored values differ from its recomputed ones into `writes`,
 * the changed rows of the table together; unchanged rows are not written. `recompute` sends the
 * writes of its days, weeks and months at its end, in one statement on PostgreSQL
 * (`updateTables`); nothing reads those rows in between. `computed` rows (weeks, months) also
 * record when their figures changed. Each written row, as stored then, goes into `stored` (the
 * rows recomputed are read whole).
 */
function writeChanged(
  writes: TableUpdate[],
  table: string,
  companyId: number,
  recomputed: Recomputation[],
  changedIds: number[],
  stored: Map<number, Row>,
  computed = false
) {
  // A changed row's other recomputed columns go along as `unchanged`: PostgreSQL writes them too,
  // so that the UPDATE's text depends on the table and the kind of recomputation, not on which
  // figures moved, and stays one of a handful of named statements (`namedByText`; with the changed
  // columns only, the timesheet tests alone made 138–171 texts, found by a review). SQLite writes
  // the changed ones only (writing them all there cost 14 % of POST time entry's throughput in one
  // position of an A/B, nothing in the other).
  // One pass over each row's columns, into objects built key by key: a carry chain writes 25 rows,
  // and Object.fromEntries and spreads cost microseconds each on Node 20 (docs/performance.md).
  const updates: { row: Row; id: number; columns: Row; unchanged: Row }[] = []
  for (const { row, columns } of recomputed) {
    const changed: Row = {}
    const unchanged: Row = {}
    let moved = false
    for (const name of Object.keys(columns)) {
      const value = columns[name]
      const written = toDbValue(value)
      if (valueChanged(row[name], value)) {
        changed[name] = written
        moved = true
        // An undefined value compares equal to a stored NULL and is kept as it is.
      } else if (written !== undefined) unchanged[name] = written
    }
    if (moved) updates.push({ row, id: Number(row.id), columns: changed, unchanged })
  }
  if (updates.length === 0) return
  const now = stamp()
  const common: Row = computed ? { computedAt: now, updatedAt: now } : { updatedAt: now }
  writes.push({ table, companyId, rows: updates, common })
  // A copy of the whole row, then its new values (keys it already has): Object.assign into an empty
  // object added its 39 keys one by one, at 4 µs a row.
  for (const { row, id, columns } of updates) stored.set(id, Object.assign({ ...row }, columns, common))
  changedIds.push(...updates.map((update) => update.id))
}

function recomputeWeekRows(
  companyId: number,
  weekRows: Row[],
  states: Map<Day, DayState>,
  result: Recomputed,
  writes: TableUpdate[]
) {
  const recomputed = weekRows.map((row) => {
    const days = weekDays(dayOf(row.weekStart)).map((day) => states.get(day) as DayState)
    const status = weekStatus(days)
    return { row, columns: { status, ...weekTimestamps(status, days), ...summarize(days) } }
  })
  writeChanged(writes, WEEK_TABLE, companyId, recomputed, result.weeks, result.stored!.weeks, true)
}

/** The columns of a month that come from its days. */
function monthDayColumns(row: Row, states: Map<Day, DayState>): Row {
  const days = monthDays(dayOf(row.month)).map((day) => states.get(day) as DayState)
  const { sumActualMs, sumTargetMs, ...counts } = summarize(days)
  return {
    ...counts,
    sumActualComputedMs: sumActualMs,
    sumTargetComputedMs: sumTargetMs,
    dailyFigures: days.map((day) => [day.figures.durationMs, day.figures.expectedDurationMs]),
    declinedNote: monthDeclinedNote(row.status, days)
  }
}

/**
 * The columns of a month's carry: all of `MonthCarry` but its sums, as one literal (no rest and
 * spread: Node 20's slow path). Typed by `MonthCarry`, so a field added there fails to compile here
 * until it is written, as the rest took it before.
 */
const carryColumns = (carry: MonthCarry): Omit<MonthCarry, 'sumActualMs' | 'sumTargetMs'> => ({
  carryInComputedMs: carry.carryInComputedMs,
  carryInMs: carry.carryInMs,
  carryOutComputedMs: carry.carryOutComputedMs,
  carryOutMs: carry.carryOutMs,
  carryOutForfeitedMs: carry.carryOutForfeitedMs,
  carryInCorrectionType: carry.carryInCorrectionType,
  carryOutCorrectionType: carry.carryOutCorrectionType
})

/**
 * Recomputes the months of `aggregated` from their days and the carry chain from the first month
 * of `scoped` forward; a locked month ends the chain (later months chain from its locked carry-out) unless a
 * later month is itself in scope. The chain starts in the account's first month with the opening
 * balance; months before it take nothing and pass nothing on (CONTRACT §11.1).
 */
function recomputeMonthChain(
  companyId: number,
  chain: Row[],
  scoped: Set<Day>,
  aggregated: Set<Day>,
  states: Map<Day, DayState>,
  schedule: Schedule,
  account: AccountStart,
  result: Recomputed,
  writes: TableUpdate[]
) {
  const capMsOf = (month: Day) => {
    const cap = schedule.capOf(month)
    return cap === null ? null : cap * MINUTE_MS
  }
  const firstScoped = chain.findIndex((row) => scoped.has(dayOf(row.month)))
  if (firstScoped < 0) return
  const before = firstScoped > 0 ? chain[firstScoped - 1] : null
  let previous: { month: Day; carryOutMs: number } | null = before
    ? { month: dayOf(before.month), carryOutMs: Number(before.carryOutMs) }
    : null
  const lastScoped = chain.map((row) => scoped.has(dayOf(row.month))).lastIndexOf(true)
  const recomputed: Recomputation[] = []
  for (let i = firstScoped; i < chain.length; i++) {
    const row = chain[i]
    const columns: Row | null = aggregated.has(dayOf(row.month)) ? monthDayColumns(row, states) : null
    const locked = lockedFigures(row)
    const carry = carryMonth(
      chainCarryInMs(dayOf(row.month), account, previous),
      {
        sumActualComputedMs: Number((columns ?? row).sumActualComputedMs),
        sumTargetComputedMs: Number((columns ?? row).sumTargetComputedMs),
        carryInManualMs: numberOrNull(row.carryInManualMs),
        carryOutManualMs: numberOrNull(row.carryOutManualMs),
        locked
      },
      capMsOf(dayOf(row.month))
    )
    recomputed.push({ row, columns: columns ? Object.assign(columns, carryColumns(carry)) : carryColumns(carry) })
    previous = { month: dayOf(row.month), carryOutMs: carry.carryOutMs }
    if (locked && i >= lastScoped) break
  }
  writeChanged(writes, MONTH_TABLE, companyId, recomputed, result.months, result.stored!.months, true)
}
