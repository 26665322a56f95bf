import type { Knex } from 'knex'

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

interface StoredRow {
  companyId: number
  occurredAt: string
  type: string
  scope: string
  data: string
  actor: string
  requestId: string
}

const COLUMNS = ['company_id', 'occurred_at', 'type', 'scope', 'data', 'actor', 'request_id'] as const

/** What a committed append announces when its ids are drawn at the commit (PostgreSQL): "read the log". */
export const LAST_ID_AT_COMMIT = Number.MAX_SAFE_INTEGER

/**
 * Inserts the rows, returning the id of the last one when it is final (SQLite), null when the
 * commit gives it (PostgreSQL). Ids must follow the commit order within a company, so that a
 * reader that saw id `n` has seen every earlier event of the company.
 * - SQLite runs one write transaction at a time: the rowids follow the commits.
 * - PostgreSQL: the rows get provisional negative ids (`event_log_pending_seq`), and a deferred
 *   constraint trigger (migration 20261127000002) renumbers them at the commit, under the
 *   company's lock row in `event_log_heads`, which it holds to the end of the commit. So the
 *   writers of one company queue only for the commit itself, inside PostgreSQL: not for the
 *   insert, the rest of their transaction and the round trips between them (the lock used to be
 *   taken by the insert, and under load the section lasted as long as the server's event loop
 *   took to send the COMMIT). Until the commit nobody else sees the rows, and the writer reads no
 *   log entry of its own.
 */
/** The part of a `pg` client the append uses. */
interface PgQueryable {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<unknown>
}

/** Appends of up to this many rows are prepared statements (each connection keeps one per count). */
const PREPARED_ROWS = 8

/** The insert of `count` rows with provisional ids, numbered at the commit. */
function appendStatement(count: number): string {
  const width = COLUMNS.length
  const values = Array.from({ length: count }, (_, row) => {
    const at = (column: number) => `$${row * width + column + 1}`
    return `(${at(0)}::integer, ${at(1)}::timestamptz, ${[2, 3, 4, 5, 6].map(at).join(', ')})`
  }).join(', ')
  return (
    `insert into ${EVENT_TABLE} (id, ${COLUMNS.join(', ')}) ` +
    `select -nextval('event_log_pending_seq'), v.* from (values ${values}) as v(${COLUMNS.join(', ')})`
  )
}

async function insertRows(trx: Knex.Transaction, rows: StoredRow[]): Promise<number | null> {
  if (trx.client.config.client !== 'pg') {
    const inserted: { id: number }[] = await trx(EVENT_TABLE).insert(rows, ['id'])
    return Math.max(...inserted.map((row) => Number(row.id)))
  }
  // Straight to the transaction's connection as a named prepared statement (one per row count, up
  // to PREPARED_ROWS): every write appends, and knex's query building and PostgreSQL's parsing and
  // planning of the same statement were a good part of what the append cost.
  const connection = (await trx.client.acquireConnection()) as PgQueryable
  const values = rows.flatMap((row) => [
    row.companyId,
    row.occurredAt,
    row.type,
    row.scope,
    row.data,
    row.actor,
    row.requestId
  ])
  const text = appendStatement(rows.length)
  await connection.query(
    rows.length <= PREPARED_ROWS ? { name: `crewclock_event_append_${rows.length}`, text, values } : { text, values }
  )
  return null
}

/**
 * Appends `events` of one request to the company's log, in order, in `trx` (multi-row inserts).
 * Returns the id of the last event when it is known before the commit (SQLite), else
 * `LAST_ID_AT_COMMIT` (PostgreSQL numbers the events at the commit).
 */
export async function appendEvents(
  trx: Knex.Transaction,
  companyId: number,
  events: NewEvent[],
  origin: { actor: Actor; requestId: string }
): Promise<number> {
  if (events.length === 0) return 0
  const occurredAt = new Date().toISOString()
  const actor = JSON.stringify(origin.actor)
  let lastId: number | null = 0
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
    // Both databases number the rows of one insert in the order given.
    lastId = await insertRows(trx, rows)
  }
  return lastId ?? LAST_ID_AT_COMMIT
}
