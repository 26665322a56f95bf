import type { ChangeSignal } from '../db/change-signal'

declare module '../declarations' {
  interface Configuration {
    /** Set by createApp(): the API keys that authenticated lately (src/auth/key-cache.ts). */
    apiKeyCache: KeyCache<unknown>
  }
}

interface Entry<T> {
  value: T
  expiresAt: number
}

/**
 * What a key's SHA-256 authenticated as (its company, acting user, scopes), kept in this process
 * so that a request with a known key costs no database round trip (issue #22). It is only as
 * good as its `signal` (src/db/change-signal.ts): every entry is dropped as soon as the database
 * reports a commit that may change a key (SQLite: any commit; PostgreSQL: an announced change:
 * a revocation, a deactivated owner, a company's new timezone), and nothing is used or kept while
 * the signal is unknown. `ttlMs` bounds an entry's age whatever happens; `maxEntries` its memory
 * (the oldest entry goes first). Only successes are kept: an unknown key asks the database every
 * time (and counts as a failed authentication), so guessing cannot fill the cache.
 */
export class KeyCache<T> {
  private readonly entries = new Map<string, Entry<T>>()
  /** The signal's version the entries were read at. */
  private version: number | null = null

  constructor(
    private readonly signal: ChangeSignal,
    private readonly options: { ttlMs: number; maxEntries: number }
  ) {}

  get enabled() {
    return this.options.ttlMs > 0 && this.options.maxEntries > 0
  }

  /** The signal's version now, after dropping every entry read before a change; null: do not use the cache. */
  private current(): number | null {
    if (!this.enabled) return null
    const version = this.signal.version()
    if (version !== this.version) {
      this.entries.clear()
      this.version = version
    }
    return version
  }

  /**
   * The cached value of `hash`, else `load(hash)`, kept when the database reported no change
   * while it loaded (a load that raced a revocation may have read the key before it).
   */
  async get(hash: string, load: (hash: string) => Promise<T | null>): Promise<T | null> {
    const version = this.current()
    if (version === null) return load(hash)
    const entry = this.entries.get(hash)
    if (entry && entry.expiresAt > Date.now()) return entry.value
    if (entry) this.entries.delete(hash)
    const value = await load(hash)
    if (value !== null && this.current() === version) this.set(hash, value)
    return value
  }

  private set(hash: string, value: T) {
    if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!)
    this.entries.set(hash, { value: deepFreeze(value), expiresAt: Date.now() + this.options.ttlMs })
  }

  /** Forgets every entry (a message on the bus said a key stopped working). */
  clear() {
    this.entries.clear()
  }

  get size() {
    return this.entries.size
  }
}

/** One request's params hold the cached objects themselves: a change to them would reach the next request. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const inner of Object.values(value)) deepFreeze(inner)
  }
  return value
}
