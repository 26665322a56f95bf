import { TooManyRequests, Unavailable } from '@feathersjs/errors'

declare module '../declarations' {
  interface Configuration {
    /** Set by createApp(): how many list searches run at once (src/db/search-slots.ts). */
    searchSlots: SearchSlots
  }
}

/** How many searches may run at once, in all and per company. */
export interface SearchLimits {
  total: number
  perCompany: number
  /** How long a search waits for its turn before it is refused. */
  waitMs: number
  /** Searches of one company that may wait at once; the next one is refused at once. */
  maxWaiting: number
}

/**
 * Waiting searches of one company, past this many, are refused at once (429) instead of queued:
 * a bound on memory, above what one key's rate limit (6000 a minute) sends within a wait of 5 s.
 */
const MAX_WAITING_PER_COMPANY = 1000

/**
 * Limits for a process with `readConnections` read connections: searches together leave one of
 * them to every other read (a list, a record, a key's look-up), and one company's take at most
 * half of what searches may take, so another company's search still finds room.
 */
export function searchLimitsFor(readConnections: number, waitMs: number): SearchLimits {
  const total = Math.max(1, readConnections - 1)
  return { total, perCompany: Math.max(1, Math.floor(total / 2)), waitMs, maxWaiting: MAX_WAITING_PER_COMPANY }
}

interface Waiter {
  grant(): void
}

/**
 * Turns for list searches (lists filtered with `$like`), the one read whose cost grows with the
 * company's rows rather than the page: a substring of a frequent word is matched and counted in
 * every row (docs/decisions.md, "An exact `total`"). Each search holds a read connection while it
 * runs; without turns, a few long ones of one company took every read connection of the process,
 * and every other company's lists waited for them (docs/decisions.md, "Turns for searches").
 *
 * A search that finds no turn waits in its company's line. Turns go to the companies in rotation,
 * each line first come, first served, so one company's many searches delay another's by at most
 * one turn. A wait is bounded: after `waitMs` a company that holds all its own turns is told to
 * retry (429, `Retry-After`), and one that waited for other companies' searches gets 503, as a
 * request waiting for a database connection does.
 */
export class SearchSlots {
  private running = 0
  private readonly held = new Map<number, number>()
  /** Lines of waiting searches by company; the map's order is the rotation. */
  private readonly lines = new Map<number, Waiter[]>()

  constructor(readonly limits: SearchLimits) {}

  /** Searches running now. */
  get active() {
    return this.running
  }

  /** Waits for a turn of `companyId`; the returned function ends it (once; later calls do nothing). */
  async enter(companyId: number): Promise<() => void> {
    if (this.running < this.limits.total && this.heldBy(companyId) < this.limits.perCompany) return this.take(companyId)
    const line = this.lines.get(companyId) ?? []
    if (line.length >= this.limits.maxWaiting) throw tooManySearches()
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(timer)
          resolve(this.take(companyId))
        }
      }
      const timer = setTimeout(() => {
        const waiting = this.lines.get(companyId)!
        waiting.splice(waiting.indexOf(waiter), 1)
        if (waiting.length === 0) this.lines.delete(companyId)
        reject(this.heldBy(companyId) >= this.limits.perCompany ? tooManySearches() : othersSearching())
      }, this.limits.waitMs)
      line.push(waiter)
      this.lines.set(companyId, line)
    })
  }

  private heldBy(companyId: number) {
    return this.held.get(companyId) ?? 0
  }

  private take(companyId: number): () => void {
    this.running++
    this.held.set(companyId, this.heldBy(companyId) + 1)
    let ended = false
    return () => {
      if (ended) return
      ended = true
      this.running--
      const left = this.heldBy(companyId) - 1
      if (left === 0) this.held.delete(companyId)
      else this.held.set(companyId, left)
      this.grantWaiting()
    }
  }

  /**
   * Gives free turns to waiting searches: the first company in rotation that holds fewer than its
   * share, which then goes to the end of the rotation. Companies passed over hold their whole
   * share each, so a pass looks at no more than `total / perCompany` lines.
   */
  private grantWaiting() {
    while (this.running < this.limits.total) {
      let next: number | undefined
      for (const companyId of this.lines.keys())
        if (this.heldBy(companyId) < this.limits.perCompany) {
          next = companyId
          break
        }
      if (next === undefined) return
      const line = this.lines.get(next)!
      const waiter = line.shift()!
      this.lines.delete(next)
      if (line.length > 0) this.lines.set(next, line)
      waiter.grant()
    }
  }
}

const tooManySearches = () =>
  new TooManyRequests('Too many searches ($like filters) of this company at once; retry in 1 s', { retryAfter: 1 })

const othersSearching = () => new Unavailable('Too many searches at once on this server; try again shortly')
