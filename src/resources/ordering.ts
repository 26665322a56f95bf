import type { Knex } from 'knex'
import type { Row, WriteContext } from './define-resource'
import { INT32_MAX } from './types'

/** The `order` of a new record that brings none: after the last one of its scope (0 for the first). */
export async function nextOrder(db: Knex | Knex.Transaction, table: string, scope: Row): Promise<number> {
  const row = await db(table).where(scope).max({ last: 'order' }).first()
  const last = row?.last
  return last === null || last === undefined ? 0 : Math.min(Number(last) + 1, INT32_MAX)
}

/** A create without `order` goes after the company's last record of `table`. */
export async function defaultOrder(write: WriteContext<unknown>, table: string) {
  if (write.method !== 'create' || write.data.order !== undefined) return
  write.data.order = await nextOrder(write.trx, table, { companyId: write.companyId })
}
