import { createHash } from 'node:crypto'
import type { Knex } from 'knex'
import type { DatabaseClient } from './knex'
import { sqliteLikeSql, takeSqliteLikes, withoutLike } from './sqlite-like'
import { applyNarrowedLikes, narrowToCandidates, pgNarrowedLikes, searchCandidates } from './search-index'
import { fts5Trigrams, pgTrgmTrigrams, TrigramStatistics } from './search-terms'

declare module '../declarations' {
  interface Configuration {
    /** Set by createApp() from the database URL: what differs between SQLite and PostgreSQL. */
    dialect: Dialect
  }
}

/** A list's `$like` filters as one database answers them. */
export interface ListSearch {
  /** The list's query for the Feathers knex adapter, without the filters `apply` writes. */
  query: Record<string, unknown>
  /** Writes the other filters (and the search index's narrowing) onto the adapter's query. */
  apply(builder: Knex.QueryBuilder): void
}

/**
 * What the generic resource service does differently on SQLite and PostgreSQL, chosen once when
 * the app starts (`app.get('dialect')`). The rest of the service is the same SQL on both.
 * - `$like`: one reading of the pattern (src/db/like-pattern.ts), case-insensitive for every
 *   letter: ILIKE on PostgreSQL; on SQLite LIKE with the backslash escape, or a GLOB for patterns
 *   with letters outside ASCII, which its LIKE does not fold (src/db/sqlite-like.ts).
 * - Trigram search (src/db/search-index.ts): SQLite reads the candidates from its FTS5 trigram
 *   tables first; PostgreSQL's pg_trgm index serves ILIKE as it is, but for a term's frequent
 *   trigrams, which both look up without (src/db/search-terms.ts, a sample per process).
 * - Counting: `count(*)` on both (see `count`).
 */
export interface Dialect {
  readonly client: DatabaseClient
  /** Operators the Feathers knex adapter maps to SQL for this database. */
  readonly adapterOperators: Record<string, string>
  /** Plans a list's `$like` filters on `table` (may read the search index and the trigram sample). */
  searchList(db: Knex, table: string, query: Record<string, unknown>): Promise<ListSearch>
  /** The count statement of a list whose rows `builder` selects. */
  count(builder: Knex.QueryBuilder): Knex.QueryBuilder
  /** Forgets the trigram samples, so the next search takes new ones (a test after filling a table). */
  forgetSamples(): void
}

/**
 * `count(*)`, not the adapter's `count(id)`: PostgreSQL counts from the filter's index alone,
 * where `count(id)` reads every matching row from the table for its id (SQLite: the same plan).
 */
const countAll = (builder: Knex.QueryBuilder) => builder.clone().clearSelect().clearOrder().count({ total: '*' })

class SqliteDialect implements Dialect {
  readonly client = 'sqlite3' as const
  readonly adapterOperators = {}
  private readonly samples = new TrigramStatistics(fts5Trigrams)

  async searchList(db: Knex, table: string, query: Record<string, unknown>): Promise<ListSearch> {
    // The candidates the trigram index names, read by id; the LIKE/GLOB decides (search-index.ts).
    const candidates = await searchCandidates(db, table, query, this.samples)
    const { query: rest, likes } = takeSqliteLikes(query)
    return {
      query: rest,
      apply(builder) {
        for (const like of likes) builder.whereRaw(sqliteLikeSql(like), [`${table}.${like.field}`, like.pattern])
        narrowToCandidates(db, builder, table, candidates)
      }
    }
  }

  count = countAll

  forgetSamples() {
    this.samples.clear()
  }
}

class PostgresDialect implements Dialect {
  readonly client = 'pg' as const
  readonly adapterOperators = { $like: 'ilike' }
  private readonly samples = new TrigramStatistics(pgTrgmTrigrams)

  async searchList(db: Knex, table: string, query: Record<string, unknown>): Promise<ListSearch> {
    // Filters with a frequent trigram are written here, looked up by their rare parts; the
    // adapter writes the others as ILIKE.
    const narrowed = await pgNarrowedLikes(db, table, query, this.samples)
    return {
      query: narrowed.reduce((rest, { field }) => withoutLike(rest, field), query),
      apply: (builder) => applyNarrowedLikes(builder, table, narrowed)
    }
  }

  count = countAll

  forgetSamples() {
    this.samples.clear()
  }
}

/** The dialect of a database client: one per app, made when it starts. */
export const createDialect = (client: DatabaseClient): Dialect =>
  client === 'pg' ? new PostgresDialect() : new SqliteDialect()

/**
 * Locks the rows `query` selects against the other writers of the same rows until the
 * transaction ends: `FOR NO KEY UPDATE` on PostgreSQL (it leaves the key-share lock that a foreign
 * key check takes when another transaction inserts a row referencing them, so such inserts do not
 * wait and deadlock); nothing on SQLite, which runs one write transaction at a time.
 */
export function lockedForWrite<Q extends Knex.QueryBuilder>(trx: Knex.Transaction, query: Q): Q {
  return trx.client.config.client === 'pg' ? (query.forNoKeyUpdate() as Q) : query
}

