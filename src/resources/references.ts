import type { Knex } from 'knex'
import type { Resource, Row, ValidationErrors } from './define-resource'

/**
 * Every referenced id must be a record of the same company; a reference to another company's
 * record is reported exactly like a missing one. New references to deactivated records are refused;
 * ids the record already references (`existing`, on PATCH) are kept even when deactivated since.
 */
export async function checkReferences(
  resource: Resource,
  data: Row,
  companyId: number,
  db: Knex | Knex.Transaction,
  existing?: Row,
  referenced: Record<string, Map<number, Row>> = {}
) {
  const errors: ValidationErrors = {}
  for (const [field, ref] of Object.entries(resource.references ?? {})) {
    const value = data[field]
    if (value === undefined || value === null) continue
    const ids = [...new Set((ref.many ? value : [value]) as number[])]
    if (ids.length === 0) continue
    const rows: Row[] = await db(ref.table).select('*').where({ companyId }).whereIn('id', ids)
    const found = new Map(rows.map((row) => [Number(row.id), row]))
    referenced[field] = found
    const missing = ids.filter((id) => !found.has(id))
    // A PATCH may keep what the record already references (CONTRACT §6: existing records keep it).
    const before = existing?.[field]
    const kept = new Set<number>(before === undefined || before === null ? [] : ref.many ? before : [before])
    const inactive = ref.active ? ids.filter((id) => !kept.has(id) && found.get(id)?.deactivatedAt) : []
    if (missing.length > 0) errors[field] = `references no record of this company (id ${missing.join(', ')})`
    else if (inactive.length > 0) errors[field] = `references a deactivated record (id ${inactive.join(', ')})`
  }
  return errors
}
