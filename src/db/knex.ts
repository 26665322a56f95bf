import fs from 'node:fs'
import path from 'node:path'
import knex, { Knex } from 'knex'
import pg from 'pg'

// DATE stays a plain 'YYYY-MM-DD' string (the pg default turns it into a local-time Date),
// counts and bigint ids become numbers, NUMERIC figures become numbers.
pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value)
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value))
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number(value))

export type DatabaseClient = 'sqlite3' | 'pg'

declare module '../declarations' {
  interface Configuration {
    /** The pool, set by createApp(); a call inside a write uses `params.transaction.trx` instead. */
    knex: Knex
  }
}

// knex's SQLite client and transaction classes (the package has no typings for dialect internals).
const Sqlite3Client: new (config: Knex.Config) => {
  config: Knex.Config & {
    statementTimeoutMs?: number
    /**
     * The writer's watch over the WAL file's length, see `WalGuard`: on its configuration, which
     * knex shares with the writer's transactions (their clients copy its properties, not its fields).
     */
    walGuard?: WalGuard
  }
  _query(connection: unknown, obj: unknown): Promise<unknown>
  destroyRawConnection(connection: unknown): Promise<void>
  runner(builder: unknown): unknown
  destroy(callback?: (err?: unknown) => void): Promise<void>
  on(event: string, listener: (...args: unknown[]) => void): unknown
  emit(event: string, ...args: unknown[]): boolean
} = require('knex/lib/dialects/sqlite3')
const Sqlite3Transaction: new (...args: unknown[]) => {
  query(conn: unknown, sql: string, status?: number, value?: unknown): Promise<unknown>
  trxClient: { query(conn: unknown, sql: string): Promise<unknown> }
  _rejecter(error: unknown): void
  _resolver(value: unknown): void
  _completed: boolean
  client: { query(conn: unknown, sql: string): Promise<unknown> }
} = require('knex/lib/dialects/sqlite3/execution/sqlite-transaction')

/** The node-sqlite3 connection a pool hands to `afterCreate`. */
interface SqliteConnection {
  run(sql: string, callback: (err: Error | null) => void): void
}

/** A node-sqlite3 prepared statement, as far as the statement cache uses it. */
interface SqliteStatement {
  all(bindings: unknown[], callback: (this: SqliteStatement, err: Error | null, rows: unknown[]) => void): void
  /** Steps once; the callback's `this` carries `lastID` and `changes`, as `Database#run`'s does. */
  run(bindings: unknown[], callback: (this: SqliteStatement, err: Error | null) => void): void
  reset(callback: () => void): void
  finalize(callback: () => void): void
}

interface PreparingConnection {
  prepare(sql: string, callback: (err: Error | null) => void): SqliteStatement
}

/** A knex query as the client runs it. */
interface ClientQuery {
  sql: string
  bindings?: unknown[]
  method?: string
  /** Set by `.returning()`: the write answers rows (`Database#all`) instead of `lastID`/`changes`. */
  returning?: unknown
  response?: unknown
  context?: unknown
  /** What `.options()` set on the query. */
  options?: { keepPrepared?: boolean }
}

/** Statements kept prepared per connection; the least recently used one is finalized beyond it. */
const PREPARED_PER_CONNECTION = 200

/**
 * The prepared statements of one connection, by SQL text. node-sqlite3's `Database#all`
 * prepares a statement on its thread pool, runs it there, and finalizes it: two hand-overs
 * between threads per query, and the preparing and finalizing were ~15 % of a cached GET's CPU
 * (issue #22). A kept statement runs with one. Every run steps it to the end (`all`), which ends
 * its read transaction as a one-off statement's does, and rebinds it from the start.
 */
class PreparedStatements {
  private readonly statements = new Map<string, SqliteStatement>()

  constructor(private readonly connection: PreparingConnection) {}

  /**
   * Runs `sql` as `Database#all` (or `Database#run`) does, on the kept statement. A statement that
   * failed is reset before the error is handed on: SQLite leaves one that failed with SQLITE_BUSY
   * running (to be retried), and a running write keeps the connection's transaction open (COMMIT:
   * "SQL statements in progress") and a late interrupt armed for every later statement, until it
   * is reset. `run` is for writes without RETURNING: its one step ends them (SQLITE_DONE), and its
   * context carries `lastID` and `changes` for knex.
   */
  execute(
    sql: string,
    bindings: unknown[],
    method: 'all' | 'run' = 'all'
  ): Promise<{ rows: unknown[] | undefined; statement: SqliteStatement }> {
    return new Promise((resolve, reject) => {
      const run = (statement: SqliteStatement) => {
        try {
          if (method === 'run')
            statement.run(bindings, function (err) {
              if (err) statement.reset(() => reject(err))
              else resolve({ rows: undefined, statement: this })
            })
          else
            statement.all(bindings, (err, rows) =>
              err ? statement.reset(() => reject(err)) : resolve({ rows, statement })
            )
        } catch (error) {
          // A binding of a type SQLite does not take throws (as in `Database#all`).
          reject(error)
        }
      }
      const kept = this.statements.get(sql)
      if (kept) {
        // Most recently used last, so that the first is the one to finalize.
        this.statements.delete(sql)
        this.statements.set(sql, kept)
        return run(kept)
      }
      const statement = this.connection.prepare(sql, (err) => {
        if (err) return reject(err)
        const raced = this.statements.get(sql)
        if (raced) {
          // A query of the same text prepared it meanwhile (both ran at once): this copy is not kept,
          // and is finalized now, or SQLite would refuse to close the connection.
          statement.finalize(() => undefined)
          return run(raced)
        }
        if (this.statements.size >= PREPARED_PER_CONNECTION) {
          const [oldest, evicted] = this.statements.entries().next().value!
          this.statements.delete(oldest)
          // Runs after the calls already queued on it, if any (node-sqlite3 queues per statement).
          evicted.finalize(() => undefined)
        }
        this.statements.set(sql, statement)
        run(statement)
      })
    })
  }

