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

/**
 * How long a request waits for a pooled connection before it fails with 503: an unreachable
 * database (a connect that never completes) or a saturated pool answers promptly instead of
 * holding the client for knex's default of 60 s.
 */
export const ACQUIRE_CONNECTION_TIMEOUT_MS = 5000

export const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
export const camelCase = (name: string) => name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase())

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
    client: 'sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    acquireConnectionTimeout: ACQUIRE_CONNECTION_TIMEOUT_MS,
    // One connection: SQLite serialises writers anyway, and a single connection makes
    // transactions and foreign keys behave the same as on PostgreSQL.
    pool: {
      min: 1,
      max: 1,
      afterCreate: (conn: any, done: (err: Error | null, conn: unknown) => void) => {
        conn.run('PRAGMA foreign_keys = ON', () =>
          conn.run('PRAGMA journal_mode = WAL', () => conn.run('PRAGMA busy_timeout = 5000', (err: Error | null) => done(err, conn)))
        )
      }
    },
    ...caseMapping
  })
}
