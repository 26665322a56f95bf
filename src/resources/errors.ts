import { BadRequest, Conflict, FeathersError, GeneralError, Unavailable } from '@feathersjs/errors'
import { ERROR } from '@feathersjs/knex'
import type { HookContext, NextFunction } from '../declarations'
import { camelCase, isStalePlan } from '../db/knex'
import { conflict } from '../errors'
import { isObject } from './validation'

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN'
])

/**
 * The database is there but cannot serve now: it refuses connections (PostgreSQL 55000 "does not
 * allow connections", 53300 too many connections, 3D000 no such database, 28P01/28000 the login
 * refused, 57P04 dropped), it ran out of something (53100 disk, 53200 memory, 53400 a limit), it
 * failed reading or writing (58030; SQLite's I/O, full, read-only or out-of-memory errors) or
 * it is a standby during a failover (25006 read-only transaction). 503, as for an unreachable
 * one: nothing was written and the same request may succeed later (a review found these answered
 * 500, `/ready` included).
 */
const SERVER_TROUBLE_CODES = new Set([
  '55000',
  '53300',
  '3D000',
  '28P01',
  '28000',
  '57P04',
  '53100',
  '53200',
  '53400',
  '58030',
  '25006',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_READONLY',
  'SQLITE_NOMEM',
  'SQLITE_PROTOCOL'
])

const TIMEOUT_CODES = new Set(['57014', '55P03', '25P03', 'SQLITE_INTERRUPT'])

/** What the drivers put on their errors (pg: `code`, `detail`; sqlite3: `code`, `message`). */
interface DriverError {
  code?: unknown
  message?: unknown
  detail?: unknown
}

/** @feathersjs/knex keeps the driver's error under ERROR when it wraps one. */
const wrappedError = (raw: unknown): unknown => (raw as { [ERROR]?: unknown } | null | undefined)?.[ERROR]
const driverError = (raw: unknown) => (wrappedError(raw) ?? raw) as DriverError | null | undefined

/** The column a unique violation names: `UNIQUE constraint failed: projects.company_id, projects.number` or `projects_company_id_number_unique`. */
function uniqueField(error: DriverError): string | undefined {
  const sqlite = /UNIQUE constraint failed: (.+)$/.exec(String(error.message ?? ''))
  const columns = sqlite
    ? sqlite[1].split(',').map((c: string) => c.trim().split('.').pop() as string)
    : (/\(([^)]+)\)=/.exec(String(error.detail ?? ''))?.[1] ?? '').split(',').map((c: string) => c.trim())
  const field = columns.filter((c: string) => c && c !== 'company_id').pop()
  return field ? camelCase(field).replace(/Normalized$/, '') : undefined
}

/**
 * PostgreSQL's class 22 (data exception: malformed, out of range, too long, a character it cannot
 * store, an invalid LIKE escape) always stems from a value the request sent: 400 (CONTRACT §10.3).
 * Inputs are validated so that the database does not see such values; this is the safety net. It
 * names the query parameters that can cause it where it can tell (`$like` patterns for 22025),
 * else every filter parameter of the request.
 */
function dataExceptionError(code: string, query?: Record<string, unknown>): BadRequest | undefined {
  if (!/^22[0-9A-Z]{3}$/.test(code)) return undefined
  const params = Object.entries(query ?? {}).flatMap(([name, value]) =>
    isObject(value) ? Object.keys(value).map((op) => `${name}[${op}]`) : [name]
  )
  const named = code === '22025' ? params.filter((param) => param.endsWith('[$like]')) : params
  const [message, reason] =
    code === '22025'
      ? ['A $like pattern is malformed', 'is not a valid pattern']
      : ['A value is out of range or malformed', 'may be out of range or malformed']
  return new BadRequest(
    message,
    named.length > 0 ? { validationErrors: Object.fromEntries(named.map((param) => [param, reason])) } : {}
  )
}

/** A foreign key violation (PostgreSQL 23503, SQLite's FOREIGN KEY constraint). */
export function isForeignKeyViolation(raw: unknown): boolean {
  const error = driverError(raw)
  const code = String(error?.code ?? '')
  return (
    code === '23503' || (code.startsWith('SQLITE_CONSTRAINT') && String(error?.message ?? '').includes('FOREIGN KEY'))
  )
}

