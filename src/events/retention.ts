import type { Knex } from 'knex'
import type { Application, NextFunction } from '../declarations'
import { EVENT_TABLE, HEAD_TABLE } from './event-log'

const DAY_MS = 24 * 60 * 60 * 1000
/** How often each instance prunes; pruning is idempotent, so instances need not agree on who does it. */
const PRUNE_INTERVAL_MS = 60 * 60 * 1000
/** The first round after start, once the instance is serving. */
const FIRST_PRUNE_MS = 60 * 1000

/**
 * Deletes each company's events older than the retention: up to the newest old one, so that what
 * remains is always an unbroken tail of the log. `pruned_through` is raised first, in a statement
 * of its own: a cursor before it is 410 from then on, even while its events are still being
 * deleted. Returns how many events were deleted.
 */
export async function pruneEventLog(db: Knex, retentionDays: number, now = Date.now()): Promise<number> {
  const cutoff = new Date(now - retentionDays * DAY_MS).toISOString()
  const old: { companyId: number; through: number }[] = await db(EVENT_TABLE)
    .where('occurredAt', '<', cutoff)
    .groupBy('companyId')
    .select('companyId')
    .max('id as through')
  let deleted = 0
  for (const { companyId, through } of old) {
    await db(HEAD_TABLE)
      .insert({ companyId, prunedThrough: through })
      .onConflict('companyId')
      .merge({
        prunedThrough: db.raw('case when ?? < ? then ? else ?? end', [
          `${HEAD_TABLE}.pruned_through`,
          through,
          through,
          `${HEAD_TABLE}.pruned_through`
        ])
      })
    deleted += await db(EVENT_TABLE).where({ companyId }).where('id', '<=', through).delete()
  }
  return deleted
}

/** Prunes the event log on a timer on every instance (cheap: the age index finds nothing most rounds). */
export const eventRetention = (app: Application) => {
  let running = false
  const round = async () => {
    if (running) return
    running = true
    try {
      await pruneEventLog(app.get('knex'), app.get('events').retentionDays)
    } catch (error) {
      // The database may be briefly unreachable; the next round tries again.
      app.get('logger')?.warn({ error: (error as Error).message }, 'event log pruning failed')
    } finally {
      running = false
    }
  }
  let first: NodeJS.Timeout | undefined
  let timer: NodeJS.Timeout | undefined
  app.hooks({
    setup: [
      async (_context: unknown, next: NextFunction) => {
        await next()
        first = setTimeout(round, FIRST_PRUNE_MS)
        first.unref()
        timer = setInterval(round, PRUNE_INTERVAL_MS)
        timer.unref()
      }
    ],
    teardown: [
      async (_context: unknown, next: NextFunction) => {
        clearTimeout(first)
        clearInterval(timer)
        await next()
      }
    ]
  })
}
