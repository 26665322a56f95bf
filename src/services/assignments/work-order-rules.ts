import { stillReferenced } from '../../resources/errors'
import type { Knex } from 'knex'
import type { RemoveContext, Row, ValidationErrors, WriteContext } from '../../resources/define-resource'
import type { StoredFilesParams } from '../uploads/stored-files'
import { UPLOAD_PARENTS, UploadParams, uploadsPath } from '../uploads/uploads.schema'
import { journalOf } from '../../events/journal'

/**
 * Rules the three work-order resources share: catalogue defaults and delete guards. (A PATCH
 * cannot clear a catalogue reference or an order: their `patchSchema` has no null.)
 */

/**
 * A create without `field` (absent or null, as the spec's sample bodies send it) gets the
 * company's first active entry of `table` by `order`.
 */
export async function defaultFromCatalogue(
  write: WriteContext<unknown>,
  field: string,
  table: string,
  errors: ValidationErrors
) {
  if (write.method !== 'create' || (write.data[field] !== undefined && write.data[field] !== null)) return
  const first = await write
    .trx(table)
    .where({ companyId: write.companyId })
    .whereNull('deactivatedAt')
    .orderBy([{ column: 'order' }, { column: 'id' }])
    .first('id')
  if (first) write.data[field] = Number(first.id)
  else errors[field] = `is required: the company has no active ${table.replace(/_/g, ' ').replace(/s$/, '')}`
}

/** Time entries keep the assignment and event they were booked on (CONTRACT §5): 409. */
export async function refuseWhenBooked(
  { trx, companyId }: RemoveContext<unknown>,
  narrow: (query: Knex.QueryBuilder) => void,
  what: string
) {
  const [{ count }] = await trx('timeEntries').where({ companyId }).where(narrow).count({ count: '*' })
  if (Number(count) > 0) throw stillReferenced(what, { 'time-entries': Number(count) })
}

/**
 * The uploads matching `where` go with the record being deleted (FK cascade): they are logged as
 * removed, as their parent's uploads service returns them, and their files are deleted once the
 * delete has committed.
 */
export async function scheduleUploadFiles(
  { app, trx, companyId, params }: RemoveContext<unknown>,
  where: (query: Knex.QueryBuilder) => void
) {
  const rows: Row[] = await trx('uploads').where({ companyId }).where(where).orderBy('id')
  const pending = (params as StoredFilesParams).storedFilesToDelete
  pending?.push(...rows.map((row) => String(row.storageKey)))
  const journal = journalOf(params)
  for (const parent of UPLOAD_PARENTS) {
    const byParent = new Map<number, Row[]>()
    for (const row of rows.filter((row) => row[parent.field] !== null && row[parent.field] !== undefined))
      byParent.set(Number(row[parent.field]), [...(byParent.get(Number(row[parent.field])) ?? []), row])
    for (const [id, uploads] of byParent) {
      const read: Partial<UploadParams> = {
        uploadParent: { field: parent.field, id },
        origin: (params as UploadParams).origin
      }
      await journal.removeRows(app, trx, uploadsPath(parent), uploads, read)
    }
  }
}

/** Records of `path`'s table matching `where` that go with the record being deleted, logged as removed. */
export async function logCascade(
  { app, trx, companyId, params }: RemoveContext<unknown>,
  path: string,
  table: string,
  where: Row
) {
  const rows: Row[] = await trx(table).where({ companyId }).where(where).orderBy('id')
  await journalOf(params).removeRows(app, trx, path, rows)
}
