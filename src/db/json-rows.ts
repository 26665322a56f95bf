import type { Knex } from 'knex'
import { camelCase, camelCaseRows, KEEP_PREPARED, snakeCase } from './knex'
import { namedByText } from './dialect'
import { Shape, StatementShapes } from './statement-shapes'

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
 * - SQLite: a REAL in a column of REAL or NUMERIC affinity is written exactly (`mayHoldReal`).
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
    forgetObject(db, table)
    throw error
  }
}

/** One table's share of `wholeRowsOf`: `filter` writes its WHERE (no ORDER BY: the rows come in no particular order). */
export interface RowsPart {
  table: string
  filter: (builder: Knex.QueryBuilder) => unknown
}

/**
 * A read of its own as a share of `wholeRowsOf` (joins, a union): its rows come back as documents
 * with the keys `columns` (camelCase, the names its select gives them), in no particular order.
 * On SQLite a REAL value is written exactly, as in a table's rows (`mayHoldReal`).
 */
export interface QueryPart {
  query: Knex.QueryBuilder
  columns: string[]
}

const isQueryPart = (part: RowsPart | QueryPart): part is QueryPart => 'query' in part

/** SQLite's `json_object(…)` of `columns` of the subquery `t`; any value may be a REAL. */
function sqliteQueryObject(columns: string[]): string {
  const value = (column: string) => {
    const name = `\`t\`.\`${snakeCase(column)}\``
    return `iif(typeof(${name}) = 'real', json(quote(${name})), ${name})`
  }
  return `json_object(${columns.map((column) => `'${column}', ${value(column)}`).join(', ')})`
}

/**
 * The whole rows of several tables in one statement: the parts' reads as one `union all`, each
 * row tagged with its part (a write's checks look up a time entry's user, type and event: one
 * statement instead of three). The rows of each part come back in a list of their own, in no
 * particular order. Values as `wholeRows` gives them. SQLite keeps the statement prepared;
 * PostgreSQL gets it named: by `name`, or by its text (`namedByText`) within the budget of
 * `name.purpose`; each part's filter must have the same best plan for every value (a key look-up,
 * a user's index range with its bounds hidden from the planner). `false` for a statement whose
 * text a client can vary without bound (a list of ids of its choosing): named, each length would
 * take one of the purpose's names.
 */
export async function wholeRowsOf(
  db: Db,
  parts: (RowsPart | QueryPart)[],
  name: { purpose: string } | string | false
): Promise<Row[][]> {
  if (parts.length === 0) return []
  if (parts.length > MAX_PARTS) {
    // SQLite refuses a compound select of more than 500 parts; in turn, as a transaction runs them.
    const found: Row[][] = []
    for (let i = 0; i < parts.length; i += MAX_PARTS)
      // Unnamed: the last chunk's length is anything from 1 to MAX_PARTS, and each would be a text of its own.
      found.push(...(await wholeRowsOf(db, parts.slice(i, i + MAX_PARTS), false)))
    return found
  }
  const pg = db.client.config.client === 'pg'
  const objects = new Map<string, string | null>()
  if (!pg) for (const part of parts) if (!isQueryPart(part)) objects.set(part.table, await sqliteObject(db, part.table))
  // A table too wide for one json_object: every part is read on its own, one after the other
  // (a transaction's connection answers one statement at a time).
  if ([...objects.values()].includes(null)) {
    const found: Row[][] = []
    for (const one of parts)
      found.push(
        isQueryPart(one) ? ((await wholeRowsOf(db, [one], false))[0] ?? []) : await wholeRows(db, one.table, one.filter)
      )
    return found
  }
  const statement = unionOfParts(db, parts, (table) => objects.get(table)!)
  if (pg && typeof name === 'string') statement.options({ name })
  else if (pg && typeof name === 'object') namedByText(db, name.purpose, statement)
  let rows: { p: number; r: Row | string }[]
  try {
    rows = pg ? (await statement).rows : await statement
  } catch (error) {
    if (!pg) for (const part of parts) if (!isQueryPart(part)) forgetObject(db, part.table)
    throw error
  }
  return partsOf(db, parts.length, rows)
}