  /** Finalizes every kept statement: SQLite does not close a connection that still has one. */
  async finalizeAll() {
    const statements = [...this.statements.values()]
    this.statements.clear()
    await Promise.all(statements.map((statement) => new Promise<void>((resolve) => statement.finalize(resolve))))
  }
}

/**
 * SQLite transactions take the write lock when they begin (BEGIN IMMEDIATE). With several
 * processes on one file (WEB_CONCURRENCY > 1), a transaction that reads first and writes later
 * fails with SQLITE_BUSY (a 503) as soon as another process has committed in between: its
 * snapshot is stale and waiting cannot help. One that starts as a writer waits for the lock
 * (busy_timeout) instead. In one process the one writing connection already runs one
 * transaction at a time, so nothing changes there.
 */
class ImmediateTransaction extends Sqlite3Transaction {
  begin(conn: unknown) {
    return this.query(conn, 'BEGIN IMMEDIATE;')
  }

  /**
   * An interrupted write (statement timeout) makes SQLite roll the whole transaction back
   * itself; knex's ROLLBACK then fails with "no transaction is active" and would replace the
   * error the caller must see (the timeout, a 503) with a generic one (a 500).
   */
  query(conn: unknown, sql: string, status?: number, value?: unknown) {
    if (status === 1 && /^COMMIT\b/i.test(sql)) return this.commitOrRollBack(conn, sql, value)
    if (status !== 2 || value === undefined || !/^ROLLBACK\b/i.test(sql)) return super.query(conn, sql, status, value)
    const rolledBack = this.trxClient.query(conn, sql).then(
      (res: unknown) => (this._rejecter(value), res),
      (err: unknown) =>
        this._rejecter(/no transaction is active/.test(String((err as Error | undefined)?.message)) ? value : err)
    )
    this._completed = true
    return rolledBack
  }

  /**
   * A COMMIT that fails (a deferred constraint, a full disk, an I/O error) leaves SQLite's
   * transaction open, and knex would hand the connection back to the pool inside it: every later
   * transaction on the one writer then failed with "cannot start a transaction within a
   * transaction". It is rolled back first (through the client: the transaction is complete by
   * then), and the transaction fails with the COMMIT's error.
   */
  private commitOrRollBack(conn: unknown, sql: string, value: unknown) {
    const committed = this.trxClient.query(conn, sql).then(
      (res: unknown) => (this._resolver(value), res),
      (error: unknown) =>
        this.client
          .query(conn, 'ROLLBACK;')
          .catch(() => undefined)
          .then(() => this._rejecter(error))
    )
    this._completed = true
    return committed
  }
}

/**
 * node-sqlite3 runs a statement on its thread pool, so the event loop is free to call
 * `Database#interrupt()` when the statement outlives the timeout: the statement fails with
 * SQLITE_INTERRUPT (a 503) and the transaction around it rolls back, as PostgreSQL's
 * statement_timeout does. Each pooled connection (the writer, each reader) runs one statement at
 * a time, so the interrupt cannot hit another request's statement.
 */
class Sqlite3ImmediateClient extends Sqlite3Client {
  /** The client of the read connections (the writer's only), see `withReaders`. */
  readers?: Sqlite3ImmediateClient
  /** The read connections' client that also waits for the writer (theirs only), see `eitherOf`. */
  either?: unknown
  /** The writer whose settings a reader follows (its statement timeout, changed by `withoutStatementTimeout`). */
  writer?: Sqlite3ImmediateClient
  /** Set on a transaction's client by knex. */
  transacting?: boolean

  transaction(...args: unknown[]) {
    return new ImmediateTransaction(this, ...args)
  }

  /**
   * A read outside a transaction runs on a read connection; everything else (writes, raw
   * statements other than a plain `select`, schema changes, transactions) on the writer's one.
   */
  runner(builder: RunnerBuilder) {
    const runner = super.runner(builder) as { client: unknown }
    if (onReaders(this, builder) && !this.config.walGuard?.tooLong) runner.client = readerFor(this, builder)
    return runner
  }

  async destroy(callback?: (err?: unknown) => void) {
    await this.readers?.destroy()
    return super.destroy(callback)
  }

  _query(connection: PreparingConnection & { interrupt?: () => void }, obj: ClientQuery) {
    const timeoutMs = (this.writer ?? this).config.statementTimeoutMs
    this.config.walGuard?.tick()
    const run = keepsStatement(obj) ? this.runPrepared(connection, obj) : super._query(connection, obj)
    if (!timeoutMs || typeof connection?.interrupt !== 'function') return run
    const timer = setTimeout(() => connection.interrupt!(), timeoutMs)
    return run.finally(() => clearTimeout(timer))
  }

  /** What knex's `_query` does with `Database#all`, on the connection's kept statement. */
  private async runPrepared(connection: PreparingConnection, obj: ClientQuery) {
    let statements = preparedStatements.get(connection)
    if (!statements) {
      statements = new PreparedStatements(connection)
      preparedStatements.set(connection, statements)
    }
    const { rows, statement } = await statements.execute(obj.sql, obj.bindings ?? [], runsOnce(obj) ? 'run' : 'all')
    obj.response = rows
    obj.context = statement
    return obj
  }

