import type { Knex } from 'knex'
import pg from 'pg'
import type { Logger } from 'pino'
import { clientOf, sqliteFilename } from './knex'

/**
 * Tells an in-process cache whether the rows it copied may have changed, through the database
 * itself, so that every writer is heard: this instance, another instance, a worker, the CLI, a
 * hand-written UPDATE on SQLite. `version()` changes after such a change was committed, and is
 * null while the signal cannot be trusted (a cache must then read the database every time).
 *
 * - SQLite: `PRAGMA data_version` on a connection of its own, which changes whenever any other
 *   connection (of any process) commits. Synchronous and exact: a commit that returned before a
 *   request began is always seen by it.
 * - PostgreSQL: `LISTEN` on a connection of its own; writers that change what the cache holds
 *   call `announceChange` in their transaction (delivered at commit, to every listening
 *   instance). While that connection is down, the signal is null; when it is back, the version
 *   moves (changes may have been missed meanwhile).
 */
export interface ChangeSignal {
  version(): number | null
  close(): Promise<void>
}

/** The notification channel on PostgreSQL: one per database, whatever the deployment's SYNC_KEY. */
export const CHANGE_CHANNEL = 'crewclock_auth_changed'

/** Inside the writer's transaction on PostgreSQL (a rolled-back write announces nothing); SQLite needs nothing. */
export async function announceChange(db: Knex | Knex.Transaction) {
  if (db.client.config.client === 'pg') await db.raw('select pg_notify(?, ?)', [CHANGE_CHANNEL, ''])
}

/** No signal: the cache is never trusted (an in-memory SQLite database, which no other connection sees). */
const NEVER: ChangeSignal = { version: () => null, close: async () => undefined }

export function createChangeSignal(url: string, logger: Logger): ChangeSignal {
  if (clientOf(url) === 'pg') return new PgChangeSignal(url, logger)
  const filename = sqliteFilename(url)
  return filename === ':memory:' || filename === '' ? NEVER : new SqliteChangeSignal(filename)
}

/** The part of better-sqlite3 used here (the package ships no typings). */
interface SqliteHandle {
  prepare(sql: string): { pluck(): { get(): unknown } }
  close(): void
}
const BetterSqlite3: new (
  filename: string,
  options: { fileMustExist: boolean }
) => SqliteHandle = require('better-sqlite3')

class SqliteChangeSignal implements ChangeSignal {
  private db: SqliteHandle | null = null
  private statement: { get(): unknown } | null = null
  private closed = false

  constructor(private readonly filename: string) {}

  version(): number | null {
    if (this.closed) return null
    try {
      // Opened on first use: the file exists once the app's own connection has created it.
      if (!this.statement) {
        this.db = new BetterSqlite3(this.filename, { fileMustExist: true })
        this.statement = this.db.prepare('PRAGMA data_version').pluck()
      }
      return Number(this.statement.get())
    } catch {
      this.db?.close()
      this.db = this.statement = null
      return null
    }
  }

  async close() {
    this.closed = true
    this.db?.close()
    this.db = this.statement = null
  }
}

/** Reconnects at once after a drop, then backs off to once every 2 s. */
const retryDelay = (attempt: number) => Math.min(50 * 2 ** attempt, 2000)

/**
 * A connection that does nothing but LISTEN. A database that stops answering without closing the
 * connection (a partition) would leave it deaf: it is asked `select 1` every `pingMs`, and
 * counts as down when the answer does not come within that time.
 */
class PgChangeSignal implements ChangeSignal {
  private client: pg.Client | null = null
  private listening = false
  private counter = 0
  private closed = false
  private attempt = 0
  private retry: NodeJS.Timeout | undefined
  private ping: NodeJS.Timeout | undefined
  private warned = false

  constructor(
    private readonly url: string,
    private readonly logger: Logger,
    private readonly pingMs = 2000
  ) {}

  version() {
    // Connected on first use, so that a process that never authenticates (a CLI command) opens nothing.
    if (!this.ping && !this.closed) {
      this.ping = setInterval(() => void this.check(), this.pingMs)
      this.ping.unref()
      void this.connect()
    }
    return this.listening ? this.counter : null
  }

  private async connect() {
    if (this.closed) return
    const client = new pg.Client({ connectionString: this.url, keepAlive: true })
    this.client = client
    client.on('notification', (message) => {
      if (message.channel === CHANGE_CHANNEL) this.counter++
    })
    client.on('error', () => this.lost(client))
    client.on('end', () => this.lost(client))
    try {
      await client.connect()
      // Listening never keeps a process alive: it ends when its work does, as without the cache.
      ;(client as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.()
      await client.query(`LISTEN ${CHANGE_CHANNEL}`)
      if (this.closed || this.client !== client) return void client.end().catch(() => undefined)
      // What changed while nobody listened is unknown: a new version empties the cache.
      this.counter++
      this.listening = true
      this.attempt = 0
      this.warned = false
    } catch (error) {
      if (!this.warned) this.logger.warn({ err: error }, 'change signal: cannot LISTEN; cached keys are not used')
      this.warned = true
      this.lost(client)
    }
  }

  private lost(client: pg.Client) {
    if (this.client !== client) return
    this.listening = false
    this.client = null
    client.end().catch(() => undefined)
    if (this.closed || this.retry) return
    this.retry = setTimeout(() => {
      this.retry = undefined
      void this.connect()
    }, retryDelay(this.attempt++))
    this.retry.unref()
  }

  private async check() {
    const client = this.client
    if (!client || !this.listening) return
    let timer: NodeJS.Timeout | undefined
    const silent = new Promise((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error('no answer')), this.pingMs)
    })
    try {
      await Promise.race([client.query('select 1'), silent])
    } catch {
      this.lost(client)
    } finally {
      clearTimeout(timer)
    }
  }

  async close() {
    this.closed = true
    this.listening = false
    clearInterval(this.ping)
    clearTimeout(this.retry)
    const client = this.client
    this.client = null
    await client?.end().catch(() => undefined)
  }
}
