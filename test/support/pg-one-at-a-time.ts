import pg from 'pg'

/**
 * Watches every PostgreSQL connection of the test process for a statement sent while the same
 * connection still runs another. pg 8 queues it and only warns, once per process ("Calling
 * client.query() when the client is already executing a query is deprecated"); pg 9 will refuse
 * it. A transaction's `Promise.all` is how it happens. The root hooks fail the test during which it
 * happened, with the stack of the call that sent the second statement.
 */
const running = new WeakMap<object, number>()
const overlaps: string[] = []

type Done = (...args: unknown[]) => void
const query = pg.Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown

pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  // A submittable (a cursor or a stream) reports its end through its own events: not counted.
  if (typeof (args[0] as { submit?: unknown })?.submit === 'function') return query.apply(this, args)
  if ((running.get(this) ?? 0) > 0) {
    const text = typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: string })?.text)
    overlaps.push(`${text.slice(0, 120)}\n${new Error('sent here').stack}`)
  }
  running.set(this, (running.get(this) ?? 0) + 1)
  const settle = () => running.set(this, (running.get(this) ?? 1) - 1)
  const last = args.length - 1
  if (typeof args[last] === 'function') {
    const done = args[last] as Done
    args[last] = (...result: unknown[]) => {
      settle()
      done(...result)
    }
    return query.apply(this, args)
  }
  const result = query.apply(this, args) as Promise<unknown> | undefined
  result?.then(settle, settle)
  return result
} as typeof pg.Client.prototype.query

/** What was sent on a busy connection since the last call, and forgets it. */
export function takeOverlaps() {
  return overlaps.splice(0)
}