  async destroyRawConnection(connection: PreparingConnection) {
    await preparedStatements.get(connection)?.finalizeAll()
    return super.destroyRawConnection(connection)
  }
}

const preparedStatements = new WeakMap<PreparingConnection, PreparedStatements>()

/** What `runner` sees of a query builder or a raw statement. */
interface RunnerBuilder {
  /** A connection the caller chose (`.connection()`): never rerouted. */
  _connection?: unknown
  /** What `.options()` set, one object per call. */
  _options?: { onWriter?: boolean; onReader?: boolean; shortRead?: boolean }[]
  /** The query builder's method (`select`, `first`, `pluck`, `insert`, …); a raw statement has none. */
  _method?: string
  /** A raw statement's text. */
  sql?: unknown
}

/**
 * Statements that only read: the query builder's reads, and raw statements that are one plain
 * `select` (a `with` may hide a write on SQLite, so it stays on the writer). A statement judged
 * wrongly fails loudly: the read connections are `query_only`.
 */
const readsOnly = (builder: RunnerBuilder) =>
  marked(builder, 'onWriter')
    ? false
    : marked(builder, 'onReader')
      ? true
      : builder._method !== undefined
        ? READ_METHODS.has(builder._method)
        : typeof builder.sql === 'string' && /^\s*select\b/i.test(builder.sql) && !/;\s*\S/.test(builder.sql)

/** Whether `.options()` set `option` on `builder` (`ON_WRITER`, `ON_READER`, `SHORT_READ`). */
const marked = (builder: RunnerBuilder, option: 'onWriter' | 'onReader' | 'shortRead') =>
  builder._options?.some((options) => options[option] === true) === true

/** Whether `client` has read connections and `builder` is a read outside a transaction that chose no connection. */
const onReaders = (client: { readers?: unknown; transacting?: boolean }, builder: RunnerBuilder) =>
  client.readers !== undefined && !client.transacting && !builder._connection && readsOnly(builder)

/** What routing asks of a knex pool (tarn's). */
interface PoolLoad {
  numUsed(): number
  numFree(): number
  numPendingAcquires(): number
  numPendingCreates(): number
  max: number
}

/** Whether `client`'s pool would hand out a connection now: nobody waits, and one is free or may be opened. */
const hasRoom = ({ pool }: { pool?: PoolLoad }) =>
  !pool ||
  (pool.numPendingAcquires() === 0 && (pool.numFree() > 0 || pool.numUsed() + pool.numPendingCreates() < pool.max))

/**
 * The client a read outside a transaction runs on: the read connections', or, for a read marked
 * `SHORT_READ` that finds every one of them taken, `eitherOf`'s, which also waits for a main
 * connection and takes whichever comes first. Without that, a few long reads made every request
 * wait whose key was not in the key cache, writes included, though the writing connections were
 * idle (found by a review: five searches answered every tenant 503 on PostgreSQL). Only short
 * reads overflow: a long one on a writer's connection would hold up the writes (a second review).
 */
function readerFor(client: { readers?: unknown }, builder: RunnerBuilder): unknown {
  const readers = client.readers as { pool?: PoolLoad; either?: unknown }
  return marked(builder, 'shortRead') && !hasRoom(readers) ? readers.either : readers
}

/** What `eitherOf` uses of a knex client and its pool (tarn's). */
interface PooledClient {
  pool: { acquire(): { promise: Promise<object>; abort(): void } }
  releaseConnection(connection: object): Promise<void>
}

/**
 * The read connections' client for a short read that finds them all taken: it waits in both
 * lines, the read connections' and the main pool's, runs on the connection that comes first, and
 * withdraws from the other line (a connection handed out meanwhile goes straight back). It fails
 * when both waits fail (the acquire timeout). Chosen at the time of the read, when which pool frees
 * first cannot be known: a write that ends a millisecond later, or a search that ends at the
 * statement timeout (the first clean-clone CI of a version that chose one pool met that race).
 */
function eitherOf<C extends PooledClient>(readers: C, main: PooledClient): C {
  const lent = new WeakSet<object>()
  const either = Object.create(readers) as C & { acquireConnection(): Promise<object> }
  either.acquireConnection = () =>
    new Promise<object>((resolve, reject) => {
      let settled = false
      let failures = 0
      const waits = [readers, main].map((from) => ({ from, wait: from.pool.acquire() }))
      for (const { from, wait } of waits)
        wait.promise.then(
          (connection) => {
            if (settled) return void from.releaseConnection(connection)
            settled = true
            if (from === main) lent.add(connection)
            for (const other of waits) if (other.from !== from) other.wait.abort()
            resolve(connection)
          },
          (error: unknown) => {
            if (++failures === 2 && !settled) {
              settled = true
              // As knex words it (src/resources/errors.ts answers it with a 503).
              reject(
                (error as Error)?.name === 'TimeoutError'
                  ? new Error('Knex: Timeout acquiring a connection. The pool is probably full.')
                  : error
              )
            }
          }
        )
    })
  either.releaseConnection = (connection: object) =>
    lent.delete(connection) ? main.releaseConnection(connection) : readers.releaseConnection(connection)
  return either
}

