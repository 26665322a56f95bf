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
 * The database's commit counter as SQLite itself keeps it, read with plain `pread()` calls and
 * without opening the database: a second SQLite connection would map the `-shm` file, and a
 * process that maps it dies (SIGBUS) when the database is replaced under it.
 * - WAL mode (the server's): the header of the WAL index (`-shm`, the first 48 bytes) holds
 *   `iChange`, which every write transaction of any connection increments when its commit becomes
 *   visible, with `mxFrame` and the salts. A read of the file sees what the writers' mappings
 *   wrote (the same page cache).
 * - Rollback journal: the database header's file change counter (bytes 24–27).
 * File sizes and modification times are not enough: a commit that overwrites WAL frames in place
 * within one tick of the kernel's coarse clock leaves both as they were.
 *
 * Every authenticated request asks, so the WAL index stays open and a request costs one `pread`
 * of its header and one `stat` of its path (opening, reading, closing and a `stat` of the main
 * file were ~10 % of a cached GET's CPU). The `stat` proves that the open file is still the
 * live one: SQLite deletes `-shm` when the last connection closes (the server's pool keeps one,
 * but a reconnect can leave none for a moment) and the next connection makes a new file, whose
 * commits the old one never shows. The header is read before the `stat`, so a same inode means it
 * was read from the live file (an inode cannot be reused while this descriptor holds it). Any
 * other answer closes it and takes the slow path, which compares the identities of both files.
 * The main file's identity (a database replaced by a restore) is only checked there: while a
 * `-shm` stays live, some connection still has the database open, and replacing the file under
 * an open connection is not something SQLite supports (it goes on reading the old file); a
 * restore with every connection closed removes the `-shm`, which the next request notices.
 *
 * The `-shm` must stay open: SQLite's locks are POSIX advisory locks, which belong to the process
 * and the file, so closing any descriptor of the file drops every lock the process holds on it,
 * those of its own SQLite connections included (sqlite.org/howtocorrupt.html, 2.2). The signal of
 * 93b344a opened and closed the `-shm` on every request: another process then checkpointed past
 * a snapshot this one was still reading, and a benchmark with three processes on one file ended
 * with "database disk image is malformed" (test/unit/db/change-signal.test.ts). It is closed only
 * when its path names another file or none (SQLite removed it, which it does only when no
 * connection has it open). The main file is opened and closed only while there is no `-shm`.
 */
class SqliteChangeSignal implements ChangeSignal {
  private readonly shm: string
  /** The live WAL index, open; null while there is none (rollback journal, no connection yet). */
  private walIndex: { fd: number; ino: bigint; dev: bigint } | null = null
  /** What the slow path saw: both files' identities and their counters. */
  private last = ''
  private counter = 0
  private closed = false
  private readonly header = Buffer.alloc(48)
  /** The WAL index header of the last call (`seenLength` bytes of it). */
  private readonly seen = Buffer.alloc(48)
  private seenLength = 0

  constructor(private readonly filename: string) {
    this.shm = `${filename}-shm`
  }

  version(): number | null {
    if (this.closed) return null
    try {
      if (this.walIndex && this.readLive(this.walIndex)) return this.counter
      this.reopen()
      return this.counter
    } catch {
      return null
    }
  }

  /** Reads the open WAL index's header; false when the file is no longer the one at its path. */
  private readLive(walIndex: { fd: number; ino: bigint; dev: bigint }): boolean {
    const length = fs.readSync(walIndex.fd, this.header, 0, 48, 0)
    const live = fs.statSync(this.shm, { bigint: true, throwIfNoEntry: false })
    if (!live || live.ino !== walIndex.ino || live.dev !== walIndex.dev) return false
    if (length !== this.seenLength || this.header.compare(this.seen, 0, length, 0, length) !== 0) {
      this.header.copy(this.seen, 0, 0, length)
      this.seenLength = length
      this.counter++
    }
    return true
  }

  /** Opens the WAL index at its path anew (if there is one) and compares everything with the last slow path. */
  private reopen() {
    this.closeWalIndex()
    const main = fs.statSync(this.filename, { bigint: true })
    let state: string
    const fd = openIfExists(this.shm)
    if (fd !== null) {
      // Kept from here on, even when a call below fails: closing it would drop this process's
      // locks on the file (see the class comment). A failed `fstat` leaves it open and unused.
      const { ino, dev } = fs.fstatSync(fd, { bigint: true })
      this.walIndex = { fd, ino, dev }
      this.seenLength = fs.readSync(fd, this.seen, 0, 48, 0)
      state = [main.ino, main.dev, ino, dev, this.seen.toString('hex', 0, this.seenLength)].join(':')
    } else {
      const mainFd = openIfExists(this.filename)
      if (mainFd === null) throw new Error('the database file is missing')
      try {
        const length = fs.readSync(mainFd, this.header, 24, 4, 24)
        state = [main.ino, main.dev, this.header.toString('hex', 24, 24 + length)].join(':')
      } finally {
        fs.closeSync(mainFd)
      }
    }
    if (state !== this.last) {
      this.last = state
      this.counter++
    }
  }

  private closeWalIndex() {
    if (!this.walIndex) return
    const { fd } = this.walIndex
    this.walIndex = null
    fs.closeSync(fd)
  }

  async close() {
    this.closed = true
    this.closeWalIndex()
  }
}

/** A read-only descriptor of `file`, or null when it does not exist. */
function openIfExists(file: string): number | null {
  try {
    return fs.openSync(file, 'r')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
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
