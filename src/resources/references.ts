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
  const checks = Object.entries(resource.references ?? {}).flatMap(([field, ref]) => {
    const value = data[field]
    if (value === undefined || value === null) return []
    const ids = [...new Set((ref.many ? value : [value]) as number[])]
    return ids.length === 0 ? [] : [{ field, ref, ids }]
  })
  const lookUp = async ({ ref, ids }: (typeof checks)[number]) => {
    const rows: Row[] = await db(ref.table).select('*').where({ companyId }).whereIn('id', ids)
    return new Map(rows.map((row) => [Number(row.id), row]))
  }
  // Outside a transaction they are sent together: one wait for all of them instead of one after the
  // other (a time entry names a user, a type and an event), each on a pooled connection. A write's
  // transaction has one connection, which answers one statement at a time anyway: there they are
  // sent in turn, because pg 8 only warns about a query sent while another runs and pg 9 refuses it.
  const found: Map<number, Row>[] = []
  if (db.isTransaction) for (const check of checks) found.push(await lookUp(check))
  else found.push(...(await Promise.all(checks.map(lookUp))))
  checks.forEach(({ field, ref, ids }, i) => {
    referenced[field] = found[i]
    const missing = ids.filter((id) => !found[i].has(id))
    // A PATCH may keep what the record already references (CONTRACT §6: existing records keep it).
    const before = existing?.[field]
    const kept = new Set<number>(before === undefined || before === null ? [] : ref.many ? before : [before])
    const inactive = ref.active ? ids.filter((id) => !kept.has(id) && found[i].get(id)?.deactivatedAt) : []
    if (missing.length > 0) errors[field] = `references no record of this company (id ${missing.join(', ')})`
    else if (inactive.length > 0) errors[field] = `references a deactivated record (id ${inactive.join(', ')})`
  })
  return errors
}