const PG_OBJECT = 'row_to_json(t)'

/**
 * `wholeRowsOf`'s statement, unsent: the parts' reads as one `union all`, each row tagged with its
 * part in `p`. A `RowsPart`'s rows are PostgreSQL's `row_to_json`, or on SQLite the JSON object
 * `sqliteObjectOf` gives for its table (`sqliteObject`, read before). SQLite keeps it prepared.
 */
function unionOfParts(db: Db, parts: (RowsPart | QueryPart)[], sqliteObjectOf: (table: string) => string): Knex.Raw {
  const pg = db.client.config.client === 'pg'
  const selects: string[] = []
  const bindings: Knex.Value[] = []
  for (const [i, part] of parts.entries()) {
    let query: Knex.QueryBuilder
    if (isQueryPart(part)) {
      if (part.columns.some((column) => !PLAIN_NAME.test(snakeCase(column))))
        throw new Error(`wholeRowsOf: a column of a query part is not a plain name`)
      const object = pg ? PG_OBJECT : sqliteQueryObject(part.columns)
      query = db.select(db.raw(`${i} as p, ${object} as r`)).from(part.query.as('t'))
    } else {
      const object = pg ? PG_OBJECT : sqliteObjectOf(part.table)
      query = (pg ? db({ t: part.table }) : db(part.table)).select(db.raw(`${i} as p, ${object} as r`))
      part.filter(query)
    }
    const { sql, bindings: own } = query.toSQL()
    selects.push(`select * from (${sql}) as ${pg ? `p${i}` : `\`p${i}\``}`)
    bindings.push(...own)
  }
  const statement = db.raw(selects.join(' union all '), bindings)
  return pg ? statement : statement.options(KEEP_PREPARED)
}

/** The rows of `wholeRowsOf`'s statement by part: a list per part, each row its document. */
function partsOf(db: Db, count: number, rows: { p: number; r: Row | string }[]): Row[][] {
  const found: Row[][] = Array.from({ length: count }, () => [])
  for (const { p, r } of rows) found[Number(p)].push(typeof r === 'string' ? (JSON.parse(r) as Row) : r)
  return db.client.config.client === 'pg' ? found.map((list) => camelCaseRows(list) as Row[]) : found
}

/**
 * `wholeRowsOf` for a read that a write runs every time, compiled once per shape
 * (`StatementShapes`): `parts` writes the parts of `shape` from `values`, handing each value to knex
 * as it is. `tables` are the tables of its `RowsPart`s: on SQLite their JSON objects are read from
 * the schema before the statement is built. With a table too wide for one, or more parts than one
 * statement takes, it reads as `wholeRowsOf` does. After a failed read on SQLite the objects and the
 * templates are made anew (a column dropped by a migration while the process runs).
 */
export class WholeRowsShapes<S extends Shape, V extends readonly unknown[]> {
  private readonly shapes: StatementShapes<S, V>
  /** The JSON objects of `tables` this read found, for the build that follows it at once (SQLite). */
  private objects: Map<string, string> | null = null
  /** How many parts a shape has, by dialect and shape (the same for every database of a dialect). */
  private readonly counts = new Map<string, number>()

  constructor(
    private readonly tables: string[],
    private readonly parts: (db: Db, shape: S, values: V) => (RowsPart | QueryPart)[],
    purpose?: string
  ) {
    this.shapes = new StatementShapes(
      (db, shape, values) => unionOfParts(db, parts(db, shape, values), (table) => this.objectOf(table)),
      purpose
    )
  }

  async read(db: Db, shape: S, values: V): Promise<Row[][]> {
    const pg = db.client.config.client === 'pg'
    const countKey = `${(db.client as { dialect: string }).dialect} ${shape.join(' ')}`
    let count = this.counts.get(countKey)
    if (count === undefined) this.counts.set(countKey, (count = this.parts(db, shape, values).length))
    if (count === 0) return []
    const objects = new Map<string, string>()
    if (!pg)
      for (const table of this.tables) {
        const object = await sqliteObject(db, table)
        if (object === null) return wholeRowsOf(db, this.parts(db, shape, values), false)
        objects.set(table, object)
      }
    if (count > MAX_PARTS) return wholeRowsOf(db, this.parts(db, shape, values), false)
    let rows: { p: number; r: Row | string }[]
    try {
      // The objects found above, not the shared cache: another read's failure may empty it meanwhile.
      this.objects = objects
      let statement: Knex.Raw
      try {
        statement = this.shapes.statement(db, shape, values)
      } finally {
        this.objects = null
      }
      const found = await statement
      rows = pg ? found.rows : found
    } catch (error) {
      if (!pg) {
        for (const table of this.tables) forgetObject(db, table)
        this.shapes.forget(db)
      }
      throw error
    }
    return partsOf(db, count, rows)
  }

  private objectOf(table: string): string {
    const object = this.objects?.get(table)
    if (object === undefined) throw new Error(`WholeRowsShapes: ${table} is not one of its tables`)
    return object
  }
}

/** The parts of one statement of `wholeRowsOf`: more go in several (SQLite allows 500 in a compound select). */
const MAX_PARTS = 100

/** SQLite's `json_object(…)` of a table's columns, by database (the pool's configuration) and table. */
const objectCache = new WeakMap<object, Map<string, string | null>>()

/** After a failed read: a column dropped or renamed by a migration while this process runs is read anew next time. */
const forgetObject = (db: Db, table: string) => objectCache.get(db.client.config as object)?.delete(table)

/**
 * SQLite allows a function 127 arguments unless built with more (a key and a value per column):
 * a wider table is read as plain rows.
 */
const MAX_JSON_COLUMNS = 63

/**
 * Whether a column of this declared type keeps a floating-point value as such: REAL and NUMERIC
 * affinity (`double`, `float`, `decimal`, `boolean`, …). `json_object` writes a REAL with 15
 * significant digits (0.30000000000000004 came back as 0.3, found by a review); such a column's
 * REAL goes through `quote`, which writes as many digits as the value needs, as a JSON number.
 * INTEGER and TEXT affinity columns hold a REAL only if one is written into them, which the
 * schemas of the API's fields do not let through.
 */
function mayHoldReal(type: string): boolean {
  const declared = type.toUpperCase()
  if (declared.includes('INT')) return false
  return !/CHAR|CLOB|TEXT/.test(declared)
}

/** Column names as the migrations write them: nothing a literal or an identifier would need to quote. */
const PLAIN_NAME = /^[a-z_][a-z0-9_]*$/

/**
 * `json_object('companyId', \`company_id\`, …)` with every column of `table`, read once from the
 * catalogue (the schema changes only with a migration); the keys are already camelCase. Null
 * for a table that cannot be read this way (too wide, a BLOB column, or a name outside PLAIN_NAME). Names are
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
  const columns: { name: string; type: string }[] = await db.raw('select name, type from pragma_table_info(?)', [table])
  if (columns.length === 0) throw new Error(`wholeRows: no table ${table}`)
  // json_object refuses a BLOB: a table with a BLOB column is read as plain rows.
  const plain =
    columns.length <= MAX_JSON_COLUMNS &&
    columns.every(({ name, type }) => PLAIN_NAME.test(name) && !/BLOB|BINARY/i.test(type))
  const value = ({ name, type }: { name: string; type: string }) =>
    mayHoldReal(type) ? `iif(typeof(\`${name}\`) = 'real', json(quote(\`${name}\`)), \`${name}\`)` : `\`${name}\``
  const object = plain
    ? `json_object(${columns.map((column) => `'${camelCase(column.name)}', ${value(column)}`).join(', ')})`
    : null
  tables.set(table, object)
  return object
}
