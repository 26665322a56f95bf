import type { Knex } from 'knex'

/**
 * Writes many rows of one table, each with its own columns and values, in one UPDATE per chunk
 * of rows instead of one per row (on PostgreSQL every statement is a round trip).
 *
 * Each column becomes `CASE id WHEN ? THEN ? … ELSE column END`, so a row keeps every column it
 * has no new value for, and the column's own type (the ELSE branch) types the parameters: the
 * same SQL runs on SQLite and PostgreSQL without casts, NULLs and JSON included. A
 * `FROM (VALUES …)` join would need a cast per column on PostgreSQL and a flag per value to tell
 * "keep" from "set to NULL".
 */
export interface RowUpdate {
  id: number
  /** Column → new value (JSON documents as text). */
  columns: Record<string, unknown>
}

/**
 * Rows per statement. It bounds the parameters (two per value) and the CASE arms a row is
 * matched against (linear in both engines); the usual batch (a month of days, a chain of
 * months) fits in one.
 */
const ROWS_PER_STATEMENT = 100

/** Updates `rows` of `table` (all of `companyId`); `common` columns get the same value in every row. */
export async function updateRows(
  db: Knex | Knex.Transaction,
  table: string,
  companyId: number,
  rows: RowUpdate[],
  common: Record<string, unknown> = {}
) {
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    const chunk = rows.slice(start, start + ROWS_PER_STATEMENT)
    const set: Record<string, unknown> = { ...common }
    for (const column of new Set(chunk.flatMap((row) => Object.keys(row.columns)))) {
      if (column in common) throw new Error(`updateRows: ${column} is both a common and a per-row column`)
      const arms = chunk.filter((row) => column in row.columns)
      set[column] = db.raw(`CASE ?? ${arms.map(() => 'WHEN ? THEN ?').join(' ')} ELSE ?? END`, [
        'id',
        ...arms.flatMap((row) => [row.id, row.columns[column] as Knex.Value]),
        column
      ])
    }
    await db(table)
      .where({ companyId })
      .whereIn(
        'id',
        chunk.map((row) => row.id)
      )
      .update(set)
  }
}
