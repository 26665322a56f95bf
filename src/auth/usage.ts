import type { Knex } from 'knex'
import type { Application, NextFunction } from '../declarations'

declare module '../declarations' {
  interface Configuration {
    /** Set by usageCounting(); absent in an app that counts no usage. */
    usage?: UsageCounter
  }
}

interface Tally {
  companyId: number
  apiKeyId: number
  version: string
  count: number
  /** Epoch milliseconds: formatted when written, not on every request. */
  lastUsedAt: number
}

/**
 * Counts requests per API key and major version (CONTRACT §8) in memory and writes them in one
 * upsert per key and version every few seconds: a busy key costs no database write per request.
 */
export class UsageCounter {
  private tallies = new Map<string, Tally>()
  private flushing: Promise<void> = Promise.resolve()

  constructor(private readonly db: Knex) {}

  record(companyId: number, apiKeyId: number, version: string) {
    const key = `${apiKeyId}/${version}`
    let tally = this.tallies.get(key)
    if (!tally) {
      tally = { companyId, apiKeyId, version, count: 0, lastUsedAt: 0 }
      this.tallies.set(key, tally)
    }
    tally.count++
    tally.lastUsedAt = Date.now()
  }

  /** Writes what was counted since the last flush; counts survive a failed write. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.tallies.size === 0) return
      const batch = [...this.tallies.values()]
      this.tallies.clear()
      try {
        await this.db('api_usage')
          .insert(
            batch.map(({ companyId, apiKeyId, version, count, lastUsedAt }) => ({
              companyId,
              apiKeyId,
              version,
              requestCount: count,
              lastUsedAt: new Date(lastUsedAt).toISOString()
            }))
          )
          .onConflict(['companyId', 'apiKeyId', 'version'])
          .merge({
            requestCount: this.db.raw('?? + ??', ['api_usage.requestCount', 'excluded.requestCount']),
            lastUsedAt: this.db.raw('??', ['excluded.lastUsedAt'])
          })
      } catch {
        for (const tally of batch) {
          const key = `${tally.apiKeyId}/${tally.version}`
          const current = this.tallies.get(key)
          this.tallies.set(key, current ? { ...current, count: current.count + tally.count } : tally)
        }
      }
    })
    return this.flushing
  }
}

export const usageCounting = (app: Application) => {
  const counter = new UsageCounter(app.get('knex'))
  app.set('usage', counter)
  const timer = setInterval(() => void counter.flush(), 5000)
  timer.unref()
  app.hooks({
    teardown: [
      async (_context: unknown, next: NextFunction) => {
        clearInterval(timer)
        await counter.flush()
        await next()
      }
    ]
  })
}

/** Per key and version, for the settings page. */
export async function usageOf(db: Knex, companyId: number) {
  const rows = await db('api_usage').where({ companyId }).orderBy(['apiKeyId', 'version'])
  return rows.map((row) => ({
    apiKeyId: row.apiKeyId,
    version: row.version,
    requestCount: Number(row.requestCount),
    lastUsedAt: new Date(row.lastUsedAt).toISOString()
  }))
}
