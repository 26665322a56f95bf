import type { Knex } from 'knex'
import type { Resource, Row, ValidationErrors } from './define-resource'
import { wholeRowsOf } from '../db/json-rows'
import { lockedForWrite, noteLocked } from '../db/dialect'

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
  // A create's references marked `lock` are read with their write lock (a statement less than
  // reading and then locking them: a new time entry's user on PostgreSQL). Not a PATCH's: its rules
  // lock the record it already references, which a reference its body names need not be (a second
  // lock, in no fixed order with the first).
  const locking = existing === undefined && 'isTransaction' in db && db.isTransaction ? (db as Knex.Transaction) : null
  // One statement for all of them (a time entry names a user, a type and an event), whole rows as
  // JSON (src/db/json-rows.ts): a write's transaction answers one statement at a time, and each
  // statement is a round trip (PostgreSQL) or a hand-over to the driver's thread (SQLite). Named
  // on PostgreSQL (key look-ups) while each reference is one id: lists of ids (a gang's members)
  // make as many texts as a client chooses lengths.
  const found = (
    await wholeRowsOf(
      db,
      checks.map(({ ref, ids }) => ({
        table: ref.table,
        filter: (query: Knex.QueryBuilder) => {
          query.where({ companyId }).whereIn('id', ids)
          if (ref.lock && locking) lockedForWrite(locking, query)
        }
      })),
      checks.every(({ ids }) => ids.length === 1) ? { purpose: 'references' } : false
    )
  ).map((rows) => new Map(rows.map((row) => [Number(row.id), row])))
  if (locking)
    checks.forEach(({ ref }, i) => {
      if (ref.lock) for (const id of found[i].keys()) noteLocked(locking, ref.table, id)
    })
  checks.forEach(({ field, ref, ids }, i) => {
    referenced[field] = found[i]
    const missing = ids.filter((id) => !found[i].has(id))
    // A PATCH may keep what the record already references (CONTRACT §6: existing records keep it).
    const before = existing?.[field]
    const kept = new Set<number>(before === undefined || before === null ? [] : ref.many ? before : [before])
    const inactive = ref.active ? ids.filter((id) => !kept.has(id) && found[i].get(id)?.deactivatedAt) : []
    const refusal = (id: number) =>
      missing.includes(id)
        ? `references no record of this company (id ${id})`
        : inactive.includes(id)
          ? `references a deactivated record (id ${id})`
          : undefined
    // A list names each offending item by its position (`userIds.1`, CONTRACT §3.2), every position
    // of an id it repeats included.
    if (ref.many)
      (data[field] as number[]).forEach((id, index) => {
        const message = refusal(id)
        if (message !== undefined) errors[`${field}.${index}`] = message
      })
    else {
      const message = refusal(ids[0])
      if (message !== undefined) errors[field] = message
    }
  })
  return errors
}
