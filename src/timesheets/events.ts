import type { Knex } from 'knex'
import type { Params } from '../declarations'
import type { Row } from '../resources/define-resource'
import { journalOf } from '../events/journal'
import type { FanOutResult } from './fan-out'
import { CreatedRows, DAY_TABLE, MONTH_TABLE, WEEK_TABLE, dayOf } from './sheet-rows'
import type { Recomputed, StoredRows } from './recompute'
import { addDays, monthOf } from './periods'

/**
 * Events for the time-sheet rows a request changes besides its own record (rows it created on
 * demand, days moved by a week or month, rows its recomputation changed). They are noted in the
 * request's event journal: appended to the event log in the request's transaction with the rows'
 * final state, and sent to the company's sockets once it commits, so that a rolled-back request
 * logs and announces nothing (src/events/journal.ts).
 */
export interface SheetEvent {
  path: string
  event: 'created' | 'patched'
  ids: number[]
  /** The rows among `ids` as their last write left them (the others are read when the write ends). */
  stored?: ReadonlyMap<number, Row>
}

/** Notes `events` in the journal of the write `params` belongs to. */
export function logSheetEvents(params: Params, events: SheetEvent[]) {
  const journal = journalOf(params)
  for (const { path, event, ids, stored } of events) journal.touch(path, event, ids, stored)
}

/** The rows of writes made one after the other, each as the latest of them left it. */
const latestOf = (...writes: (StoredRows | undefined)[]): StoredRows => ({
  days: new Map(writes.flatMap((write) => [...(write?.days ?? [])])),
  weeks: new Map(writes.flatMap((write) => [...(write?.weeks ?? [])])),
  months: new Map(writes.flatMap((write) => [...(write?.months ?? [])]))
})

const idsOf = (rows: { id: number }[]) => rows.map((row) => row.id)

/**
 * `created` for the time-sheet rows a request created on demand (`openSheets`, `ensureSheets`),
 * then `patched` for the other rows that opening them or the request's recomputation changed. Rows in `own` are
 * left out of both: they are the request's record, which its service announces.
 */
export function sheetEvents(
  created: CreatedRows & { changed?: Recomputed },
  recomputed?: Recomputed,
  own: Partial<Recomputed> = {}
): SheetEvent[] {
  const made = { days: idsOf(created.days), weeks: idsOf(created.weeks), months: idsOf(created.months) }
  const without = (ids: number[], skip: number[] = []) => ids.filter((id) => !skip.includes(id))
  // Rows opened on demand pass their carry on to the months after them (`openSheets`).
  const both = [created.changed, recomputed].filter((found): found is Recomputed => found !== undefined)
  const changed: Recomputed | undefined = both.length
    ? {
        days: both.flatMap((found) => found.days),
        weeks: both.flatMap((found) => found.weeks),
        months: both.flatMap((found) => found.months),
        stored: latestOf(...both.map((found) => found.stored))
      }
    : undefined
  return [
    { path: 'v1/time-sheet-days', event: 'created', ids: without(made.days, own.days) },
    { path: 'v1/time-sheet-weeks', event: 'created', ids: without(made.weeks, own.weeks) },
    { path: 'v1/time-sheet-months', event: 'created', ids: without(made.months, own.months) },
    ...(changed
      ? recomputedEvents(changed, {
          days: [...made.days, ...(own.days ?? [])],
          weeks: [...made.weeks, ...(own.weeks ?? [])],
          months: [...made.months, ...(own.months ?? [])]
        })
      : [])
  ]
}

/**
 * The events of a week or month move: `created` for each row created for it, `patched` for each
 * day that moved and for every row the move's recomputation changed (the week and month counts,
 * the days' figures, the carry of later months). The moved days are noted last, as the move and
 * the recomputation after it left them: what the recomputation of the opened rows wrote before
 * the move is no longer their state.
 */
export function logFanOut(params: Params, result: FanOutResult) {
  logSheetEvents(params, [
    ...sheetEvents(result.created, result.changed),
    {
      path: 'v1/time-sheet-days',
      event: 'patched',
      ids: result.moved,
      stored: new Map([...result.movedRows, ...(result.changed.stored?.days ?? [])])
    }
  ])
}