/** The rows each transaction has locked with `lockedForWrite` and noted (`noteLocked`), as `table:id`. */
const lockedRows = new WeakMap<Knex.Transaction, Set<string>>()

/**
 * Notes that `trx` holds the write lock of row `id` of `table` (a `lockedForWrite` read found it), so
 * that a later lock of the same row in the same transaction needs no statement (`isLocked`). A row
 * lock lasts until the transaction ends; a savepoint is a transaction object of its own, whose notes
 * go with it.
 */
export function noteLocked(trx: Knex.Transaction, table: string, id: number) {
  let rows = lockedRows.get(trx)
  if (!rows) lockedRows.set(trx, (rows = new Set()))
  rows.add(`${table}:${id}`)
}

/** Whether `trx` has noted the write lock of row `id` of `table` (`noteLocked`). */
export const isLocked = (trx: Knex.Transaction, table: string, id: number): boolean =>
  lockedRows.get(trx)?.has(`${table}:${id}`) ?? false

/**
 * An instant as a bound PostgreSQL's planner does not look at: `(select ?::timestamptz)`, worked
 * out once when the statement runs. For a named statement's range bound: with a plain parameter
 * the custom plans, whose ranges are known, look cheaper than the generic plan, so PostgreSQL
 * plans the statement anew at every execution; given this way the bound is estimated alike in
 * both, and after five executions the generic plan is kept and nothing is planned any more. Only
 * where the best index is the same for every value. SQLite (which keeps its statements prepared
 * by text) gets the value itself, as ISO text. `instant`: milliseconds or ISO text.
 */
export function unplannedInstant(db: Knex | Knex.Transaction, instant: number | string): Knex.Raw | string {
  const value = typeof instant === 'number' ? new Date(instant).toISOString() : instant
  return db.client.config.client === 'pg' ? db.raw('(select ?::timestamptz)', [value]) : value
}

/** A calendar day (`YYYY-MM-DD`) as a bound the planner does not look at: `unplannedInstant`'s `(select ?::date)`. */
export function unplannedDay(db: Knex | Knex.Transaction, day: string): Knex.Raw | string {
  return db.client.config.client === 'pg' ? db.raw('(select ?::date)', [day]) : day
}

/** Texts named by `nameOfText`, by purpose and text. */
const textNames = new Map<string, Map<string, string>>()

/**
 * How many texts `nameOfText` names in a process for one purpose: pg keeps a connection's named
 * statements as long as the connection lives, and PostgreSQL a plan for each, so the names must
 * be a bounded set; and one purpose's shapes must not use up another's.
 */
export const MAX_TEXT_NAMES = 200

/**
 * A PostgreSQL statement name for a statement whose text is built at run time from a bounded set
 * of shapes (the columns an UPDATE of sheet rows writes, the tables a look-up reads): the text's
 * hash, so one name always means one text, as pg requires. PostgreSQL then parses the text once
 * per connection and, after five executions, keeps its generic plan: only for statements whose
 * best plan is the same for every value (key look-ups, a user's index range with its bounds hidden,
 * a join of a JSON parameter's elements by primary key). The first MAX_TEXT_NAMES texts of a
 * `purpose` in the process are named; later ones go unnamed (planned at each execution, as before).
 */
export function nameOfText(purpose: string, sql: string): string | undefined {
  let names = textNames.get(purpose)
  if (!names) textNames.set(purpose, (names = new Map()))
  let name = names.get(sql)
  if (name === undefined && names.size < MAX_TEXT_NAMES) {
    name = `crewclock_${createHash('sha256').update(sql).digest('hex').slice(0, 32)}`
    names.set(sql, name)
  }
  return name
}

/**
 * Names `statement` on PostgreSQL by its text (`nameOfText`); SQLite keeps statements prepared by
 * text anyway. The text is compiled once: knex would compile the statement again when it runs
 * (its runner calls `toSQL`), so the statement is handed this compilation, with the name, for
 * that one run. A recomputation's read and UPDATE are named so; compiling them twice cost about
 * 0.2 ms of a POST time entry on this machine (docs/performance.md). Name a statement last and run
 * it at once: what is set on it afterwards (`.where`, `.options`, `.timeout`) would miss that run.
 */
export function namedByText<T extends Knex.Raw | Knex.QueryBuilder>(
  db: Knex | Knex.Transaction,
  purpose: string,
  statement: T
): T {
  if (db.client.config.client !== 'pg') return statement
  const compiled = statement.toSQL() as Knex.Sql & { options?: Record<string, unknown> }
  const name = nameOfText(purpose, compiled.sql)
  if (name === undefined) return statement
  statement.options({ name })
  // The compilation itself, its `toNative` kept, with the name its options now lack.
  compiled.options = Object.assign({}, compiled.options, { name })
  let used = false
  // An own `toSQL` shadows the builder's for this statement; a second call (a second run) compiles anew.
  const compile = statement.toSQL.bind(statement)
  Object.defineProperty(statement, 'toSQL', {
    configurable: true,
    writable: true,
    value: (...args: unknown[]) => {
      if (used || args.length > 0) return (compile as (...a: unknown[]) => unknown)(...args)
      used = true
      return compiled
    }
  })
  return statement
}
