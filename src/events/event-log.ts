import type { Knex } from 'knex'
import { KEEP_PREPARED, ON_READER } from '../db/knex'

/**
 * The event log (CONTRACT §13.1): one row per record a write created, changed or removed, appended
 * in the write's own transaction. Realtime, webhooks and the change feed read it.
 */

/** Who made the change: an API key, an admin on the settings page, or the server's own scheduled work. */
export type Actor = { apiKeyId: number } | { userId: number } | { system: true }

/** An event as the change feed (and later webhooks and sockets) hands it out. */
export interface LogEntry {
  /** Decimal string of an integer; a reader of the company's log meets them in increasing order. */
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
/** Per company: how far retention pruned the log (`pruned_through`). */
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

/** A row's values in the order of COLUMNS. */
const valuesOf = (row: StoredRow) => [
  row.companyId,
  row.occurredAt,
  row.type,
  row.scope,
  row.data,
  row.actor,
  row.requestId
]

/** The part of a `pg` client the append uses. */
interface PgQueryable {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: { id: number | string }[] }>
}

/** Appends of up to this many rows are prepared statements (each connection keeps one per count). */
const PREPARED_ROWS = 8

/** The first key of the advisory lock of a company's log (the second is the company): "cclg". */
const LOG_LOCK_CLASS = 0x63636c67

/**
 * The company's shared log lock and the insert of `count` rows as one statement: the lock joins
 * the inserted rows, so it is held before the first id is drawn ($1 is the company).
 */
function appendStatement(count: number): string {
  const width = COLUMNS.length
  const values = Array.from({ length: count }, (_, row) => {
    const at = (column: number) => `$${row * width + column + 2}`
    return `(${at(0)}::integer, ${at(1)}::timestamptz, ${[2, 3, 4, 5, 6].map(at).join(', ')})`
  }).join(', ')
  return (
    `with appending as materialized (select pg_advisory_xact_lock_shared(${LOG_LOCK_CLASS}, $1)) ` +
    `insert into ${EVENT_TABLE} (${COLUMNS.join(', ')}) ` +
    `select v.* from (values ${values}) as v(${COLUMNS.join(', ')}) cross join appending returning id`
  )
}

/**
 * Inserts the rows, returning their ids in order. On PostgreSQL the append first takes the
 * company's log lock in shared mode (a transaction-level advisory lock, `LOG_LOCK_CLASS` and the
 * company), held to the end of the transaction: appends of one company run side by side, and a
 * reader that needs to know up to where the log has committed takes the lock exclusively for a
 * moment (`logHorizon`), which waits for the appends under way. SQLite runs one write transaction
 * at a time: there ids follow commits without a lock.
 */