/** How many records of each referencing collection (`time-entries`) keep a record from being deleted. */
export type References = Record<string, number>

const counted = (collection: string, count: number, singular: string) =>
  `${count} ${count === 1 ? singular : collection.replace(/-/g, ' ')}`

/**
 * 409 for a delete that records still reference, naming the collections and how many of each:
 * "The customer is still referenced by 3 assignments". `singulars` names one record of each
 * collection (`time-entries` → `time entry`).
 */
export function stillReferenced(
  entity: string,
  references: References,
  singulars: Record<string, string> = {}
): Conflict {
  const parts = Object.entries(references)
    .filter(([, count]) => count > 0)
    .map(([collection, count]) =>
      counted(
        collection,
        count,
        singulars[collection] ?? collection.replace(/-/g, ' ').replace(/ies$/, 'y').replace(/s$/, '')
      )
    )
  const by =
    parts.length === 0
      ? 'other records'
      : parts.length === 1
        ? parts[0]
        : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`
  return conflict(`The ${entity} is still referenced by ${by}`, { reason: 'still-referenced', references })
}

/**
 * Translates database errors into API errors: never SQL text, never a stack. A unique violation
 * is 409 naming the field, a foreign key violation on delete is 409 (still referenced), a lost
 * connection is 503; anything unexpected is a 500 with a generic message.
 */
export function toApiError(raw: unknown, method?: string, query?: Record<string, unknown>): FeathersError {
  if (raw instanceof FeathersError && !wrappedError(raw)) return raw
  const error = driverError(raw)
  const code = String(error?.code ?? '')
  const message = String(error?.message ?? '')
  if (code === '23505' || (code === 'SQLITE_CONSTRAINT' && message.includes('UNIQUE'))) {
    const field = uniqueField(error!)
    return conflict(
      field ? `A record with this ${field} already exists` : 'A record with these values already exists',
      field ? { reason: 'duplicate', validationErrors: { [field]: 'already exists' } } : { reason: 'duplicate' }
    )
  }
  if (isForeignKeyViolation(error)) {
    return method === 'remove' ? stillReferenced('record', {}) : new BadRequest('A referenced record does not exist')
  }
  if (
    code.startsWith('08') ||
    CONNECTION_CODES.has(code) ||
    // knex reports the failed ROLLBACK after a cut connection in place of the statement's error.
    /Timeout acquiring a connection|Connection terminated|ECONNREFUSED|connection error and is not queryable/.test(
      message
    )
  ) {
    return new Unavailable('The database is not reachable; try again shortly')
  }
  if (SERVER_TROUBLE_CODES.has(code))
    return new Unavailable('The database cannot serve requests now; try again shortly')
  // A statement cancelled by its time limit (PostgreSQL statement_timeout 57014, lock_timeout
  // 55P03, a session ended idle in a transaction 25P03; SQLite interrupted): the database is
  // too slow or locked right now, and the transaction has rolled back, so a retry may succeed.
  if (TIMEOUT_CODES.has(code)) {
    return new Unavailable('The database did not answer in time; try again shortly')
  }
  // A transaction PostgreSQL rolled back to break a deadlock (40P01) or a serialisation conflict
  // (40001): nothing of it was written, and the same request may succeed when sent again.
  if (code === '40P01' || code === '40001') {
    return new Unavailable('The request collided with another write and was rolled back; send it again')
  }
  // A prepared statement that a migration's change of a column type made stale (0A000): its
  // connection is discarded (src/db/knex.ts), and the request rolled back succeeds when sent again.
  if (isStalePlan(error)) {
    return new Unavailable('The database schema changed while the request ran; send it again')
  }
  const dataException = dataExceptionError(code, query)
  if (dataException) return dataException
  return new GeneralError('Internal error')
}

export const mapDatabaseErrors = async (context: HookContext, next: NextFunction) => {
  try {
    await next()
  } catch (error) {
    const mapped = toApiError(error, context.method, context.params?.query)
    if (mapped.code >= 500 && mapped !== error)
      context.app.get('logger').error({ err: error, path: context.path, method: context.method }, 'database error')
    throw mapped
  }
}