/**
 * `patched` for the time-sheet rows a recomputation changed: a clocked entry or an absence moves
 * its day's, week's and month's figures (and the carry of later months), and a dashboard showing
 * them must hear of it. Rows in `except` are left out: the request announces them itself (its
 * own record, rows it announces as `created`).
 */
export function recomputedEvents(changed: Recomputed, except: Partial<Recomputed> = {}): SheetEvent[] {
  const without = (ids: number[], skip: number[] = []) => ids.filter((id) => !skip.includes(id))
  const stored = changed.stored
  return [
    { path: 'v1/time-sheet-days', event: 'patched', ids: without(changed.days, except.days), stored: stored?.days },
    { path: 'v1/time-sheet-weeks', event: 'patched', ids: without(changed.weeks, except.weeks), stored: stored?.weeks },
    {
      path: 'v1/time-sheet-months',
      event: 'patched',
      ids: without(changed.months, except.months),
      stored: stored?.months
    }
  ]
}

/** Logs and announces the rows a recomputation changed (see `recomputedEvents`), for the call that changed them. */
export const logRecomputed = ({ params }: { params: Params }, changed: Recomputed) =>
  logSheetEvents(params, recomputedEvents(changed))

// --- company.recomputed ---------------------------------------------------------------------------

export const COMPANY_RECOMPUTED = 'company.recomputed'

/** Why many rows were recomputed at once: a company working-time version, the timezone, a release's upgrade. */
export type RecomputeReason = 'working-time-versions' | 'timezone' | 'upgrade'

/**
 * The data of `company.recomputed` (CONTRACT §13.1): one event instead of one per row. `userIds`:
 * the users whose time-sheet rows changed or whose absences' `workDays` moved; `months`: the
 * months (first days) whose day, week or month rows changed; `fromDay`: where the recomputation
 * started (null: every day of those users). An integrator re-reads those users' time-sheet rows
 * and absences from `fromDay` on (of `months`).
 */
export interface CompanyRecomputed {
  reason: RecomputeReason
  fromDay: string | null
  userIds: number[]
  months: string[]
}

/** The months of the rows of `table` among `ids` (a week counts for the months of its first and last day). */
async function monthsOfRows(trx: Knex.Transaction, companyId: number, table: string, column: string, ids: number[]) {
  const months = new Set<string>()
  for (let start = 0; start < ids.length; start += 500) {
    const rows = await trx(table)
      .where({ companyId })
      .whereIn('id', ids.slice(start, start + 500))
      .select(column)
    for (const row of rows) {
      const day = dayOf(row[column])
      months.add(monthOf(day))
      if (table === WEEK_TABLE) months.add(monthOf(addDays(day, 6)))
    }
  }
  return months
}

/** The `company.recomputed` data of a recomputation of many users, or null when it changed nothing. */
export async function companyRecomputed(
  trx: Knex.Transaction,
  companyId: number,
  {
    reason,
    fromDay,
    changed,
    absences = []
  }: {
    reason: RecomputeReason
    fromDay: string | null
    changed: Map<number, Recomputed>
    absences?: { userId: number }[]
  }
): Promise<CompanyRecomputed | null> {
  const userIds = new Set([...changed.keys(), ...absences.map((absence) => absence.userId)])
  if (userIds.size === 0) return null
  const all = (pick: (rows: Recomputed) => number[]) => [...changed.values()].flatMap(pick)
  const months = new Set([
    ...(await monthsOfRows(
      trx,
      companyId,
      DAY_TABLE,
      'day',
      all((rows) => rows.days)
    )),
    ...(await monthsOfRows(
      trx,
      companyId,
      WEEK_TABLE,
      'weekStart',
      all((rows) => rows.weeks)
    )),
    ...(await monthsOfRows(
      trx,
      companyId,
      MONTH_TABLE,
      'month',
      all((rows) => rows.months)
    ))
  ])
  return { reason, fromDay, userIds: [...userIds].sort((a, b) => a - b), months: [...months].sort() }
}
