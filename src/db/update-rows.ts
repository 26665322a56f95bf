import type { Knex } from 'knex'
import { KEEP_PREPARED, snakeCase } from './knex'
import { namedByText } from './dialect'

/**
 * Writes many rows of one table, each with its own columns and values, in one UPDATE instead of
 * one per row. The rows go as one JSON parameter, joined with the table by id, so the statement's
 * text depends on the columns only, not on the number of rows. A column a row has no value for is
 * a key missing from its object (kept); a JSON null sets NULL. Values are numbers, text (JSON
 * documents as text), booleans and nulls.
 * - SQLite: `UPDATE … FROM json_each(?)`, kept prepared. Against one CASE arm per row and column,
 *   SQLite prepares it in a third of the time and runs it in less (a carry chain of 25 months: 0.14
 *   against 0.34 ms in SQLite alone).
 * - PostgreSQL: `UPDATE … FROM jsonb_array_elements(?)`, each value cast to its column's type (read
 *   once per table from the catalogue). The CASE form's text grew with every row and column (two
 *   parameters per value, parsed and planned anew each time): 25 months of a carry chain took
 *   3.7–4.6 ms, this form 2.2–2.5 ms on the bench's data. Named by its text (`namedByText`): the
 *   plan, a loop over the array's elements looking each row up by its key, is the same for every
 *   value, and the texts are few (one per set of tables and columns written); unnamed, PostgreSQL
 *   planned a recomputation's UPDATE anew every time (0.7 ms of its 1.7 in a POST time entry).
 */
export interface RowUpdate {
  id: number
  /** Column → new value (JSON documents as text). */
  columns: Record<string, unknown>
  /**
   * Values the row already holds, which PostgreSQL writes as well: its statement's text then
   * names the columns a caller's kind of write yields, not the ones whose values moved, and stays
   * one of a few named texts (`namedByText`). SQLite, which names nothing and keeps statements by
   * text anyway, writes `columns` only.
   */
  unchanged?: Record<string, unknown>
}

/**
 * Rows per statement: one JSON parameter holds them all, and the usual batch (a month of days, a
 * chain of months) fits in one; the bound keeps a statement's work and payload modest.
 */
const ROWS_PER_STATEMENT = 500

/** Updates `rows` of `table` (all of `companyId`); `common` columns get the same value in every row. */
export async function updateRows(
  db: Knex | Knex.Transaction,
  table: string,
  companyId: number,
  rows: RowUpdate[],
  common: Record<string, unknown> = {}
) {
  await updateTables(db, [{ table, companyId, rows, common }])
}

/** The rows of one table `updateTables` writes (all of `companyId`). */
export interface TableUpdate {
  table: string
  companyId: number
  rows: RowUpdate[]
  /** Columns with the same value in every row. */
  common?: Record<string, unknown>
}

/**
 * `updateRows` of several tables. On PostgreSQL, when each table's rows fit one statement, all in
 * one: the others as data-modifying `WITH` parts of the last, which PostgreSQL runs once each, to
 * the end, whatever the main statement reads. A recomputation writes its days, weeks and months so
 * in one round trip instead of three. Only distinct tables, each in one statement, go together: the
 * parts of one statement see the same snapshot, and two parts writing one row would keep only one
 * of the two writes (found by a review); otherwise they are sent one after the other. SQLite, which
 * has no such parts and no round trip to save, writes them one after the other.
 */
export async function updateTables(db: Knex | Knex.Transaction, updates: TableUpdate[]) {
  const pg = db.client.config.client === 'pg'
  const work = updates
    .filter((update) => update.rows.length > 0)
    .map((update) =>
      pg
        ? {
            ...update,
            rows: update.rows.map((row) => ({ id: row.id, columns: Object.assign({}, row.unchanged, row.columns) }))
          }
        : update
    )
  const columns = work.map(checkedColumns)
  if (!pg) {
    for (const [i, { table, companyId, rows, common = {} }] of work.entries()) {
      for (const chunk of chunksOf(rows)) await sqliteUpdate(db, table, companyId, chunk, columns[i], common)
    }
    return
  }
  try {
    const statements: { sql: string; bindings: Knex.Value[] }[] = []
    for (const [i, { table, companyId, rows, common = {} }] of work.entries()) {
      const types = await columnTypes(db, table)
      for (const chunk of chunksOf(rows)) statements.push(pgUpdate(table, companyId, chunk, columns[i], common, types))
    }
    // One part per table: two parts writing one row would both start from the same snapshot, and
    // PostgreSQL would keep only one of them, without an error. A table named twice goes apart.
    const oneEach = statements.length === work.length && new Set(work.map(({ table }) => table)).size === work.length
    if (statements.length > 1 && oneEach) {
      const last = statements.pop()!
      const parts = statements.map(({ sql }, i) => `"written_${i}" AS (${sql})`)
      await namedByText(
        db,
        'updateTables',
        db.raw(`WITH ${parts.join(', ')} ${last.sql}`, [
          ...statements.flatMap(({ bindings }) => bindings),
          ...last.bindings
        ])
      )
    } else {
      for (const { sql, bindings } of statements) await namedByText(db, 'updateTables', db.raw(sql, bindings))
    }
  } catch (error) {
    for (const { table } of work) forgetTypes(db, table)
    throw error
  }
}

