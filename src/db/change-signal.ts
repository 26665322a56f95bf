import fs from 'node:fs'
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
 * - SQLite: the commit counter SQLite keeps in the WAL index (`-shm`), which changes with every
 *   commit of any connection of any process. Synchronous: a commit that returned before a
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

/**
 * This process's PostgreSQL signals: a change this process commits moves them at once, when its
 * transaction commits, instead of when the NOTIFY comes back over their connection (a request
 * that follows its own revocation must not be answered from the cache).
 */
const localSignals = new Set<PgChangeSignal>()

/**
 * Inside the writer's transaction on PostgreSQL (a rolled-back write announces nothing): every
 * instance hears it at the commit, this one at once. SQLite needs nothing.
 */
export async function announceChange(db: Knex | Knex.Transaction) {
  if (db.client.config.client !== 'pg') return
  await db.raw('select pg_notify(?, ?)', [CHANGE_CHANNEL, ''])
  const heard = () => {
    for (const signal of localSignals) signal.heard()
  }
  const trx = db as Knex.Transaction
  if (trx.isTransaction) trx.executionPromise.then(heard, () => undefined)
  else heard()
}

/** No signal: the cache is never trusted (an in-memory SQLite database, which no other connection sees). */
const NEVER: ChangeSignal = { version: () => null, close: async () => undefined }

export function createChangeSignal(url: string, logger: Logger): ChangeSignal {
  if (clientOf(url) === 'pg') return new PgChangeSignal(url, logger)
  const filename = sqliteFilename(url)
  return filename === ':memory:' || filename === '' ? NEVER : new SqliteChangeSignal(filename)
}

/**
 * The database's commit counter as SQLite itself keeps it, read with plain `read()` calls and
 * without opening the database: a second SQLite connection would map the `-shm` file, and a
 * process that maps it dies (SIGBUS) when the database is replaced under it.
 * - WAL mode (the server's): the header of the WAL index (`-shm`, the first 48 bytes) holds
 *   `iChange`, which every write transaction of any connection increments when its commit becomes
 *   visible, with `mxFrame` and the salts. A read of the file sees what the writers' mappings
 *   wrote (the same page cache).
 * - Rollback journal: the database header's file change counter (bytes 24–27).
 * Plus the main file's identity (a database replaced by a restore). File sizes and modification
 * times are not enough: a commit that overwrites WAL frames in place within one tick of the
 * kernel's coarse clock leaves both as they were.
 */
class SqliteChangeSignal implements ChangeSignal {
  private readonly shm: string
  private last = ''
  private counter = 0
  private closed = false
  private readonly header = Buffer.alloc(48)

  constructor(private readonly filename: string) {
    this.shm = `${filename}-shm`
  }

  /** Up to `length` bytes of `file` from `offset`, as hex ('' when the file is missing or shorter). */
  private bytes(file: string, offset: number, length: number): string {
    let fd: number
    try {
      fd = fs.openSync(file, 'r')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ''
      throw error
    }
    try {
      return this.header.subarray(0, fs.readSync(fd, this.header, 0, length, offset)).toString('hex')
    } finally {
      fs.closeSync(fd)
    }
  }

  version(): number | null {
    if (this.closed) return null
    try {
      const main = fs.statSync(this.filename, { bigint: true })
      const walIndex = this.bytes(this.shm, 0, 48)
      const state = [main.ino, main.dev, walIndex, walIndex ? '' : this.bytes(this.filename, 24, 4)].join(':')
      if (state !== this.last) {
        this.last = state
        this.counter++
      }
      return this.counter
    } catch {
      return null
    }
  }

  async close() {
    this.closed = true
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
  ) {
    localSignals.add(this)
  }

  /** A change this process committed (`announceChange`): the cache must not serve what it held. */
  heard() {
    this.counter++
  }

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
    localSignals.delete(this)
    this.closed = true
    this.listening = false
    clearInterval(this.ping)
    clearTimeout(this.retry)
    const client = this.client
    this.client = null
    await client?.end().catch(() => undefined)
  }
}