/**
 * The queries knex builds, with bindings: the statements a request runs again and again. Reads
 * (`select`, `first`, `pluck`) since the read path's pass; writes (`insert`, `update`, `del`,
 * `counter`) since the write path's (issue #22): node-sqlite3's `Database#run` prepares, steps and
 * finalizes each write with two hand-overs to its thread pool, a kept one takes one, and a SQLite
 * write transaction holds the only connection while it waits (14–25 % less time per write
 * transaction in one process; docs/performance.md). Writes to indexed tables reach FTS5 through
 * the tables' triggers, inside the statement. Raw SQL (which may write FTS5 directly: with a raw
 * FTS5 write kept, the API tests met a database locked for other connections) and statements
 * without bindings keep knex's own path.
 */
const READ_METHODS = new Set(['select', 'first', 'pluck'])
const WRITE_METHODS = new Set(['insert', 'update', 'del', 'counter'])

/** Writes knex runs with `Database#run` (no RETURNING): their context must carry `lastID` and `changes`. */
const runsOnce = (obj: ClientQuery) =>
  obj.method === 'del' ||
  obj.method === 'counter' ||
  ((obj.method === 'insert' || obj.method === 'update') && !obj.returning)

/**
 * `.options(KEEP_PREPARED)` keeps a raw statement prepared on SQLite as well: a write of a
 * transaction whose text repeats from request to request (the sheet rows' update, the event log's
 * append). `all` steps it to its end, so once it has answered it holds nothing the transaction's
 * COMMIT or another connection could wait for. Only for plain tables: not for FTS5 (above).
 */
export const KEEP_PREPARED = { keepPrepared: true } as const

/**
 * `.options(ON_WRITER)` runs a read on SQLite's writer connection instead of a read connection:
 * for a read whose answer must wait for the write transactions queued before it (and the
 * statements their requests run after them), as every read did on the one connection. On
 * PostgreSQL it keeps a read on the main pool instead of the read pool.
 */
export const ON_WRITER = { onWriter: true } as const

/**
 * `.options(SHORT_READ)` marks a read outside a transaction as short and on a request's critical
 * path (an API key's look-up, which a write needs before its transaction): when every read
 * connection is taken (long reads, a substring search on each), it also waits for a connection of
 * the main pool (SQLite: the writer) and runs on whichever comes first (`eitherOf`). Unmarked
 * reads wait for a read connection, so a long search never takes a writer's.
 */
export const SHORT_READ = { shortRead: true } as const

/**
 * `.options(ON_READER)` runs a raw statement outside a transaction on the read connections
 * (SQLite) or the read pool (PostgreSQL), as a query builder's read runs: for a raw statement
 * that reads only, though it is not one plain `select` (the event log's horizon: a `with` that
 * takes a lock for the statement and reads a sequence). Those connections refuse to write.
 */
export const ON_READER = { onReader: true } as const

/**
 * The statements that open and close every write transaction: kept too (without bindings). Each
 * one-off is a prepare and a run, then a finalize, on the pool thread, all while the transaction
 * holds the only writer; kept, one hand-over each.
 */
const TRANSACTION_EDGES = new Set(['BEGIN IMMEDIATE;', 'COMMIT;'])

const keepsStatement = (obj: ClientQuery) =>
  TRANSACTION_EDGES.has(obj.sql) ||
  (Boolean(obj.sql) &&
    Array.isArray(obj.bindings) &&
    obj.bindings.length > 0 &&
    (READ_METHODS.has(obj.method ?? '') ||
      (WRITE_METHODS.has(obj.method ?? '') && boundBytes(obj.bindings) <= KEPT_WRITE_BYTES) ||
      (obj.method === 'raw' && obj.options?.keepPrepared === true)))

/**
 * A kept statement holds its last bound values until it runs again or is finalized (SQLite copies
 * them, a reset does not clear them): a write that carries more than this (a stored response
 * body, a note of pages) runs as a one-off, so that no connection keeps up to 200 such copies.
 */
const KEPT_WRITE_BYTES = 8192

const boundBytes = (bindings: unknown[]) => {
  let bytes = 0
  for (const value of bindings)
    if (typeof value === 'string') bytes += value.length * 3
    else if (Buffer.isBuffer(value)) bytes += value.length
    else bytes += 8
  return bytes
}

/** How long past `statement_timeout` the client waits for an answer before it gives up on the connection. */
const answerGraceMs = (statementTimeoutMs: number) => Math.max(1000, statementTimeoutMs / 2)

type PgConnection = { connection?: { stream?: { destroy: () => void } }; __knex__disposed?: unknown }
type PgQuery = (this: unknown, connection: PgConnection, obj: unknown) => Promise<unknown>

/**
 * PostgreSQL's refusal to run a prepared statement whose result columns changed type since it was
 * prepared (0A000, raised where it revalidates a cached plan; the message is translated with the
 * server's `lc_messages`, the routine is not).
 */
export const isStalePlan = (error: unknown) => {
  const { code, routine, message } = (error ?? {}) as { code?: unknown; routine?: unknown; message?: unknown }
  return (
    code === '0A000' &&
    (routine === 'RevalidateCachedQuery' || /cached plan must not change result type/.test(String(message)))
  )
}

// knex's PostgreSQL client class (no typings for dialect internals).
const PgClient: new (config: Knex.Config) => {
  config: Knex.Config
  _query(connection: PgConnection, obj: unknown): Promise<unknown>
  runner(builder: unknown): unknown
  positionBindings(sql: string): string
  destroy(callback?: (err?: unknown) => void): Promise<void>
  on(event: string, listener: (...args: unknown[]) => void): unknown
  emit(event: string, ...args: unknown[]): boolean
} = require('knex/lib/dialects/postgres')

/** How many statement texts keep their numbered form (`positionBindings`); past it, the rest are numbered each time. */
const POSITIONED_TEXTS = 2_000

