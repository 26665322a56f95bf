import assert from 'node:assert/strict'
import { forEachDatabase } from '../support/harness'
import { createKnex } from '../../src/db/knex'
import { toApiError } from '../../src/resources/errors'
import { FreezingRelay } from '../support/fault-injection'
import { takeOverlaps } from '../support/pg-one-at-a-time'

/**
 * The two guards every PostgreSQL statement runs through (src/db/knex.ts, `pgQueryGuards`), at their
 * edges, found by an outside review: a statement refused before it is sent leaves no timer behind;
 * statements queued on one transaction each get the bound, not their sum; a host that freezes
 * inside a transaction run as a callback (as every write is) answers 503, although knex reports the
 * failed ROLLBACK instead of the statement's error.
 */
const STATEMENT_TIMEOUT_MS = 1000
/** What the guard waits past statement_timeout (answerGraceMs in src/db/knex.ts). */
const GUARD_MS = STATEMENT_TIMEOUT_MS + Math.max(1000, STATEMENT_TIMEOUT_MS / 2)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

forEachDatabase('PostgreSQL query guards', (suite) => {
  beforeEach(function () {
    if (suite.db.name !== 'postgres') this.skip()
  })

  it('a statement refused before it is sent (empty SQL) leaves no timer behind to cut the connection later', async function () {
    this.timeout(GUARD_MS + 10000)
    const db = createKnex(suite.db.url, { max: 1 }, { statementTimeoutMs: STATEMENT_TIMEOUT_MS })
    db.client.logger.warn = () => undefined
    try {
      await assert.rejects(db.raw(''), /query is empty/)
      // Another request on the same (only) connection, its statements fast, spanning the guard's bound.
      const pids = await db.transaction(async (trx) => {
        const first = (await trx.raw('select pg_backend_pid() as pid')).rows[0].pid
        await sleep(GUARD_MS + 500)
        const second = (await trx.raw('select pg_backend_pid() as pid')).rows[0].pid
        return [first, second]
      })
      assert.equal(pids[0], pids[1])
    } finally {
      await db.destroy()
    }
  })

  it('statements queued on one transaction are bounded each, not by their sum', async function () {
    this.timeout(GUARD_MS * 3 + 10000)
    const db = createKnex(suite.db.url, { max: 1 }, { statementTimeoutMs: STATEMENT_TIMEOUT_MS })
    db.client.logger.warn = () => undefined
    const each = (0.8 * STATEMENT_TIMEOUT_MS) / 1000
    try {
      // Sent together, run one after the other (as checkReferences did with a write's transaction
      // until it sent them in turn): the service no longer does it, but a guard must not cut them.
      const results = await db.transaction((trx) =>
        Promise.all([1, 2, 3].map(() => trx.raw('select pg_sleep(?) as slept', [each])))
      )
      assert.equal(results.length, 3)
      // The watch of the root hooks (test/support/pg-one-at-a-time.ts) saw the two queued ones.
      assert.equal(takeOverlaps().length, 2)
    } finally {
      await db.destroy()
    }
  })

  it('a host that freezes inside a write transaction (container form) answers 503, not 500', async function () {
    this.timeout(GUARD_MS + 15000)
    const relay = new FreezingRelay(new URL(suite.db.url))
    await relay.start()
    const db = createKnex(relay.url(), {}, { statementTimeoutMs: STATEMENT_TIMEOUT_MS })
    db.client.logger.warn = () => undefined
    try {
      const error = await db
        .transaction(async (trx) => {
          await trx.raw('select 1')
          relay.freeze()
          await trx.raw('select 2')
        })
        .then(
          () => assert.fail('resolved while frozen'),
          (e: unknown) => e
        )
      const api = toApiError(error)
      assert.equal(api.code, 503, `${(error as Error).message} -> ${api.code} ${api.message}`)
    } finally {
      await relay.stop()
      await db.destroy()
    }
  })
})