const chunksOf = (rows: RowUpdate[]) =>
  Array.from({ length: Math.ceil(rows.length / ROWS_PER_STATEMENT) }, (_, i) =>
    rows.slice(i * ROWS_PER_STATEMENT, (i + 1) * ROWS_PER_STATEMENT)
  )

/** The columns the rows write, after checking that the update is well-formed. */
function checkedColumns({ rows, common = {} }: TableUpdate): string[] {
  // In one order whatever order the rows name them in: the text is then the same for the same columns.
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row.columns)))].sort()
  for (const column of columns)
    if (column in common) throw new Error(`updateRows: ${column} is both a common and a per-row column`)
  // Values JSON carries as a parameter would be bound, and a row once (the join would keep one of two).
  const ids = new Set<number>()
  for (const row of rows) {
    if (ids.has(row.id)) throw new Error(`updateRows: row ${row.id} is named twice`)
    ids.add(row.id)
    for (const [column, value] of Object.entries(row.columns))
      if (!jsonSafe(value))
        throw new Error(`updateRows: ${column} of row ${row.id} is not a number, text, boolean or null`)
  }
  return columns
}

/** What JSON carries as a bound parameter would be stored: finite numbers, text, booleans, null (JSON documents as text). */
const jsonSafe = (value: unknown) =>
  value === null ||
  typeof value === 'string' ||
  typeof value === 'boolean' ||
  (typeof value === 'number' && Number.isFinite(value))

/**
 * The SET list of one UPDATE of `rows` from a JSON parameter: `types` (PostgreSQL) names each
 * column's type, which its text value is cast to; SQLite stores the JSON value as it is (numbers,
 * text, 1/0). The table's columns are qualified with `own`: json_each has an `id`, a `key`, a
 * `value` of its own.
 */
function setList(
  rows: RowUpdate[],
  columns: string[],
  common: Record<string, unknown>,
  own: (column: string) => string,
  valueOf: (column: string) => string,
  pg: boolean
) {
  const sql: string[] = []
  const bindings: Knex.Value[] = []
  for (const [column, value] of Object.entries(common)) {
    sql.push('?? = ?')
    bindings.push(column, value as Knex.Value)
  }
  for (const column of columns) {
    // SQLite takes a JSON path, PostgreSQL's `->>` a key.
    const key = pg ? column : `$.${column}`
    if (rows.every((row) => column in row.columns)) {
      sql.push(`?? = ${valueOf(column)}`)
      bindings.push(column, key)
    } else if (pg) {
      // `->` is SQL NULL for a missing key only (a JSON null is the jsonb value null).
      sql.push(`?? = (CASE WHEN j.value -> ?::text IS NULL THEN ?? ELSE ${valueOf(column)} END)`)
      bindings.push(column, key, own(column), key)
    } else {
      sql.push(`?? = (CASE WHEN json_type(j.value, ?) IS NULL THEN ?? ELSE ${valueOf(column)} END)`)
      bindings.push(column, key, own(column), key)
    }
  }
  return { set: sql.join(', '), bindings }
}

/** PostgreSQL: one UPDATE of `rows` from a `jsonb` parameter, as text and bindings (sent alone or as a WITH part). */
function pgUpdate(
  table: string,
  companyId: number,
  rows: RowUpdate[],
  columns: string[],
  common: Record<string, unknown>,
  types: Map<string, string>
) {
  const own = (column: string) => `t.${column}`
  const valueOf = (column: string) => `(j.value ->> ?::text)::${typeOf(types, table, column)}`
  const { set, bindings } = setList(rows, columns, common, own, valueOf, true)
  const payload = JSON.stringify(rows.map((row) => withId(row, asParameter)))
  return {
    sql:
      `UPDATE ?? AS t SET ${set} FROM jsonb_array_elements(?::jsonb) AS j(value) ` +
      `WHERE ?? = ? AND ?? = (j.value ->> '$id')::integer`,
    bindings: [table, ...bindings, payload, own('companyId'), companyId, own('id')]
  }
}