/**
 * knex numbers a statement's placeholders (`?` → `$1`, `$2`, …) with a regular expression over
 * the whole text every time the statement runs. The texts are few (the query builder's shapes and
 * the templates of src/db/statement-shapes.ts, whose text is one string object per shape), so each
 * is numbered once. The numbering depends on the text alone.
 */
const positioned = new Map<string, string>()

/**
 * A client class with `guarded` around every query, its transactions' included: knex builds a
 * transaction's client from the prototype of the client's class, so an override on the instance
 * reached only the queries outside transactions. Given to knex as `client`; createKnex then sets
 * `config.client` back to 'pg' for the code that asks which database it runs on.
 */
function guardedPgClient(guarded: (query: PgQuery) => PgQuery) {
  const query = guarded(PgClient.prototype._query)
  return class GuardedPgClient extends PgClient {
    /** The client of the read pool (the main pool's only), see `withPgReaders`. */
    readers?: GuardedPgClient
    /** The read pool's client that also waits for a main connection (the read pool's only), see `eitherOf`. */
    either?: unknown
    /** Set on a transaction's client by knex. */
    transacting?: boolean

    _query(connection: PgConnection, obj: unknown) {
      return query.call(this, connection, obj)
    }

    positionBindings(sql: string) {
      let numbered = positioned.get(sql)
      if (numbered === undefined) {
        numbered = super.positionBindings(sql)
        if (positioned.size < POSITIONED_TEXTS) positioned.set(sql, numbered)
      }
      return numbered
    }

    /**
     * A query builder's read outside a transaction runs on the read pool. Raw statements stay
     * on the main pool unless marked `ON_READER`: some are reads only in name (`select setval(…)`,
     * `select pg_notify(…)`, advisory locks held by a session).
     */
    runner(builder: RunnerBuilder) {
      const runner = super.runner(builder) as { client: unknown }
      if (onReaders(this, builder) && (builder._method !== undefined || marked(builder, 'onReader')))
        runner.client = readerFor(this, builder)
      return runner
    }

    async destroy(callback?: (err?: unknown) => void) {
      await this.readers?.destroy()
      return super.destroy(callback)
    }
  }
}

/**
 * - A named prepared statement (`.options({ name })`) keeps the result types it was prepared with
 *   on its connection: after a migration changed the type of a column it returns (a rolling
 *   upgrade, the old instances still serving), each later use there fails with 0A000 "cached plan
 *   must not change result type". The connection is then marked disposed, so knex's pool closes it
 *   instead of handing it out again, and the next request prepares the statement anew on another;
 *   the failed request answers 503 (src/resources/errors.ts) with nothing of it written.
 * - `statement_timeout` is enforced by the server: a host that stops answering altogether (a
 *   paused VM, a network partition) never cancels anything, and without TCP keepalive the request
 *   would wait forever. When no answer has come some time after the server should have cancelled
 *   the statement, the connection is cut: the query fails as "Connection terminated" (a 503), knex
 *   discards the connection, and the server rolls back the transaction when it sees the close.
 *   A connection runs its statements one after another (a transaction's `Promise.all` queues them),
 *   so a statement's wait starts when the ones before it on its connection have answered.
 */
interface Watch {
  /** Statements sent on the connection and not yet answered. */
  waiting: number
  /** The clock of the first of them: it cuts the connection when it fires while one waits. */
  timer: NodeJS.Timeout
}

/** A statement was answered: the next one queued on its connection starts waiting now, its clock with it. */
const answered = (watch: Watch) => {
  if (--watch.waiting > 0) watch.timer.refresh()
}

function pgQueryGuards(statementTimeoutMs: number) {
  const limitMs = statementTimeoutMs + answerGraceMs(statementTimeoutMs)
  const watches = new WeakMap<PgConnection, Watch>()
  /**
   * One clock per connection, re-armed (not re-created) as each statement starts waiting; it does
   * nothing when it fires on a connection with no statement waiting, and keeps no process alive.
   */
  const watchOf = (connection: PgConnection) => {
    let watch = watches.get(connection)
    if (!watch) {
      const created: Watch = {
        waiting: 0,
        timer: setTimeout(() => {
          if (created.waiting > 0) connection.connection?.stream?.destroy()
        }, limitMs).unref()
      }
      watches.set(connection, (watch = created))
    }
    return watch
  }
  const staleCheck = (connection: PgConnection, error: unknown) => {
    if (connection && isStalePlan(error)) connection.__knex__disposed = error
  }
  return (query: PgQuery): PgQuery =>
    function (this: unknown, connection: PgConnection, obj: unknown) {
      // Called first: a statement refused before it is sent (empty SQL) throws here, and starts no clock.
      const run = query.call(this, connection, obj)
      if (statementTimeoutMs <= 0 || !connection)
        return run.catch((error: unknown) => {
          staleCheck(connection, error)
          throw error
        })
      const watch = watchOf(connection)
      if (watch.waiting++ === 0) watch.timer.refresh()
      return run.then(
        (result: unknown) => {
          answered(watch)
          return result
        },
        (error: unknown) => {
          answered(watch)
          staleCheck(connection, error)
          throw error
        }
      )
    }
}

export interface DatabaseTimeouts {
  /** A statement running longer is cancelled (503); 0 = no limit (migrations). */
  statementTimeoutMs?: number
  /** A request waiting longer for a pooled connection fails (503). */
  acquireTimeoutMs?: number
}

/**
 * Defaults of `database.statementTimeoutMs` and `database.acquireTimeoutMs`: an unreachable
 * database (a connect that never completes) or a saturated pool answers promptly instead of
 * holding the client for knex's default of 60 s.
 */
