import type { Knex } from 'knex'
import { camelCase, camelCaseRows } from './knex'

type Row = Record<string, unknown>
type Db = Knex | Knex.Transaction

/**
 * Whole rows of a wide table, each read as one JSON document (issue #22). A time sheet's
 * recomputation reads every column of its day, week and month rows (34, 21 and 39 columns): the
 * ones it compares and the ones the event log publishes. The drivers build such rows a column at
 * a time: node-sqlite3 through N-API (25 month rows: 0.47–0.51 ms of CPU), pg with a parser per
 * column, `Date`s for the timestamps (1.0–1.1 ms). As one JSON text per row, parsed by
 * `JSON.parse`, the same rows cost 0.23 ms on SQLite and 0.35–0.42 ms on PostgreSQL
 * (docs/performance.md, "wide rows as JSON").
 *
 * What a row holds is what the driver gives, with two differences the code already reads either
 * way (SQLite gives timestamps as text, PostgreSQL as `Date`s; src/timesheets/sheet-rows.ts):
 * - PostgreSQL: a timestamp is ISO text with the session's offset (`2026-12-06T10:14:35.483+00:00`),
 *   not a `Date`; `date`, `bigint` and `jsonb` are as src/db/knex.ts parses them (text, number, the
 *   document).
 * - SQLite: `json_object` writes a REAL with 15 significant digits. The tables read here keep
 *   integers, text and NULL only; a REAL would come back rounded.
 *
 * `filter` writes the WHERE and ORDER BY of the read; `name` (PostgreSQL) names the statement,
 * which a column added to the table does not change (its one result column stays `json`).
 */
export async function wholeRows(
  db: Db,
  table: string,
  filter: (builder: Knex.QueryBuilder) => unknown,
  name?: string
): Promise<Row[]> {
  if (db.client.config.client === 'pg') {
    const query = db({ t: table }).select(db.raw('row_to_json(t) as r'))
    filter(query)
    if (name) query.options({ name })
    const rows: { r: Row }[] = await query
    return camelCaseRows(rows.map((row) => row.r)) as Row[]
  }
  const object = await sqliteObject(db, table)
  if (object === null) {
    const query = db(table).select('*')
    filter(query)
    return query
  }
  const query = db(table).select(db.raw(`${object} as r`))
  filter(query)
  try {
    const rows: { r: string }[] = await query
    return rows.map((row) => JSON.parse(row.r) as Row)
  } catch (error) {
    // A column dropped or renamed by a migration while this process runs: read the list again next time.
    objectCache.get(db.client.config as object)?.delete(table)
    throw error
  }
}

/** SQLite's `json_object(…)` of a table's columns, by database (the pool's configuration) and table. */
const objectCache = new WeakMap<object, Map<string, string | null>>()

/**
 * SQLite allows a function 127 arguments unless built with more (a key and a value per column):
 * a wider table is read as plain rows.
 */
const MAX_JSON_COLUMNS = 63

/** Column names as the migrations write them: nothing a literal or an identifier would need to quote. */
const PLAIN_NAME = /^[a-z_][a-z0-9_]*$/

/**
 * `json_object('companyId', \`company_id\`, …)` with every column of `table`, read once from the
 * catalogue (the schema changes only with a migration); the keys are already camelCase. Null
 * for a table that cannot be read this way (too wide, or a name outside PLAIN_NAME). Names are
 * quoted with backticks, as knex quotes them: a double-quoted name SQLite cannot resolve (a column
 * dropped since the list was read) would be taken as a text literal, and the row would give its
 * name as its value instead of failing.
 */
async function sqliteObject(db: Db, table: string): Promise<string | null> {
  const config = db.client.config as object
  let tables = objectCache.get(config)
  if (!tables) objectCache.set(config, (tables = new Map()))
  const cached = tables.get(table)
  if (cached !== undefined) return cached
  const columns: { name: string }[] = await db.raw('select name from pragma_table_info(?)', [table])
  if (columns.length === 0) throw new Error(`wholeRows: no table ${table}`)
  const plain = columns.length <= MAX_JSON_COLUMNS && columns.every(({ name }) => PLAIN_NAME.test(name))
  const object = plain
    ? `json_object(${columns.map(({ name }) => `'${camelCase(name)}', \`${name}\``).join(', ')})`
    : null
  tables.set(table, object)
  return object
}