/** SQLite: one UPDATE of `rows` from a JSON parameter, kept prepared. */
async function sqliteUpdate(
  db: Knex | Knex.Transaction,
  table: string,
  companyId: number,
  rows: RowUpdate[],
  columns: string[],
  common: Record<string, unknown>
) {
  const own = (column: string) => `${table}.${column}`
  const { set, bindings } = setList(rows, columns, common, own, () => '(j.value ->> ?)', false)
  const payload = JSON.stringify(rows.map((row) => withId(row, (value) => value)))
  // `+company_id` keeps SQLite off the company's index: without statistics for the table (a new
  // deployment whose connection opened on empty tables) it otherwise walked all of the company's
  // rows and scanned the JSON for each (31 rows of 40 000: 512 ms); so it looks each row up by id.
  // Its text depends on the table and the columns only: kept prepared for the next request.
  await db
    .raw(`UPDATE ?? SET ${set} FROM json_each(?) AS j WHERE +?? = ? AND ?? = (j.value ->> '$."$id"')`, [
      table,
      ...bindings,
      payload,
      own('companyId'),
      companyId,
      own('id')
    ])
    .options(KEEP_PREPARED)
}

/**
 * PostgreSQL: a value as the driver would send it as a parameter, so that its cast gives what a
 * one-row UPDATE stores: numbers and booleans as their text (jsonb would print a number its own
 * way: 1e+21 as 1000000000000000000000), text well-formed (the driver sends a lone surrogate as
 * U+FFFD; jsonb refuses it).
 */
function asParameter(value: unknown): unknown {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (typeof value === 'string') return value.replace(/\p{Surrogate}/gu, '\uFFFD')
  return value
}

/**
 * A row's element of the JSON parameter: its columns' values through `map`, and its id as `$id`.
 * Built key by key: a spread followed by `$id`, or Object.fromEntries, cost microseconds per row
 * on Node 20 (docs/performance.md), and a carry chain writes 25. Column names come from the code,
 * never from a request: an assignment would take a `__proto__` key as the prototype.
 */
function withId(row: RowUpdate, map: (value: unknown) => unknown): Record<string, unknown> {
  const element: Record<string, unknown> = {}
  for (const column of Object.keys(row.columns)) element[column] = map(row.columns[column])
  element.$id = row.id
  return element
}

/** Column types of a table by database (the pool's configuration) and table: the schema changes only with a migration. */
const typeCache = new WeakMap<object, Map<string, Map<string, string>>>()

/**
 * PostgreSQL: each column's type without its modifier (`character varying`, not `(16)`): a cast
 * to `varchar(16)` would cut a longer value silently, where the assignment to the column refuses it
 * as a one-row UPDATE does. `char(n)` and `bit(n)` without their length mean length 1, so they are
 * cast to `bpchar` and `varbit`, which keep the whole value for the assignment to check. Only a
 * read that succeeded is kept, and a failed update forgets it (a column changed by a migration
 * while this process runs is read again).
 */
async function columnTypes(db: Knex | Knex.Transaction, table: string): Promise<Map<string, string>> {
  const config = db.client.config as object
  let tables = typeCache.get(config)
  if (!tables) typeCache.set(config, (tables = new Map()))
  const cached = tables.get(table)
  if (cached) return cached
  const result: { rows: { name: string; type: string }[] } = await db.raw(
    `select attname as name, case atttypid when 'bpchar'::regtype then 'bpchar' when 'bit'::regtype then 'varbit' ` +
      `else format_type(atttypid, null) end as type from pg_attribute ` +
      `where attrelid = ?::regclass and attnum > 0 and not attisdropped`,
    [table]
  )
  const types = new Map(result.rows.map((row) => [row.name, row.type]))
  tables.set(table, types)
  return types
}

/** Forgets `table`'s column types (after a failed update). */
const forgetTypes = (db: Knex | Knex.Transaction, table: string) =>
  typeCache.get(db.client.config as object)?.delete(table)

/** The cast of `column`: a type name from the catalogue, checked to be nothing but a name. */
function typeOf(types: Map<string, string>, table: string, column: string): string {
  const type = types.get(snakeCase(column))
  if (!type || !/^[a-z][a-z0-9 _]*(\[\])?$/.test(type)) throw new Error(`updateRows: no type for ${table}.${column}`)
  return type
}
