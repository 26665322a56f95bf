import pg from 'pg'

/**
 * Watches every PostgreSQL connection of the test process for a statement sent while the same
 * connection still runs another. pg 8 queues it and only warns, once per process ("Calling
 * client.query() when the client is already executing a query is deprecated"); pg 9 will refuse
 * it. A transaction's `Promise.all` is how it happens. The root hooks name the tests during which
 * it happened, with the stack of each call that sent the second statement, and fail the run at its
 * end (a failing root `afterEach` would skip every later test instead).
 * Not watched: cursors and streams (submittables, which report their end by events of their own),
 * the child processes some tests start, and a statement sent from the callback of one that failed
 * (pg calls it before the server is ready again; pg 8 does not warn about that either).
 */
const running = new WeakMap<object, number>()
const overlaps: string[] = []
let currentTest = '(outside a test)'

type Done = (...args: unknown[]) => void
const query = pg.Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown

pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const config = args[0] as { submit?: unknown; text?: string; callback?: unknown } | string | null | undefined
  if (typeof config === 'object' && typeof config?.submit === 'function') return query.apply(this, args)
  if ((running.get(this) ?? 0) > 0) {
    const text = typeof config === 'string' ? config : String(config?.text)
    overlaps.push(`${currentTest}: ${text.slice(0, 120)}\n${new Error('sent here').stack}`)
  }
  running.set(this, (running.get(this) ?? 0) + 1)
  let settled = false
  const settle = () => {
    if (settled) return
    settled = true
    running.set(this, (running.get(this) ?? 1) - 1)
  }
  const settleThen =
    (done: Done) =>
    (...result: unknown[]) => {
      settle()
      done(...result)
    }
  const last = args.length - 1
  if (typeof args[last] === 'function') args[last] = settleThen(args[last] as Done)
  else if (typeof config === 'object' && typeof config?.callback === 'function')
    args[0] = { ...config, callback: settleThen(config.callback as Done) }
  try {
    const result = query.apply(this, args) as Promise<unknown> | undefined
    if (result && typeof result.then === 'function') result.then(settle, settle)
    return result
  } catch (error) {
    settle()
    throw error
  }
} as typeof pg.Client.prototype.query

/** Names the test whose statements follow (the root hooks' `beforeEach`). */
export function watchTest(title: string) {
  currentTest = title
}

/** What was sent on a busy connection since the last call, and forgets it. */
export function takeOverlaps() {
  return overlaps.splice(0)
}
