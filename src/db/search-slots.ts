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
  refuse(): void
}

/**
 * Turns for list searches (lists filtered with `$like`): the statement that reads a search's
 * matches costs what the company's matches cost (a substring of a frequent word is matched and
 * counted in every row; docs/decisions.md, "An exact `total`") and holds a read connection all
 * that time. Without turns, a few long searches of one company took every read connection of the
 * process, and every other company's lists waited for them (docs/decisions.md, "Turns for searches").
 *
 * A search that finds no turn waits in its company's line. A freed turn goes to the waiting
 * company that holds the fewest turns (below its share), each line first come, first served; among
 * equals, to the first in a rotation where a company whose search just ended goes behind the
 * others, so a newcomer waits for the rest of one search of a busy company, not for its next one
 * too. A wait is bounded: after `waitMs` a company that holds all its own turns is told to retry
 * (429, `Retry-After`), and one that waited for other companies' searches gets 503, as a request
 * waiting for a database connection does.
 */
export class SearchSlots {
  private running = 0
  private closed = false
  private readonly held = new Map<number, number>()
  /** Lines of waiting searches by company; the map's order is the rotation. */
  private readonly lines = new Map<number, Waiter[]>()

  constructor(readonly limits: SearchLimits) {}

  /** Searches running now. */
  get active() {
    return this.running
  }

  /** Searches waiting for a turn now. */
  get waiting() {
    let count = 0
    for (const line of this.lines.values()) count += line.length
    return count
  }

  /** Waits for a turn of `companyId`; the returned function ends it (once; later calls do nothing). */
  async enter(companyId: number): Promise<() => void> {
    if (this.closed) throw stopping()
    if (this.running < this.limits.total && this.heldBy(companyId) < this.limits.perCompany) return this.take(companyId)
    const line = this.lines.get(companyId) ?? []
    if (line.length >= this.limits.maxWaiting) throw tooManySearches()
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.leaveLine(companyId, waiter)
        reject(this.heldBy(companyId) >= this.limits.perCompany ? tooManySearches() : othersSearching())
      }, this.limits.waitMs)
      // A process that stops does not wait for a search's timer (close() refuses the search at once).
      timer.unref()
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(timer)
          resolve(this.take(companyId))
        },
        refuse: () => {
          clearTimeout(timer)
          reject(stopping())
        }
      }
      line.push(waiter)
      this.lines.set(companyId, line)
    })
  }

  /** Refuses every waiting search (503) and gives no more turns: the instance is stopping. */
  close() {
    this.closed = true
    for (const [companyId, line] of [...this.lines])
      for (const waiter of [...line]) {
        this.leaveLine(companyId, waiter)
        waiter.refuse()
      }
  }

  private leaveLine(companyId: number, waiter: Waiter) {
    const line = this.lines.get(companyId)!
    line.splice(line.indexOf(waiter), 1)
    if (line.length === 0) this.lines.delete(companyId)
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
      // A company whose search just ended goes behind the others that wait: a newcomer's search
      // waits for the rest of one search of a busy company, not for its next one as well.
      const line = this.lines.get(companyId)
      if (line) {
        this.lines.delete(companyId)
        this.lines.set(companyId, line)
      }
      this.grantWaiting()
    }
  }

  /**
   * Gives free turns to waiting searches: to the company that holds the fewest turns, and among
   * those to the first in the rotation; it then goes to the end of the rotation. A pass looks at
   * each company with a waiting search once.
   */
  private grantWaiting() {
    while (!this.closed && this.running < this.limits.total) {
      let next: number | undefined
      for (const companyId of this.lines.keys())
        if (
          this.heldBy(companyId) < this.limits.perCompany &&
          (next === undefined || this.heldBy(companyId) < this.heldBy(next))
        )
          next = companyId
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

const stopping = () => new Unavailable('The server is stopping; try again shortly')
