import type { Knex } from 'knex'
import type { Logger } from 'pino'
import { committedHead, EVENT_TABLE, LogEntry, logHorizon, upToHorizon } from './event-log'
import { ENTRY_COLUMNS, entryOf, StoredEvent } from './feed'

/**
 * Realtime delivered from the event log (CONTRACT §13.1): each instance follows the log of every
 * company that has listeners on it (sockets), reading the events after the id up to which it has
 * handed them on, in id order, and hands each batch to `deliver`. A read goes no further than the
 * log's horizon (src/events/event-log.ts `logHorizon`: every event up to it has committed), so the
 * cursor never passes an event that commits later. One read at a time per company, whoever asks
 * for it (a wake-up, the poll, a flush): a listener never gets an id twice or out of order, and a
 * read serves every listener of the company.
 *
 * A read is asked for by a wake-up (`appended`: a write committed up to this id, on this instance or
 * another, sent over the sync bus) and, for wake-ups that were lost (bus down, a write by the CLI),
 * by a poll of every followed company every `pollIntervalMs`.
 */

/** A log entry with the collection whose read scope shows it (the `scope` column). */
export interface DeliveredEvent {
  entry: LogEntry
  scope: string
}

export interface LogDeliveryOptions {
  pollIntervalMs: number
  /** Rows per read; a company further behind is read in several. */
  batchSize?: number
  /** Whether the company still has listeners here; a company without any is no longer followed. */
  listening: (companyId: number) => boolean
  /** Hands on a company's next events, in id order. */
  deliver: (companyId: number, events: DeliveredEvent[]) => void
  logger: Logger
}

/** How far one instance has handed on one company's log. */
interface Cursor {
  /** Every event up to this id has been handed on; valid once `started`. */
  delivered: number
  /** False while the head could not be read (the database away): the poll reads it. */
  started: boolean
  starting: boolean
  /** The newest id a wake-up told of. */
  known: number
  /** The read under way, if any. */
  reading: Promise<void> | null
  /** A wake-up past `delivered` came during the read: read once more. */
  again: boolean
}

const DEFAULT_BATCH = 500
/** Companies per statement of the poll's head read. */
const HEADS_CHUNK = 500

export class LogDelivery {
  private readonly cursors = new Map<number, Cursor>()
  private readonly batchSize: number
  private readonly timer: NodeJS.Timeout
  private polling = false

  constructor(
    private readonly db: Knex,
    private readonly options: LogDeliveryOptions
  ) {
    this.batchSize = options.batchSize ?? DEFAULT_BATCH
    this.timer = setInterval(() => void this.poll(), options.pollIntervalMs)
    this.timer.unref()
  }

  /**
   * Follows the company (if it is not yet) and answers where a new listener starts: the company's
   * head now, or what was handed on already if that is further. The listener must be in place in
   * the same turn as this settles (no poll can then find the company followed without it); it gets
   * every event after the answer, and none before.
   */
  async follow(companyId: number): Promise<number> {
    let head: number | undefined
    try {
      head = await this.head(companyId)
    } catch (error) {
      this.options.logger.warn({ err: error, companyId }, 'realtime: could not read the head of the event log')
    }
    let cursor = this.cursors.get(companyId)
    if (!cursor) {
      cursor = { delivered: 0, started: false, starting: false, known: 0, reading: null, again: false }
      this.cursors.set(companyId, cursor)
    }
    if (!cursor.started && head !== undefined) {
      cursor.delivered = head
      cursor.started = true
      if (cursor.known > head) void this.read(companyId, cursor)
    }
    return Math.max(head ?? 0, cursor.delivered)
  }

  /** A write of the company committed events up to `lastId`. */
  appended(companyId: number, lastId: number) {
    const cursor = this.cursors.get(companyId)
    if (!cursor) return
    cursor.known = Math.max(cursor.known, lastId)
    if (!cursor.started || lastId <= cursor.delivered) return
    if (cursor.reading) cursor.again = true
    else void this.read(companyId, cursor)
  }

  /** Hands on every event committed so far (a shutdown, before the sockets close). */
  async flush() {
    await Promise.all(
      [...this.cursors].map(async ([companyId, cursor]) => {
        await cursor.reading
        if (this.cursors.get(companyId) === cursor && cursor.started) await this.read(companyId, cursor)
      })
    )
  }

  stop() {
    clearInterval(this.timer)
    this.cursors.clear()
  }