export const DEFAULT_TIMEOUTS = { statementTimeoutMs: 10000, acquireTimeoutMs: 5000 }

/**
 * Every identifier of every query and every key of every row passes through one of these: the
 * names are a small fixed set, so each is converted once (a regex replace per key was a visible
 * part of a request's CPU time).
 */
function memoized(convert: (name: string) => string): (name: string) => string {
  const cache = new Map<string, string>()
  return (name) => {
    let converted = cache.get(name)
    if (converted === undefined) {
      converted = convert(name)
      // Names come from the code and the schema; the bound only guards against a runaway caller.
      if (cache.size < 10_000) cache.set(name, converted)
    }
    return converted
  }
}

export const snakeCase = memoized((name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`))
export const camelCase = memoized((name) => name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase()))

type Row = Record<string, unknown>

const camelCaseKeys = (row: Row) => {
  const result: Row = {}
  for (const key of Object.keys(row)) result[camelCase(key)] = row[key]
  return result
}

/** Compiled row mappers by column list (the statements' column lists are a fixed set, as the names are). */
const rowMappers = new Map<string, (row: Row) => Row>()

/**
 * A function that copies a row of `columns` into an object literal with camelCase keys, compiled
 * once per column list. The rows of one statement all have its columns, and a literal costs about
 * a twentieth of copying key by key (20 rows of 25 columns: 1.7 against 32 µs), which ran for every
 * row of every statement. Names are quoted by JSON.stringify, so a column can only be a string
 * literal in the code. A literal would take a `__proto__` key as the row's prototype: such a list
 * (no statement of ours has one) is copied key by key, as before.
 */
function rowMapper(columns: string[]): (row: Row) => Row {
  const signature = columns.join('\u0000')
  let mapper = rowMappers.get(signature)
  if (mapper === undefined) {
    if (columns.some((column) => camelCase(column) === '__proto__')) return camelCaseKeys
    const properties = columns.map((column) => `${JSON.stringify(camelCase(column))}: row[${JSON.stringify(column)}]`)
    mapper = new Function('row', `return { ${properties.join(', ')} }`) as (row: Row) => Row
    // Column lists come from the code (clients choose no columns); the bound guards against a runaway caller.
    if (rowMappers.size < 1_000) rowMappers.set(signature, mapper)
  }
  return mapper
}

const isPlainRow = (value: unknown): value is Row =>
  value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype

/** Whether `row`'s own keys are `columns`, in that order. */
function hasColumns(row: Row, columns: string[]): boolean {
  const keys = Object.keys(row)
  if (keys.length !== columns.length) return false
  for (let i = 0; i < keys.length; i++) if (keys[i] !== columns[i]) return false
  return true
}

/**
 * Rows with camelCase keys. The rows of one statement share its columns: the first row's keys
 * choose the mapper, and a row with other keys (a `pluck` of JSON documents) is copied key by key.
 */
export function camelCaseRows(result: unknown): unknown {
  if (Array.isArray(result)) {
    const first = result.find(isPlainRow)
    if (first === undefined) return result
    const columns = Object.keys(first)
    const mapper = rowMapper(columns)
    return result.map((row) => (isPlainRow(row) ? (hasColumns(row, columns) ? mapper(row) : camelCaseKeys(row)) : row))
  }
  return isPlainRow(result) ? camelCaseKeys(result) : result
}

/**
 * By default knex writes a failed statement into the error's message with the bound values
 * inlined. Those are request data (names, notes, e-mail addresses), and a 5xx is logged with its
 * error: the message keeps the SQL with its placeholders instead.
 */
const placeholdersInErrors: Pick<Knex.Config, 'compileSqlOnError'> = { compileSqlOnError: false }

/**
 * Columns are snake_case in the database and camelCase in the code: knex's documented
 * identifier hooks translate in both directions, so no service maps names by hand.
 */
const caseMapping: Pick<Knex.Config, 'wrapIdentifier' | 'postProcessResponse'> = {
  wrapIdentifier: (value, origImpl) => origImpl(typeof value === 'string' && value !== '*' ? snakeCase(value) : value),
  postProcessResponse: camelCaseRows
}

export function clientOf(url: string): DatabaseClient {
  if (/^postgres(ql)?:\/\//.test(url)) return 'pg'
  if (/^sqlite:/.test(url)) return 'sqlite3'
  throw new Error(`DATABASE_URL must start with sqlite:// or postgres:// (got "${url.split(':')[0]}:")`)
}

export function sqliteFilename(url: string) {
  return url.replace(/^sqlite:(\/\/)?/, '')
}

/**
 * A session idle inside a transaction holds its locks and a connection: PostgreSQL ends it after
 * this long (a request's statements follow each other within milliseconds, so only a stuck
 * request ever reaches it).
 */
const idleInTransactionMs = (statementTimeoutMs: number) => Math.max(60000, 6 * statementTimeoutMs)

export function createKnex(
  url: string,
  pool: { min?: number; max?: number } = {},
  timeouts: DatabaseTimeouts = {},
  sqlite: { walLimitBytes?: number } = {}
): Knex {
  const client = clientOf(url)
  const statementTimeoutMs = timeouts.statementTimeoutMs ?? DEFAULT_TIMEOUTS.statementTimeoutMs
  const acquireConnectionTimeout = timeouts.acquireTimeoutMs ?? DEFAULT_TIMEOUTS.acquireTimeoutMs
  if (client === 'pg') {
    const session = utcSession(url)
    const config = {
      client: guardedPgClient(pgQueryGuards(statementTimeoutMs)) as unknown as typeof Knex.Client,
      // Sent in the startup packet, so every pooled session has them without an extra round trip.
      // A statement that waits for a lock counts its wait: statement_timeout also bounds lock waits.
      connection: {
        ...session,
        ...(statementTimeoutMs > 0
          ? {
              statement_timeout: statementTimeoutMs,
              idle_in_transaction_session_timeout: idleInTransactionMs(statementTimeoutMs)
            }
          : {})
      } as Knex.PgConnectionConfig,
      acquireConnectionTimeout,
      ...caseMapping,
      ...placeholdersInErrors
    }
    const max = pool.max ?? 10
    const db = knex({ ...config, pool: { min: pool.min ?? 0, max } })
    db.client.config.client = 'pg'
    withPgReaders(db.client as unknown as GuardedPgClient, {
      ...config,
      // A statement judged a read wrongly fails loudly instead of writing.
      connection: { ...config.connection, options: `${session.options} -c default_transaction_read_only=on` },
      pool: { min: 0, max: pgReaderCount(max) }
    })
    return db
  }
  const filename = sqliteFilename(url)
  if (filename !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(filename)), { recursive: true })
  // Waiting for another process's write lock is bounded like any statement (then SQLITE_BUSY, a 503).
  const busyTimeoutMs = statementTimeoutMs > 0 ? statementTimeoutMs : DEFAULT_TIMEOUTS.statementTimeoutMs
  const walLimitBytes = sqlite.walLimitBytes ?? WAL_LIMIT_BYTES
  const config = {
    client: Sqlite3ImmediateClient as unknown as typeof Knex.Client,
    connection: { filename },
    useNullAsDefault: true,
    acquireConnectionTimeout,
    statementTimeoutMs,
    ...caseMapping,
    ...placeholdersInErrors
  }
  const db = knex({
    ...config,
    // One connection writes: SQLite serialises writers anyway, and a single connection makes
    // transactions and foreign keys behave the same as on PostgreSQL.
    pool: {
      min: 1,
      max: 1,
      // `optimize` (SQLite's advice for long-lived connections) gathers the statistics the query
      // planner needs, for tables that have none or have grown since: without them it picks a
      // one-column index over the (company, user, start) one for a user's month of time entries.
      afterCreate: (conn: SqliteConnection, done: (err: Error | null, conn: unknown) => void) => {
        conn.run('PRAGMA foreign_keys = ON', () =>
          conn.run('PRAGMA journal_mode = WAL', () =>
            conn.run(`PRAGMA busy_timeout = ${Math.floor(busyTimeoutMs)}`, (err: Error | null) =>
              // A WAL that grew is cut back to this when SQLite starts it again (WalGuard).
              conn.run(`PRAGMA journal_size_limit = ${Math.floor(walLimitBytes / 4)}`, () =>
                // Statistics are an optimisation: a failure (a read-only file) must not refuse the connection.
                conn.run('PRAGMA analysis_limit = 1000', () =>
                  conn.run('PRAGMA optimize = 0x10002', () => done(err, conn))
                )
              )
            )
          )
        )
      }
    }
  } as Knex.Config)
  if (filename === ':memory:' || filename === '') return db
  const writer = db.client as unknown as Sqlite3ImmediateClient
  writer.config.walGuard = new WalGuard(`${path.resolve(filename)}-wal`, walLimitBytes)
  const readerCount = Math.max(1, Math.min(pool.max ?? READERS, READERS))
  withReaders(writer, {
    ...config,
    pool: {
      min: 0,
      max: readerCount,
      // Kept: an idle reader closed would take its prepared statements with it.
      idleTimeoutMillis: 2 ** 31 - 1,
      afterCreate: (conn: SqliteConnection, done: (err: Error | null, conn: unknown) => void) => {
        conn.run(`PRAGMA busy_timeout = ${Math.floor(busyTimeoutMs)}`, (err: Error | null) =>
          conn.run('PRAGMA query_only = ON', (queryOnly: Error | null) => done(err ?? queryOnly, conn))
        )
      }
    }
  } as Knex.Config)
  return db
}

