import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import { forEachDatabase, TestCompany } from '../support/harness'
import { createKnex } from '../../src/db/knex'
import { appendEvents, logHorizon } from '../../src/events/event-log'

/**
 * The PostgreSQL log lock (docs/decisions.md, "Readers never pass an event that commits later"):
 * appends hold the company's advisory lock shared, readers take it exclusively for a statement.
 * What a reader may cost the writers, and the locks a webhook subscription's position takes.
 */
forEachDatabase('event log horizon', (suite) => {
  const origin = { actor: { system: true as const }, requestId: 'horizon-test' }
  const event = { type: 'customers.created', scope: 'customers', data: { id: 0 } }
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

  /** Requests for the company's log lock (advisory, two keys), held and waiting. */
  async function logLocks(knex: Knex, company: TestCompany) {
    const { rows } = await knex.raw(
      "select mode, granted from pg_locks where locktype = 'advisory' and objsubid = 2 and objid = ?",
      [company.id]
    )
    return rows as { mode: string; granted: boolean }[]
  }

  async function until(check: () => Promise<boolean>, what: string) {
    const end = Date.now() + 10_000
    while (!(await check())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
      await sleep(20)
    }
  }

  it('a reader behind an open append gives up after HORIZON_WAIT_MS with the last horizon; writes queued behind it go on', async function () {
    if (suite.db.name !== 'postgres') return this.skip()
    const knex = suite.server().knex
    const company = await suite.company()
    // One connection and a statement timeout far above the wait: a reader that waited for the
    // open append until the timeout would hold the write below up for 20 s.
    const readerDb = createKnex(suite.db.url, { min: 1, max: 1 }, { statementTimeoutMs: 20_000 })
    const stuck = await knex.transaction()
    try {
      const [committed] = await knex.transaction((trx) => appendEvents(trx, company.id, [event], origin))
      const known = await logHorizon(readerDb, company.id)
      assert.ok(known! >= Number(committed.id))
      await appendEvents(stuck, company.id, [event], origin)
      const reading = logHorizon(readerDb, company.id)
      // The reader queues for the lock; a write of the company queues behind it.
      await until(
        async () => (await logLocks(knex, company)).some((l) => l.mode === 'ExclusiveLock' && !l.granted),
        'the reader to queue'
      )
      const write = company.api.post('/v1/customers', { companyName: 'While a reader waits' })
      // The reader gives up and answers the horizon it had: still true, since the open append drew above it.
      assert.equal(await reading, known)
      const res = await write
      assert.equal(res.status, 201, res.text)
      // The time-out was the statement's only: the connection waits as configured again.
      const { rows } = await readerDb.raw('show lock_timeout')
      assert.equal(rows[0].lock_timeout, '0')
    } finally {
      await stuck.rollback()
      await readerDb.destroy()
    }
    // With the append gone, the reader's horizon moves past the write.
    const after = await logHorizon(knex, company.id)
    const feed = await company.api.get('/v1/changes')
    assert.equal(feed.status, 200, feed.text)
    assert.ok(after! >= Number(feed.body.next))
    assert.deepEqual(
      feed.body.items.map((item: any) => item.type),
      ['customers.created', 'customers.created']
    )
    assert.equal(feed.body.items[1].data.companyName, 'While a reader waits')
  })

  it('reactivating a webhook subscription while another write of it is about to append: both go through (no deadlock)', async function () {
    if (suite.db.name !== 'postgres') return this.skip()
    const knex = suite.server().knex
    const company = await suite.company()
    const created = await company.api.post('/v1/webhook-subscriptions', { url: 'https://hooks.example.test/in' })
    assert.equal(created.status, 201, created.text)
    const id = created.body.id
    const off = await company.api.patch(`/v1/webhook-subscriptions/${id}`, { deactivatedAt: new Date().toISOString() })
    assert.equal(off.status, 200, off.text)
    // Another write of the subscription, as a PATCH runs it: the row's UPDATE, then the append.
    const other = await knex.transaction()
    let appended: unknown
    try {
      await other('webhook_subscriptions').where({ id }).update({ description: 'edited meanwhile' })
      const reactivation = company.api.patch(`/v1/webhook-subscriptions/${id}`, { deactivatedAt: null })
      // The reactivation waits for the row, and holds no log lock while it does.
      await until(async () => {
        const { rows } = await knex.raw(
          "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and wait_event = 'transactionid'"
        )
        return rows[0].n > 0
      }, 'the reactivation to wait for the row')
      assert.deepEqual(await logLocks(knex, company), [])
      appended = await appendEvents(other, company.id, [{ ...event, type: 'webhook-subscriptions.patched' }], origin)
      await other.commit()
      const res = await reactivation
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.deactivatedAt, null)
      assert.equal(res.body.description, 'edited meanwhile')
    } finally {
      if (!other.isCompleted()) await other.rollback()
    }
    assert.ok(appended)
    // The reactivated subscription starts after the other write's event.
    const stored = await knex('webhook_subscriptions').where({ id }).first('lastEventId')
    const [last] = appended as { id: string }[]
    assert.ok(Number(stored.lastEventId) >= Number(last.id), `position ${stored.lastEventId}, event ${last.id}`)
  })

  it('refuses to read the log when its sequence caches values (the horizon would pass ids other connections hold)', async function () {
    if (suite.db.name !== 'postgres') return this.skip()
    const knex = suite.server().knex
    const company = await suite.company()
    const fresh = createKnex(suite.db.url, { min: 0, max: 1 })
    await knex.raw('alter sequence event_log_id_seq cache 20')
    try {
      await assert.rejects(logHorizon(fresh, company.id), /event_log_id_seq caches 20 values.*CACHE 1/)
    } finally {
      await knex.raw('alter sequence event_log_id_seq cache 1')
    }
    // Once mended, the same process reads again.
    assert.equal(typeof (await logHorizon(fresh, company.id)), 'number')
    await fresh.destroy()
  })

  it('on SQLite there is no horizon: one writer at a time commits ids in order', async function () {
    if (suite.db.name !== 'sqlite') return this.skip()
    const company = await suite.company()
    assert.equal(await logHorizon(suite.server().knex, company.id), null)
  })
})