  private head(companyId: number) {
    return committedHead(this.db, companyId)
  }

  /** The poll's second try at a head that `follow` could not read. */
  private async start(companyId: number, cursor: Cursor) {
    cursor.starting = true
    try {
      const head = await this.head(companyId)
      if (!cursor.started) {
        cursor.delivered = head
        cursor.started = true
      }
    } catch {
      // The database is still away: the next poll tries again.
    } finally {
      cursor.starting = false
    }
  }

  /**
   * Reads the company's events after the cursor and hands them on, batch after batch while full
   * ones come, and once more when a wake-up past what was read came meanwhile. Resolves when done;
   * one read per company at a time (a second caller gets the running one).
   */
  private read(companyId: number, cursor: Cursor): Promise<void> {
    if (cursor.reading) return cursor.reading
    cursor.reading = (async () => {
      try {
        for (;;) {
          cursor.again = false
          const horizon = await logHorizon(this.db, companyId)
          const rows = (await upToHorizon(
            this.db(EVENT_TABLE).where({ companyId }).where('id', '>', cursor.delivered),
            horizon
          )
            .orderBy('id')
            .limit(this.batchSize)
            .select(...ENTRY_COLUMNS, 'scope')) as (StoredEvent & { scope: string })[]
          // Followed no longer (no listeners, stopped): what was read goes nowhere.
          if (this.cursors.get(companyId) !== cursor) return
          if (rows.length > 0) {
            cursor.delivered = Number(rows[rows.length - 1].id)
            this.options.deliver(
              companyId,
              rows.map((row) => ({ entry: entryOf(row), scope: row.scope }))
            )
          }
          const behind = rows.length === this.batchSize || (cursor.again && cursor.known > cursor.delivered)
          if (!behind) return
        }
      } catch (error) {
        this.options.logger.warn({ err: error, companyId }, 'realtime: could not read the event log; the poll retries')
      } finally {
        cursor.reading = null
      }
    })()
    return cursor.reading
  }

  /**
   * The newest event id of each company, in one statement per `HEADS_CHUNK` companies: a subquery
   * per company, each one step of the (company_id, id) index, whatever the size of the log.
   */
  private async heads(companyIds: number[]): Promise<Map<number, number>> {
    const heads = new Map<number, number>()
    for (let start = 0; start < companyIds.length; start += HEADS_CHUNK) {
      const chunk = companyIds.slice(start, start + HEADS_CHUNK)
      const newestOf = (company: string) => `(select max(e.id) from ${EVENT_TABLE} e where e.company_id = ${company})`
      const rows: { id: number | string; head: number | string | null }[] =
        this.db.client.config.client === 'pg'
          ? (await this.db.raw(`select c.id, ${newestOf('c.id')} as head from unnest(?::integer[]) as c(id)`, [chunk]))
              .rows
          : await this.db.raw(`select c.value as id, ${newestOf('c.value')} as head from json_each(?) c`, [
              JSON.stringify(chunk)
            ])
      for (const row of rows) heads.set(Number(row.id), Number(row.head ?? 0))
    }
    return heads
  }

  /**
   * Drops the companies without listeners, reads the heads of the others' logs in one statement,
   * and reads the logs that moved past their cursor, one company after the other (a poll never
   * takes more than one pooled connection), skipping a round while the last one runs. A second
   * of quiet costs one statement per instance, not one per followed company.
   */
  private async poll() {
    if (this.polling) return
    this.polling = true
    try {
      for (const [companyId, cursor] of [...this.cursors])
        if (!this.options.listening(companyId) && this.cursors.get(companyId) === cursor) this.cursors.delete(companyId)
      const heads = await this.heads([...this.cursors.keys()]).catch((error) => {
        this.options.logger.warn(
          { err: error },
          'realtime: could not read the heads of the event logs; the poll retries'
        )
        return null
      })
      if (!heads) return
      for (const [companyId, cursor] of [...this.cursors]) {
        if (this.cursors.get(companyId) !== cursor) continue
        const head = heads.get(companyId)
        if (head === undefined) continue // followed since the heads were read: the next round
        cursor.known = Math.max(cursor.known, head)
        if (!cursor.started) {
          if (!cursor.starting) await this.start(companyId, cursor)
        } else if (head > cursor.delivered) await this.read(companyId, cursor)
      }
    } finally {
      this.polling = false
    }
  }
}
