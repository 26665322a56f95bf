import { BadRequest, Conflict, FeathersError, GeneralError, Unavailable } from '@feathersjs/errors'
import { ERROR } from '@feathersjs/knex'
import type { HookContext, NextFunction } from '../declarations'
import { camelCase } from '../db/knex'

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', '57P01', '57P02', '57P03', 'SQLITE_BUSY', 'SQLITE_CANTOPEN'])

const TIMEOUT_CODES = new Set(['57014', '55P03', '25P03', 'SQLITE_INTERRUPT'])

/** The column a unique violation names: `UNIQUE constraint failed: projects.company_id, projects.number` or `projects_company_id_number_unique`. */
function uniqueField(error: any): string | undefined {
  const sqlite = /UNIQUE constraint failed: (.+)$/.exec(error.message ?? '')
  const columns = sqlite
    ? sqlite[1].split(',').map((c: string) => c.trim().split('.').pop() as string)
    : (/\(([^)]+)\)=/.exec(error.detail ?? '')?.[1] ?? '').split(',').map((c: string) => c.trim())
  const field = columns.filter((c: string) => c && c !== 'company_id').pop()
  return field ? camelCase(field).replace(/Normalized$/, '') : undefined
}

/**
 * Translates database errors into API errors: never SQL text, never a stack. A unique violation
 * is 409 naming the field, a foreign key violation on delete is 409 (still referenced), a lost
 * connection is 503; anything unexpected is a 500 with a generic message.
 */
export function toApiError(raw: any, method?: string): FeathersError {
  const error = raw?.[ERROR] ?? raw
  if (error instanceof FeathersError && !raw?.[ERROR]) return error
  const code = String(error?.code ?? '')
  const message = String(error?.message ?? '')
  if (code === '23505' || (code === 'SQLITE_CONSTRAINT' && message.includes('UNIQUE'))) {
    const field = uniqueField(error)
    return new Conflict(field ? `A record with this ${field} already exists` : 'A record with these values already exists', field ? { validationErrors: { [field]: 'already exists' } } : {})
  }
  if (code === '23503' || (code === 'SQLITE_CONSTRAINT' && message.includes('FOREIGN KEY'))) {
    return method === 'remove' ? new Conflict('The record is still referenced by other records') : new BadRequest('A referenced record does not exist')
  }
  if (code.startsWith('08') || CONNECTION_CODES.has(code) || /Timeout acquiring a connection|Connection terminated|ECONNREFUSED/.test(message)) {
    return new Unavailable('The database is not reachable; try again shortly')
  }
  // A statement cancelled by its time limit (PostgreSQL statement_timeout 57014, lock_timeout
  // 55P03, a session ended idle in a transaction 25P03; SQLite interrupted): the database is
  // too slow or locked right now, and the transaction has rolled back, so a retry may succeed.
  if (TIMEOUT_CODES.has(code)) {
    return new Unavailable('The database did not answer in time; try again shortly')
  }
  // PostgreSQL data exceptions caused by a value: malformed, out of range (also a calendar day
  // past year 9999 in the company's zone), too long, or a character it cannot store.
  if (['22P02', '22003', '22007', '22008', '22009', '22001', '22021', '22P05'].includes(code)) {
    return new BadRequest('A value is out of range or malformed')
  }
  return new GeneralError('Internal error')
}

export const mapDatabaseErrors = async (context: HookContext, next: NextFunction) => {
  try {
    await next()
  } catch (error: any) {
    const mapped = toApiError(error, context.method)
    if (mapped.code >= 500 && mapped !== error) context.app.get('logger' as any)?.error?.({ err: error, path: context.path, method: context.method }, 'database error')
    throw mapped
  }
}
