import { stillReferenced } from '../../resources/errors'
import type { Knex } from 'knex'
import type { Row, ValidationErrors, WriteContext } from '../../resources/define-resource'
import type { HookContext } from '../../declarations'

/** Rules the three work-order resources share: catalogue defaults, uncleared fields, delete guards. */

export const trxOf = (context: HookContext): Knex => context.params.transaction?.trx ?? context.app.get('knex' as any)

/**
 * A create without `field` (absent or null, as the spec's sample bodies send it) gets the
 * company's first active entry of `table` by `order`.
 */
export async function defaultFromCatalogue(write: WriteContext, field: string, table: string, errors: ValidationErrors) {
  if (write.method !== 'create' || (write.data[field] !== undefined && write.data[field] !== null)) return
  const first = await trxOf(write.context)(table)
    .where({ companyId: write.companyId })
    .whereNull('deactivatedAt')
    .orderBy([{ column: 'order' }, { column: 'id' }])
    .first('id')
  if (first) write.data[field] = Number(first.id)
  else errors[field] = `is required: the company has no active ${table.replace(/_/g, ' ').replace(/s$/, '')}`
}

/** Fields that always have a value: a PATCH may change them but not clear them. */
export function refuseClearing(write: WriteContext, fields: string[], errors: ValidationErrors) {
  if (write.method !== 'patch') return
  for (const field of fields) if (write.data[field] === null) errors[field] ??= 'cannot be cleared (send a value)'
}

/** Time entries keep the assignment and event they were booked on (CONTRACT §5): 409. */
export async function refuseWhenBooked(context: HookContext, narrow: (query: Knex.QueryBuilder) => void, what: string) {
  const [{ count }] = await trxOf(context)('timeEntries').where({ companyId: context.params.company!.id }).where(narrow).count({ count: '*' })
  if (Number(count) > 0) throw stillReferenced(what, { 'time-entries': Number(count) })
}

/** Storage keys of the uploads matching `where`, to be deleted once the delete has committed. */
export async function scheduleUploadFiles(context: HookContext, where: (query: Knex.QueryBuilder) => void) {
  const rows: Row[] = await trxOf(context)('uploads')
    .where({ companyId: context.params.company!.id })
    .where(where)
    .select('storageKey')
  const pending = (context.params as { storedFilesToDelete?: string[] }).storedFilesToDelete
  pending?.push(...rows.map((row) => String(row.storageKey)))
}
