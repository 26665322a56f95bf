import type { Knex } from 'knex'
import type { Application, Params } from '../declarations'
import type { ResourceService } from '../resources/service'
import type { FanOutResult } from './fan-out'
import type { CreatedRows } from './sheet-rows'
import type { Recomputed } from './recompute'

/**
 * Service events for rows that a request changes besides its own record (days moved by a week
 * or month, rows created on demand). They are read and shaped inside the transaction and emitted
 * once it commits, so that a rolled-back request announces nothing; the app's publisher sends
 * them to the company channel of `params.company`.
 */
export interface SheetEvent {
  path: string
  event: 'created' | 'patched'
  ids: number[]
}

export async function publishAfterCommit(app: Application, params: Params, events: SheetEvent[]) {
  const trx = params.transaction?.trx as Knex.Transaction | undefined
  const company = params.company
  if (!trx || !company) return
  const ready: { path: string; event: string; records: Record<string, unknown>[] }[] = []
  for (const { path, event, ids } of events) {
    if (ids.length === 0) continue
    const service: ResourceService = app.service(path)
    const rows = await trx(service.resource.table)
      .where({ companyId: company.id })
      .whereIn('id', [...new Set(ids)])
      .orderBy('id')
    ready.push({ path, event, records: await service.decode(rows, params) })
  }
  if (ready.length === 0) return
  trx.executionPromise.then(
    () => {
      for (const { path, event, records } of ready) {
        const method = event === 'created' ? 'create' : 'patch'
        for (const record of records)
          app.service(path).emit(event, record, { path, method, params: { company }, result: record })
      }
    },
    () => undefined
  )
}

const idsOf = (rows: { id: number }[]) => rows.map((row) => row.id)

/**
 * `created` for the time-sheet rows a request created on demand (`openSheets`, `ensureSheets`),
 * then, with `changed`, `patched` for the other rows its recomputation changed. Rows in `own` are
 * left out of both: they are the request's record, which its service announces.
 */
export function sheetEvents(created: CreatedRows, changed?: Recomputed, own: Partial<Recomputed> = {}): SheetEvent[] {
  const made = { days: idsOf(created.days), weeks: idsOf(created.weeks), months: idsOf(created.months) }
  const without = (ids: number[], skip: number[] = []) => ids.filter((id) => !skip.includes(id))
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

/** The events of a week or month move: `created` for each row created for it, `patched` for each day that moved. */
export function publishFanOut(app: Application, params: Params, result: FanOutResult) {
  return publishAfterCommit(app, params, [
    ...sheetEvents(result.created),
    { path: 'v1/time-sheet-days', event: 'patched', ids: result.moved }
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
  return [
    { path: 'v1/time-sheet-days', event: 'patched', ids: without(changed.days, except.days) },
    { path: 'v1/time-sheet-weeks', event: 'patched', ids: without(changed.weeks, except.weeks) },
    { path: 'v1/time-sheet-months', event: 'patched', ids: without(changed.months, except.months) }
  ]
}

/** Announces, after commit, the rows a recomputation changed (see `recomputedEvents`), for the call that changed them. */
export const publishRecomputed = ({ app, params }: { app: Application; params: Params }, changed: Recomputed) =>
  publishAfterCommit(app, params, recomputedEvents(changed))
