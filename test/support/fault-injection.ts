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
    this.proto.query = function (this: { config: unknown }, connection: { __knexTxId?: string }, query: string | { sql: string }) {
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