/** WAL bytes past which SQLite reads move to the writer until the log starts again (WalGuard). */
const WAL_LIMIT_BYTES = 64 * 1024 * 1024

/** Writer statements between two looks at the WAL file's length. */
const WAL_CHECK_EVERY = 32

/**
 * SQLite starts its WAL again from the beginning only when a checkpoint has copied every frame
 * into the database and no reader still reads an older snapshot from it. Reads that overlap
 * without a pause (long `$like` scans on both read connections) can keep that from ever
 * happening, and the file then grows with every write (a review measured 50 MB for 3 000 writes
 * of 4 KB, against 4 MB with the reads on the writer). Every few writer statements the guard looks
 * at the file's length (a `stat` off the event loop); past the limit, reads run on the writer, as
 * they did before the read connections, until the log has started again and `journal_size_limit`
 * has cut the file back (a quarter of the limit).
 */
class WalGuard {
  /** Reads go to the writer while set. */
  tooLong = false
  private statements = 0
  private looking = false

  constructor(
    private readonly file: string,
    private readonly limitBytes: number
  ) {}

  tick() {
    if (++this.statements % WAL_CHECK_EVERY !== 0 || this.looking) return
    this.looking = true
    fs.promises
      .stat(this.file)
      .then(
        (stat) => (this.tooLong = stat.size > this.limitBytes),
        () => (this.tooLong = false)
      )
      .finally(() => (this.looking = false))
  }
}

