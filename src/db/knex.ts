import fs from 'node:fs'
import path from 'node:path'
import knex, { Knex } from 'knex'
import pg from 'pg'

// DATE stays a plain 'YYYY-MM-DD' string (the pg default turns it into a local-time Date),
// counts and bigint ids become numbers, NUMERIC figures become numbers.
pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value)
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value))
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number(value))

export type DatabaseClient = 'sqlite3' | 'pg'

// knex's SQLite client and transaction classes (the package has no typings for dialect internals).
const Sqlite3Client: new (config: Knex.Config) => object = require('knex/lib/dialects/sqlite3')
const Sqlite3Transaction: new (...args: any[]) => { query: (conn: unknown, sql: string) => Promise<unknown> } = require('knex/lib/dialects/sqlite3/execution/sqlite-transaction')

/**
 * SQLite transactions take the write lock when they begin (BEGIN IMMEDIATE). With several
 * processes on one file (WEB_CONCURRENCY > 1), a transaction that reads first and writes later
 * fails with SQLITE_BUSY (a 503) as soon as another process has committed in between: its
 * snapshot is stale and waiting cannot help. One that starts as a writer waits for the lock
 * (busy_timeout) instead. In one process the single pooled connection already runs one
 * transaction at a time, so nothing changes there.
 */
class ImmediateTransaction extends Sqlite3Transaction {
  begin(conn: unknown) {
    return this.query(conn, 'BEGIN IMMEDIATE;')
  }
}

class Sqlite3ImmediateClient extends Sqlite3Client {
  transaction(...args: unknown[]) {
    return new ImmediateTransaction(this, ...args)
  }
}

/**
 * How long a request waits for a pooled connection before it fails with 503: an unreachable
 * database (a connect that never completes) or a saturated pool answers promptly instead of
 * holding the client for knex's default of 60 s.
 */
export const ACQUIRE_CONNECTION_TIMEOUT_MS = 5000

/**
 * Every identifier of every query and every key of every row passes through one of these: the
 * names are a small fixed set, so each is converted once (a regex replace per key was a visible
 * part of a request's CPU time).
 */
function memoized(convert: (name: string) => string): (name: string) => string {
  const cache = new Map<string, string>()
  return (name) => {
    let converted = cache.get(name)
    if (converted === undefined) {
      converted = convert(name)
      // Names come from the code and the schema; the bound only guards against a runaway caller.
      if (cache.size < 10_000) cache.set(name, converted)
    }
    return converted
  }
}

export const snakeCase = memoized((name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`))
export const camelCase = memoized((name) => name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase()))

const camelCaseKeys = (row: Record<string, unknown>) => {
  const result: Record<string, unknown> = {}
  for (const key of Object.keys(row)) result[camelCase(key)] = row[key]
  return result
}

const isPlainRow = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype

/**
 * Columns are snake_case in the database and camelCase in the code: knex's documented
 * identifier hooks translate in both directions, so no service maps names by hand.
 */
const caseMapping: Pick<Knex.Config, 'wrapIdentifier' | 'postProcessResponse'> = {
  wrapIdentifier: (value, origImpl) => origImpl(typeof value === 'string' && value !== '*' ? snakeCase(value) : value),
  postProcessResponse: (result) => {
    if (Array.isArray(result)) return result.map((row) => (isPlainRow(row) ? camelCaseKeys(row) : row))
    if (isPlainRow(result)) return camelCaseKeys(result)
    return result
  }
}

export function clientOf(url: string): DatabaseClient {
  if (/^postgres(ql)?:\/\//.test(url)) return 'pg'
  if (/^sqlite:/.test(url)) return 'sqlite3'
  throw new Error(`DATABASE_URL must start with sqlite:// or postgres:// (got "${url.split(':')[0]}:")`)
}

export function sqliteFilename(url: string) {
  return url.replace(/^sqlite:(\/\/)?/, '')
}

export function createKnex(url: string, pool: { min?: number; max?: number } = {}): Knex {
  const client = clientOf(url)
  if (client === 'pg') {
    return knex({
      client: 'pg',
      connection: url,
      pool: { min: pool.min ?? 0, max: pool.max ?? 10 },
      acquireConnectionTimeout: ACQUIRE_CONNECTION_TIMEOUT_MS,
      ...caseMapping
    })
  }
  const filename = sqliteFilename(url)
  if (filename !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(filename)), { recursive: true })
  return knex({
    client: Sqlite3ImmediateClient as unknown as typeof Knex.Client,
    connection: { filename },
    useNullAsDefault: true,
    acquireConnectionTimeout: ACQUIRE_CONNECTION_TIMEOUT_MS,
    // One connection: SQLite serialises writers anyway, and a single connection makes
    // transactions and foreign keys behave the same as on PostgreSQL.
    pool: {
      min: 1,
      max: 1,
      // `optimize` (SQLite's advice for long-lived connections) gathers the statistics the query
      // planner needs, for tables that have none or have grown since: without them it picks a
      // one-column index over the (company, user, start) one for a user's month of time entries.
      afterCreate: (conn: any, done: (err: Error | null, conn: unknown) => void) => {
        conn.run('PRAGMA foreign_keys = ON', () =>
          conn.run('PRAGMA journal_mode = WAL', () =>
            conn.run('PRAGMA busy_timeout = 5000', (err: Error | null) =>
              // Statistics are an optimisation: a failure (a read-only file) must not refuse the connection.
              conn.run('PRAGMA analysis_limit = 1000', () => conn.run('PRAGMA optimize = 0x10002', () => done(err, conn)))
            )
          )
        )
      }
    },
    ...caseMapping
  })
}
