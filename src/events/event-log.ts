import type { Knex } from 'knex'
import { lockedForWrite } from '../db/dialect'

/**
 * The event log (CONTRACT §13.1): one row per record a write created, changed or removed, appended
 * in the write's own transaction. Realtime, webhooks and the change feed read it.
 */

/** Who made the change: an API key, an admin on the settings page, or the server's own scheduled work. */
export type Actor = { apiKeyId: number } | { userId: number } | { system: true }

/** An event as the change feed (and later webhooks and sockets) hands it out. */
export interface LogEntry {
  /** Decimal string of an integer increasing in commit order within the company. */
  id: string
  /** `<collection>.<created|patched|removed>`, or `company.recomputed`. */
  type: string
  occurredAt: string
  data: Record<string, unknown>
  actor: Actor
  requestId: string
}

/** An event to append: `scope` is the collection whose read scope shows it (an upload's parent). */
export interface NewEvent {
  type: string
  scope: string
  data: Record<string, unknown>
}

export const EVENT_TABLE = 'event_log'
export const HEAD_TABLE = 'event_log_heads'

/** The longest statement of an append: a month's fan-out fits in one, a company's first sync in a few. */
const INSERT_CHUNK = 500

/**
 * Takes the company's log lock: the caller holds it until its transaction ends. Every append
 * takes it last, after the user and company locks of its write, so it closes no deadlock cycle;
 * concurrent writers of one company queue here for the short rest of their transactions (the
 * insert and the commit), which makes their ids follow their commit order. SQLite runs one write
 * transaction at a time: there the row only needs to exist.
 */
async function lockHead(trx: Knex.Transaction, companyId: number) {
  const locked = await lockedForWrite(trx, trx(HEAD_TABLE).where({ companyId })).first('companyId')
  if (locked) return
  await trx(HEAD_TABLE).insert({ companyId, prunedThrough: 0 }).onConflict('companyId').ignore()
  await lockedForWrite(trx, trx(HEAD_TABLE).where({ companyId })).first('companyId')
}

/**
 * Appends `events` of one request to the company's log, in order, in `trx`: one lock and one
 * multi-row insert. Returns the log entries as stored.
 */
export async function appendEvents(
  trx: Knex.Transaction,
  companyId: number,
  events: NewEvent[],
  origin: { actor: Actor; requestId: string }
): Promise<LogEntry[]> {
  if (events.length === 0) return []
  await lockHead(trx, companyId)
  // Read under the lock: within a company, later ids never carry earlier times.
  const occurredAt = new Date().toISOString()
  const actor = JSON.stringify(origin.actor)
  const ids: number[] = []
  for (let start = 0; start < events.length; start += INSERT_CHUNK) {
    const rows = events.slice(start, start + INSERT_CHUNK).map((event) => ({
      companyId,
      occurredAt,
      type: event.type,
      scope: event.scope,
      data: JSON.stringify(event.data),
      actor,
      requestId: origin.requestId
    }))
    const inserted: { id: number }[] = await trx(EVENT_TABLE).insert(rows, ['id'])
    // Both databases number the rows of one insert in the order given; the ids are sorted anyway.
    ids.push(...inserted.map((row) => Number(row.id)).sort((a, b) => a - b))
  }
  return events.map((event, i) => ({
    id: String(ids[i]),
    type: event.type,
    occurredAt,
    data: event.data,
    actor: origin.actor,
    requestId: origin.requestId
  }))
}
