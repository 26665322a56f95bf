import net from 'node:net'
import type { Knex } from 'knex'

const CONTROL = /^\s*(begin|commit|rollback|savepoint|release|set transaction)\b/i
const WRITE = /^\s*(insert|update|delete)\b/i

export interface Statement {
  sql: string
  write: boolean
}

/**
 * Makes the n-th statement run inside a transaction of one knex instance fail, as a database
 * would (the query rejects; knex rolls the transaction back). Installed on the dialect's client
 * prototype, which knex's transaction clients inherit, and limited to this instance's config, so
 * other knex instances in the process are untouched. Transaction control statements are not
 * counted: the fault lands inside the work of the transaction.
 */
export class FaultInjector {
  private readonly proto: any
  private readonly original: (connection: unknown, query: unknown) => Promise<unknown>
  private readonly ownBefore: boolean
  private failAt = 0
  /** The statements run in transactions since the last `arm`. */
  statements: Statement[] = []
  fired = false

  constructor(readonly knex: Knex) {
    this.proto = Object.getPrototypeOf(knex.client)
    this.original = this.proto.query
    this.ownBefore = Object.hasOwn(this.proto, 'query')
    const config = knex.client.config
    const injector = this
    this.proto.query = function (
      this: { config: unknown },
      connection: { __knexTxId?: string },
      query: string | { sql: string }
    ) {
      const sql = typeof query === 'string' ? query : query.sql
      if (this.config === config && injector.failAt > 0 && connection?.__knexTxId && !CONTROL.test(sql)) {
        injector.statements.push({ sql, write: WRITE.test(sql) })
        if (injector.statements.length === injector.failAt) {
          injector.fired = true
          return Promise.reject(new Error('injected failure'))
        }
      }
      return injector.original.call(this, connection, query)
    }
  }

  /** The n-th (1-based) statement in a transaction from now on fails; `Infinity` only records. */
  arm(n: number) {
    this.failAt = n
    this.statements = []
    this.fired = false
  }

  disarm() {
    this.failAt = 0
  }

  uninstall() {
    if (this.ownBefore) this.proto.query = this.original
    else delete this.proto.query
  }
}

/**
 * A TCP relay in front of the test database whose open connections can be frozen: bytes stop
 * flowing both ways while the connections stay open, like a database host that hangs (a paused
 * VM, a network partition). No error reaches the client; only its own timers can end the wait.
 */
export class FreezingRelay {
  private server?: net.Server
  private readonly pairs = new Set<[net.Socket, net.Socket]>()
  private frozen = false
  port = 0

  constructor(readonly target: URL) {}

  /** `target` with its host and port replaced by the relay's. */
  url() {
    const u = new URL(this.target.toString())
    u.hostname = '127.0.0.1'
    u.port = String(this.port)
    return u.toString()
  }

  start(): Promise<void> {
    this.server = net.createServer((client) => {
      const upstream = net.connect(Number(this.target.port || 5432), this.target.hostname)
      const pair: [net.Socket, net.Socket] = [client, upstream]
      this.pairs.add(pair)
      for (const [from, to] of [pair, [upstream, client]]) {
        from.on('data', (chunk) => {
          if (!this.frozen) to.write(chunk)
        })
        from.on('error', () => to.destroy())
        from.on('close', () => (to.destroy(), this.pairs.delete(pair)))
      }
    })
    return new Promise((resolve) =>
      this.server!.listen(
        0,
        '127.0.0.1',
        () => ((this.port = (this.server!.address() as net.AddressInfo).port), resolve())
      )
    )
  }

  /** From now on nothing passes, in either direction, on any connection. */
  freeze() {
    this.frozen = true
  }

  async stop() {
    for (const pair of this.pairs) pair.forEach((socket) => socket.destroy())
    this.pairs.clear()
    await new Promise((resolve) => (this.server ? this.server.close(resolve) : resolve(undefined)))
  }
}