async function insertLocked(trx: Knex.Transaction, companyId: number, rows: StoredRow[]): Promise<number[]> {
  if (trx.client.config.client !== 'pg') {
    // A plain VALUES list (knex writes a multi-row insert as SELECT … UNION ALL SELECT …), kept
    // prepared per row count up to PREPARED_ROWS as on PostgreSQL.
    const placeholders = rows.map(() => `(${COLUMNS.map(() => '?').join(', ')})`).join(', ')
    const statement = trx.raw(
      `insert into ${EVENT_TABLE} (${COLUMNS.join(', ')}) values ${placeholders} returning id`,
      rows.flatMap(valuesOf)
    )
    const inserted: { id: number }[] = await (rows.length <= PREPARED_ROWS
      ? statement.options(KEEP_PREPARED)
      : statement)
    return inserted.map((row) => Number(row.id))
  }
  // Straight to the transaction's connection as a named prepared statement (one per row count, up
  // to PREPARED_ROWS): every write appends, and knex's query building and the server's parsing and
  // planning of the same statement were part of what the append cost.
  const connection = (await trx.client.acquireConnection()) as PgQueryable
  const values = [companyId, ...rows.flatMap(valuesOf)]
  const text = appendStatement(rows.length)
  const query =
    rows.length <= PREPARED_ROWS ? { name: `crewclock_event_append_${rows.length}`, text, values } : { text, values }
  const result = await connection.query(query)
  return result.rows.map((row) => Number(row.id))
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
    // Both databases number the rows of one insert in the order given; the ids are sorted anyway.
    ids.push(...(await insertLocked(trx, companyId, rows)).sort((a, b) => a - b))
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

/**
 * How long a reader outside a transaction queues for the company's log lock before it makes do
 * with the last horizon it read. While it queues, new appends of the company queue behind it
 * (PostgreSQL grants no shared request past a waiting exclusive one), so this bounds how long a
 * reader can hold the company's writers up when an append is left open (a stuck client).
 */
export const HORIZON_WAIT_MS = 200

/**
 * What a process keeps per database (keyed by its knex config, which a transaction shares with its
 * pool): the newest horizon read per company (a fallback that stays true), and the check of the
 * log's sequence (`checkedSequence`).
 */
const perDatabase = new WeakMap<object, { horizons: Map<number, number>; sequenceChecked?: Promise<void> }>()

function stateOf(db: Knex) {
  const key = db.client.config as object
  let state = perDatabase.get(key)
  if (!state) perDatabase.set(key, (state = { horizons: new Map() }))
  return state
}

/**
 * The horizon's statement: the company's log lock taken exclusively, then the sequence's value
 * read under it. `limited` first sets `lock_timeout` (its first parameter) for this statement
 * alone, in the one row the lock is then taken from.
 */
function horizonStatement(limited: boolean): string {
  const timeout = limited ? `limited as materialized (select set_config('lock_timeout', ?, true) as t), ` : ''
  const lock = `select 1 as n, pg_advisory_xact_lock(${LOG_LOCK_CLASS}, ?::integer) as l${limited ? ' from limited' : ''}`
  return (
    `with ${timeout}held as materialized (${lock}) ` +
    `select s.last_value from held cross join lateral (select last_value from ${EVENT_TABLE}_id_seq where held.n = 1) s`
  )
}

/**
 * An id up to which every event of the company has committed or rolled back (CONTRACT §13.1: a
 * reader never passes an event that commits later); null on SQLite, whose one writer at a time
 * commits ids in order, so whatever is visible is the log up to there.
 *
 * On PostgreSQL appends of one company take their ids side by side and may commit in another
 * order, so the newest visible id is no such bound. Taking the company's log lock exclusively
 * waits for every append that holds it (each took it before drawing an id) and keeps new ones
 * from drawing meanwhile; the sequence's value read under the lock is then the horizon: every id
 * up to it was drawn by an append that has ended, every later append draws above it. (Only while
 * the sequence hands out values one by one: `checkedSequence` refuses one that caches them.)
 *
 * Outside a transaction the lock lives for the statement, and the wait for it is bounded by
 * `HORIZON_WAIT_MS` (`lock_timeout`, set for that statement only): past it, an append that stays
 * open does not make the reader wait, nor the company's writers behind the reader; the reader
 * gets the last horizon this process read for the company (still true: a horizon only ever
 * becomes older), or 0 when it has none, and so sees nothing newer until the append ends. Inside
 * a transaction (a webhook subscription's position) the lock is held to its end and the wait is
 * bounded by the statement timeout only: a failed statement would abort the caller's transaction.
 */
export async function logHorizon(db: Knex, companyId: number): Promise<number | null> {
  if (db.client.config.client !== 'pg') return null
  await checkedSequence(db)
  if (db.isTransaction) {
    const { rows } = await db.raw(horizonStatement(false), [companyId])
    return Number(rows[0].last_value)
  }
  const { horizons } = stateOf(db)
  try {
    // The time-out is set first (the lock reads its CTE's row), and only for this statement.
    // On the read pool: a reader's horizon does not queue behind a burst of writes for a connection.
    const { rows } = await db.raw(horizonStatement(true), [`${HORIZON_WAIT_MS}ms`, companyId]).options(ON_READER)
    const horizon = Number(rows[0].last_value)
    if (horizon > (horizons.get(companyId) ?? 0)) horizons.set(companyId, horizon)
    return horizon
  } catch (error) {
    if ((error as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw error
    return horizons.get(companyId) ?? 0
  }
}

const LOCK_NOT_AVAILABLE = '55P03'

/**
 * With `CACHE n` each connection takes n values at once, so the sequence's `last_value` can be
 * ahead of ids that another connection will still draw: the horizon would pass them. Checked once
 * per process and database; a cached sequence fails every read of the log, loudly, rather than
 * let a reader skip events.
 */
function checkedSequence(db: Knex): Promise<void> {
  const state = stateOf(db)
  if (!state.sequenceChecked) {
    const checked = db
      .raw(`select seqcache from pg_sequence where seqrelid = '${EVENT_TABLE}_id_seq'::regclass`)
      .options(ON_READER)
      .then(({ rows }: { rows: { seqcache: number | string }[] }) => {
        if (Number(rows[0]?.seqcache ?? 1) > 1)
          throw new Error(
            `${EVENT_TABLE}_id_seq caches ${rows[0].seqcache} values per connection: the change feed, realtime and ` +
              `webhooks cannot tell which events have committed. Run ALTER SEQUENCE ${EVENT_TABLE}_id_seq CACHE 1.`
          )
      })
    checked.catch(() => (state.sequenceChecked = undefined))
    state.sequenceChecked = checked
  }
  return state.sequenceChecked
}

/** Keeps `query` of the log at or below `horizon` (none on SQLite: `logHorizon` gave null). */
export function upToHorizon<Q extends Knex.QueryBuilder>(query: Q, horizon: number | null): Q {
  return horizon === null ? query : (query.where('id', '<=', horizon) as Q)
}

/**
 * The id of the company's newest event up to which every event has committed (0 for an empty
 * log): where a new reader of the log starts without passing an event that commits later.
 */
export async function committedHead(db: Knex, companyId: number): Promise<number> {
  const horizon = await logHorizon(db, companyId)
  const newest = await upToHorizon(db(EVENT_TABLE).where({ companyId }), horizon).max('id as id').first()
  return Number(newest?.id ?? 0)
}