/** Read connections per SQLite database and process (at most; fewer when `database.pool.max` is smaller). */
const READERS = 2

/**
 * Gives a SQLite writer read connections of its own. In WAL mode readers and the writer do not
 * wait for each other: a read outside a transaction (a request's key, a list, the checks before a
 * write) no longer queues behind a write transaction on the one connection, nor holds it while
 * a write waits. A read sees what was committed before it began, as on PostgreSQL, and never a
 * transaction's uncommitted rows (those are read inside it, on the writer). Its queries' events
 * are the writer's, so `knex.on('query')` hears them all.
 */
function withReaders(writer: Sqlite3ImmediateClient, config: Knex.Config) {
  const readers = new Sqlite3ImmediateClient(config)
  readers.writer = writer
  joinReaders(writer, readers)
}

/** What `joinReaders` uses of a client (SQLite's or PostgreSQL's). */
interface ReadingClient {
  readers?: unknown
  either?: unknown
  on(event: string, listener: (...args: unknown[]) => void): unknown
  emit(event: string, ...args: unknown[]): boolean
}

/**
 * Makes `readers` the read connections of `main`: their queries' events are the instance's (so
 * `knex.on('query')` hears them all), what knex reports about them (a failed acquire) goes to the
 * instance's logger, and a short read that finds them all taken may use a main connection (`eitherOf`).
 */
function joinReaders(main: ReadingClient, readers: ReadingClient) {
  for (const event of ['start', 'query', 'query-error', 'query-response'])
    readers.on(event, (...args: unknown[]) => main.emit(event, ...args))
  ;(readers as { logger?: unknown }).logger = (main as { logger?: unknown }).logger
  readers.either = eitherOf(readers as unknown as PooledClient, main as unknown as PooledClient)
  main.readers = readers
}

/**
 * The connections reads outside a transaction run on: the read connections, or (an in-memory
 * SQLite database, which has none) the one connection everything runs on.
 */
export function readConnectionsOf(db: Knex): number {
  const readers = (db.client as { readers?: { config: Knex.Config } }).readers
  return readers?.config.pool?.max ?? db.client.config.pool?.max ?? 1
}

type GuardedPgClient = InstanceType<ReturnType<typeof guardedPgClient>>

/**
 * Connections of a PostgreSQL read pool beside a main pool of `max`: half as many (at least one).
 * Reads are short (a page of a list, a row, a key); long ones (a substring search) take at most
 * these, never the writers' connections.
 */
export const pgReaderCount = (max: number) => Math.max(1, Math.ceil(max / 2))

/**
 * Gives a PostgreSQL pool a read pool of its own. Every connection of the main pool can be taken
 * by write transactions (a burst of clock-ins at 7:00: forty clients posting against ten
 * connections), and a read outside a transaction then queued behind all of them in the pool's
 * line: a dashboard's lists went from milliseconds to seconds while the writes lasted. On the
 * read pool they wait for reads only. A read sees what was committed before it began (READ
 * COMMITTED takes a snapshot per statement, on any connection), so it sees a request's own
 * committed write as it did from the main pool; a transaction reads its own rows on its own
 * connection. The sessions are read-only (`default_transaction_read_only`). Its queries' events
 * are the main pool's, so `knex.on('query')` hears them all.
 */
function withPgReaders(main: GuardedPgClient, config: Knex.Config) {
  const Client = main.constructor as new (config: Knex.Config) => GuardedPgClient
  const readers = new Client(config)
  readers.config.client = 'pg'
  joinReaders(main, readers)
}

/**
 * The connection string and startup `options` of a PostgreSQL session whose time zone is UTC,
 * whatever the server's or the role's default. Timestamps then come back as text in UTC where a
 * statement returns them as text (`row_to_json`, src/db/json-rows.ts): in a zone whose offset had
 * seconds (Africa/Monrovia until 1972: `-00:44:30`) that text was no ISO 8601 `Date.parse` reads
 * (found by a review). `options` in the URL are kept, the time zone is added after them (the last
 * `-c` of a setting wins); pg lets the URL's `options` override the configuration's, so they move
 * from the URL into it.
 */
function utcSession(url: string): { connectionString: string; options: string } {
  const utc = '-c TimeZone=UTC'
  if (!/[?&]options=/.test(url)) return { connectionString: url, options: utc }
  const parsed = new URL(url)
  const own = parsed.searchParams.get('options') ?? ''
  parsed.searchParams.delete('options')
  return { connectionString: parsed.toString(), options: `${own} ${utc}`.trim() }
}

/**
 * Runs `work` with no statement timeout: migrations (an index built over a large table) may
 * rightly run longer than any request. PostgreSQL sets the timeout per session, so the work gets
 * a short-lived pool of its own; SQLite's interrupt reads the limit at each statement.
 */
export async function withoutStatementTimeout<T>(db: Knex, work: (untimed: Knex) => Promise<T>): Promise<T> {
  const config = db.client.config as Knex.Config & { statementTimeoutMs?: number }
  if (config.client !== 'pg') {
    const saved = config.statementTimeoutMs
    config.statementTimeoutMs = 0
    try {
      return await work(db)
    } finally {
      config.statementTimeoutMs = saved
    }
  }
  const {
    statement_timeout: _s,
    idle_in_transaction_session_timeout: _i,
    ...connection
  } = config.connection as Record<string, unknown>
  const untimed = knex({ ...config, connection, pool: { min: 0, max: 2 } } as Knex.Config)
  try {
    return await work(untimed)
  } finally {
    await untimed.destroy()
  }
}
