import assert from 'node:assert/strict'
import net from 'node:net'
import type { Server } from 'node:http'
import type { Knex } from 'knex'
import { forEachDatabase, TestCompany } from '../support/harness'
import { HttpClient, HttpResponse } from '../support/http'
import { createApp } from '../../src/app'
import { createKnex, readConnectionsOf, withoutStatementTimeout } from '../../src/db/knex'
import { FreezingRelay } from '../support/fault-injection'
import type { Application } from '../../src/declarations'
import { appendEvents } from '../../src/events/event-log'
import { eventually, until, within } from '../support/wait'

/** Short limits, so a test waits seconds, not the production defaults. */
const STATEMENT_TIMEOUT_MS = 1000
const ACQUIRE_TIMEOUT_MS = 1000
/** Generous: the limit plus what a busy machine adds; a request that hangs still fails it. */
const SLACK_MS = 5000

forEachDatabase('database timeouts', (suite) => {
  /** An app instance of its own with short timeouts, on the suite's database. */
  async function timedApp(database: Record<string, unknown> = {}) {
    const shared = suite.server().app
    const app: Application = createApp({
      redisUrl: '',
      database: {
        url: suite.db.url,
        statementTimeoutMs: STATEMENT_TIMEOUT_MS,
        acquireTimeoutMs: ACQUIRE_TIMEOUT_MS,
        ...database
      },
      dataDir: shared.get('dataDir'),
      uploads: shared.get('uploads')
    } as any)
    // knex reports every failed acquire on the console; the tests assert on the answers instead.
    ;(app.get('knex' as any) as Knex).client.logger.warn = () => undefined
    const server: Server = await app.listen(0)
    const { port } = server.address() as net.AddressInfo
    return { app, http: new HttpClient(`http://127.0.0.1:${port}`) }
  }

  const assertUnavailable = (res: HttpResponse, what: string) => {
    assert.equal(res.status, 503, `${what}: ${res.text}`)
    assert.equal(res.body.name, 'Unavailable', what)
    assert.doesNotMatch(res.text, /select|insert|update|lock|sqlite|canceling/i, `${what}: no internals`)
  }

  /** Runs `request` while another connection holds a lock on `table`; returns its answer and how long it took. */
  async function whileLocked(table: string, request: () => Promise<HttpResponse>) {
    const locker = createKnex(suite.db.url, { min: 1, max: 1 }, { statementTimeoutMs: 0 })
    const release = async () => {
      await locker.raw('ROLLBACK').catch(() => undefined)
      await locker.destroy()
    }
    try {
      if (suite.db.name === 'postgres') {
        await locker.raw('BEGIN')
        // EXCLUSIVE lets the request read the table but not write it: the request's transaction
        // gets as far as its first write to the table, then waits.
        await locker.raw(`LOCK TABLE ${table} IN EXCLUSIVE MODE`)
      } else {
        // SQLite locks the whole file: the request's transaction cannot even begin.
        await locker.raw('BEGIN IMMEDIATE')
      }
      const started = Date.now()
      const res = await request()
      return { res, waited: Date.now() - started, release }
    } catch (error) {
      await release()
      throw error
    }
  }

  it('a write blocked by a lock answers 503 after the statement timeout, stores nothing, and the next request succeeds', async function () {
    const { app, http } = await timedApp()
    try {
      const company = await suite.company()
      const api = http.withKey(company.apiKey)
      assert.equal((await api.post('/v1/customers', { companyName: 'Before' })).status, 201)

      const { res, waited, release } = await whileLocked('customers', () =>
        api.post('/v1/customers', { companyName: 'During' })
      )
      try {
        assertUnavailable(res, 'create while the table is locked')
        assert.ok(waited < STATEMENT_TIMEOUT_MS + SLACK_MS, `answered after ${waited} ms`)
        // The process is alive and answers while the lock is still held.
        assert.equal((await http.get('/health')).status, 200)
      } finally {
        await release()
      }
      const names = (await api.get('/v1/customers')).body.items.map((c: any) => c.companyName)
      assert.deepEqual(names, ['Before'], 'the timed-out create left nothing behind')
      assert.equal((await api.post('/v1/customers', { companyName: 'After' })).status, 201)
      assert.deepEqual(
        (await api.get('/v1/customers')).body.items.map((c: any) => c.companyName),
        ['Before', 'After']
      )
    } finally {
      await app.teardown()
    }
  })

  it('a feed read behind an open append answers at once with what had committed, and writes go on (PostgreSQL)', async function () {
    if (suite.db.name !== 'postgres') return this.skip()
    const { app, http } = await timedApp()
    const knex = suite.server().knex
    try {
      const company = await suite.company()
      const api = http.withKey(company.apiKey)
      assert.equal((await api.post('/v1/customers', { companyName: 'Before' })).status, 201)
      const read = async () => {
        const res = await api.get('/v1/changes')
        assert.equal(res.status, 200, res.text)
        return res.body.items.map((event: any) => event.data.companyName)
      }
      assert.deepEqual(await read(), ['Before'])
      // An append left open (a stuck writer): it holds the company's log lock until it ends.
      const stuck = await knex.transaction()
      try {
        await appendEvents(stuck, company.id, [{ type: 'customers.created', scope: 'customers', data: { id: 0 } }], {
          actor: { system: true },
          requestId: 'stuck'
        })
        // The reader waits HORIZON_WAIT_MS for it, not the statement timeout (that would be a 503),
        // and answers with the log up to the horizon it read before; the company's writes go on.
        assert.deepEqual(await read(), ['Before'])
        const during = await Promise.all([api.post('/v1/customers', { companyName: 'During' }), read()])
        assert.equal(during[0].status, 201, during[0].text)
        assert.deepEqual(during[1], ['Before'])
      } finally {
        await stuck.rollback()
      }
      assert.deepEqual(await read(), ['Before', 'During'])
    } finally {
      await app.teardown()
    }
  })

  it('a write whose log append waits past the statement timeout answers 503 and stores nothing', async function () {
    const { app, http } = await timedApp()
    try {
      const company = await suite.company()
      const api = http.withKey(company.apiKey)
      const before = await api.post('/v1/customers', { companyName: 'Before' })
      assert.equal(before.status, 201, before.text)
      // PostgreSQL: the customer is written, the append waits (SQLite locks the file).
      const { res, waited, release } = await whileLocked('event_log', () =>
        api.post('/v1/customers', { companyName: 'During' })
      )
      try {
        assertUnavailable(res, 'create while the event log is locked')
        assert.ok(waited < STATEMENT_TIMEOUT_MS + SLACK_MS, `answered after ${waited} ms`)
      } finally {
        await release()
      }
      const names = (await api.get('/v1/customers')).body.items.map((c: any) => c.companyName)
      assert.deepEqual(names, ['Before'], 'the customer of the refused append was rolled back')
      const changes = (await api.get('/v1/changes')).body.items.map((e: any) => e.data.companyName)
      assert.deepEqual(changes.filter(Boolean), ['Before'], 'and logged nothing')
      const after = await api.post('/v1/customers', { companyName: 'After' })
      assert.equal(after.status, 201, after.text)
      assert.deepEqual(
        (await api.get('/v1/customers')).body.items.map((c: any) => c.companyName),
        ['Before', 'After']
      )
    } finally {
      await app.teardown()
    }
  })

  it('a time entry whose sheet recompute times out rolls back the entry and every sheet row', async function () {
    const { app, http } = await timedApp()
    try {
      const company: TestCompany = await suite.company()
      const api = http.withKey(company.apiKey)
      const type = (await api.get('/v1/time-entry-types', { isUnassigned: true })).body.items[0]
      const entry = { userId: company.adminUserId, typeId: type.id }
      const first = await api.post('/v1/time-entries', {
        ...entry,
        startsAt: '2026-11-02T07:00:00Z',
        endsAt: '2026-11-02T11:00:00Z'
      })
      assert.equal(first.status, 201, first.text)
      const sheets = async () => {
        const knex = suite.server().knex
        return {
          entries: await knex('time_entries').where({ companyId: company.id }).orderBy('id'),
          days: await knex('time_sheet_days').where({ companyId: company.id }).orderBy('id'),
          weeks: await knex('time_sheet_weeks').where({ companyId: company.id }).orderBy('id'),
          months: await knex('time_sheet_months').where({ companyId: company.id }).orderBy('id')
        }
      }
      // Sheet rows are stored when first read; read them so the recompute has rows to change.
      const read = await api.get('/v1/time-sheet-days/by-user', { userId: company.adminUserId, day: '2026-11-02' })
      assert.equal(read.status, 200, read.text)
      const before = await sheets()
      assert.ok(before.days.length > 0, 'the first entry made sheet rows')

      const { res, waited, release } = await whileLocked('time_sheet_days', () =>
        api.post('/v1/time-entries', { ...entry, startsAt: '2026-11-02T12:00:00Z', endsAt: '2026-11-02T15:00:00Z' })
      )
      try {
        assertUnavailable(res, 'time entry while the sheets are locked')
        assert.ok(waited < STATEMENT_TIMEOUT_MS + SLACK_MS, `answered after ${waited} ms`)
        assert.equal((await http.get('/health')).status, 200)
      } finally {
        await release()
      }
      assert.deepEqual(await sheets(), before, 'no entry and no sheet row changed')
      const again = await api.post('/v1/time-entries', {
        ...entry,
        startsAt: '2026-11-02T12:00:00Z',
        endsAt: '2026-11-02T15:00:00Z'
      })
      assert.equal(again.status, 201, again.text)
    } finally {
      await app.teardown()
    }
  })

  if (suite.db.name === 'postgres') {
    it('a database host that freezes mid-request (no answer, no error) still answers 503 within the bounds', async function () {
      const relay = new FreezingRelay(new URL(suite.db.url))
      await relay.start()
      const { app, http } = await timedApp({ url: relay.url() })
      try {
        const company = await suite.company()
        const api = http.withKey(company.apiKey)
        assert.equal((await api.post('/v1/customers', { companyName: 'Before' })).status, 201)
        relay.freeze()
        // statement_timeout cannot help: the server never sees the statement. The client gives up.
        let started = Date.now()
        assertUnavailable(await api.post('/v1/customers', { companyName: 'During' }), 'create while frozen')
        let waited = Date.now() - started
        assert.ok(waited < STATEMENT_TIMEOUT_MS + ACQUIRE_TIMEOUT_MS + SLACK_MS, `answered after ${waited} ms`)
        started = Date.now()
        assertUnavailable(await api.get('/v1/customers'), 'list while frozen')
        waited = Date.now() - started
        assert.ok(waited < STATEMENT_TIMEOUT_MS + ACQUIRE_TIMEOUT_MS + SLACK_MS, `answered after ${waited} ms`)
        assert.equal((await http.get('/health')).status, 200)
        const stored = await suite.server().knex('customers').where({ companyId: company.id }).select('companyName')
        assert.deepEqual(
          stored.map((row: any) => row.companyName),
          ['Before'],
          'the create cut off by the freeze stored nothing'
        )
      } finally {
        await relay.stop()
        await app.teardown()
      }
    })

    it('a database host that freezes inside a transaction fails its next statement within the bounds', async function () {
      // knex builds a transaction's client from the client's class, not from the instance: a guard
      // on the instance alone left every statement of a write transaction waiting for ever.
      const relay = new FreezingRelay(new URL(suite.db.url))
      await relay.start()
      const db = createKnex(relay.url(), {}, { statementTimeoutMs: STATEMENT_TIMEOUT_MS })
      db.client.logger.warn = () => undefined
      try {
        const trx = await db.transaction()
        assert.equal((await trx.raw('select 1 as one')).rows[0].one, 1)
        relay.freeze()
        const started = Date.now()
        await assert.rejects(trx.raw('select 2'), /Connection terminated|ECONNRESET/)
        const waited = Date.now() - started
        assert.ok(waited < STATEMENT_TIMEOUT_MS + SLACK_MS, `failed after ${waited} ms`)
        await trx.rollback().catch(() => undefined)
      } finally {
        await relay.stop()
        await db.destroy()
      }
    })
  }

  it('a request waiting for a pooled connection answers 503 after the acquire timeout', async function () {
    // A pool of one writing connection (SQLite always has one), taken by a transaction that does not end.
    const { app, http } = await timedApp({ pool: { min: 0, max: 1 }, statementTimeoutMs: 30000 })
    try {
      const company = await suite.company()
      const api = http.withKey(company.apiKey)
      assert.equal((await api.get('/v1/customers')).status, 200)
      const held = await (app.get('knex' as any) as Knex).transaction()
      let waited: number
      try {
        // Reads have connections of their own (SQLite's read connections, PostgreSQL's read
        // pool): a list answers while the writing connection is held.
        const list = await api.get('/v1/customers')
        assert.equal(list.status, 200, `list while the writer is held: ${list.text}`)
        const started = Date.now()
        const res = await api.post('/v1/customers', { companyName: 'During' })
        waited = Date.now() - started
        assertUnavailable(res, 'request while the pool is exhausted')
        assert.equal((await http.get('/health')).status, 200)
      } finally {
        await held.rollback()
      }
      assert.ok(waited >= ACQUIRE_TIMEOUT_MS * 0.9, `it waited for a connection (${waited} ms)`)
      assert.ok(waited < ACQUIRE_TIMEOUT_MS + SLACK_MS, `answered after ${waited} ms`)
      const after = await api.get('/v1/customers')
      assert.equal(after.status, 200)
      assert.deepEqual(
        after.body.items.map((c: any) => c.companyName),
        [],
        'the refused write stored nothing'
      )
      assert.equal((await api.post('/v1/customers', { companyName: 'After' })).status, 201)
    } finally {
      await app.teardown()
    }
  })

  it('while the read connections are taken, keys are looked up on a free writing connection (writes go on, lists wait), and /ready reports both', async function () {
    // One writing connection and one read connection (SQLite and PostgreSQL alike at pool.max 1).
    const { app, http } = await timedApp({ pool: { min: 0, max: 1 }, statementTimeoutMs: 30000 })
    const knex = app.get('knex' as any) as Knex
    const readers = (knex.client as unknown as { readers: Knex.Client }).readers
    try {
      const company = await suite.company()
      // A key this instance has not seen yet: its look-up is a read.
      const api = http.withKey(company.apiKey)
      const reader = await readers.acquireConnection()
      try {
        // As when a long search holds each read connection: other tenants' writes go on (their key's
        // look-up is a short read, which may use the writing connection), their lists wait for a
        // read connection (a long read never takes the writer's).
        assert.equal((await api.post('/v1/customers', { companyName: 'While reads are held' })).status, 201)
        assertUnavailable(await api.get('/v1/customers'), 'a list while the read connections are held')
        assert.equal((await http.get('/ready')).status, 200)
        // Nothing left to read on: not ready, after the acquire timeout.
        const held = await knex.transaction()
        try {
          assertUnavailable(await http.get('/ready'), '/ready with no connection to read on')
        } finally {
          await held.rollback()
        }
      } finally {
        await readers.releaseConnection(reader)
      }
      assert.equal((await http.get('/ready')).status, 200)
    } finally {
      await app.teardown()
    }
  })

  /** A substring search of customers: a list whose cost grows with the company's rows (src/db/search-slots.ts). */
  const searchCustomers = (http: HttpClient, company: TestCompany) =>
    http.withKey(company.apiKey).get('/v1/customers', { 'companyName[$like]': '%Kunde%' })

  it('searches take turns: past its share a company’s search waits, then 429 with Retry-After; behind other companies’ searches 503; other reads never wait for a turn', async function () {
    const { app, http } = await timedApp({ statementTimeoutMs: 30000 })
    const slots = app.get('searchSlots')
    const { total, perCompany, waitMs } = slots.limits
    assert.equal(waitMs, ACQUIRE_TIMEOUT_MS, 'a search waits for its turn as long as for a connection')
    try {
      const a = await suite.company()
      const b = await suite.company()
      // Long searches stand in: company A holds its share of the turns, a third company the rest.
      const held = [
        ...(await Promise.all(Array.from({ length: perCompany }, () => slots.enter(a.id)))),
        ...(await Promise.all(Array.from({ length: total - perCompany }, () => slots.enter(-1))))
      ]
      const started = Date.now()
      const [ownShare, othersTurns, list, record] = await Promise.all([
        searchCustomers(http, a).then((res) => ({ res, waited: Date.now() - started })),
        searchCustomers(http, b).then((res) => ({ res, waited: Date.now() - started })),
        a.api.get('/v1/customers', { size: 5 }),
        b.api.get(`/v1/users/${b.adminUserId}`)
      ])
      assert.equal(list.status, 200, `a list without $like: ${list.text}`)
      assert.equal(record.status, 200, `a record: ${record.text}`)
      assert.equal(ownShare.res.status, 429, ownShare.res.text)
      assert.equal(ownShare.res.body.name, 'TooManyRequests')
      assert.equal(ownShare.res.headers.get('retry-after'), '1')
      assert.equal(ownShare.res.body.data.retryAfter, 1)
      assert.match(ownShare.res.body.message, /\$like/)
      assert.ok(ownShare.waited >= waitMs * 0.9, `it waited for a turn (${ownShare.waited} ms)`)
      assert.ok(ownShare.waited < waitMs + SLACK_MS, `answered after ${ownShare.waited} ms`)
      assertUnavailable(othersTurns.res, 'a search behind other companies’ searches')
      assert.ok(othersTurns.waited >= waitMs * 0.9, `it waited for a turn (${othersTurns.waited} ms)`)

      // A waiting search runs as soon as one of its company's turns ends.
      const waiting = searchCustomers(http, a)
      await until(() => slots.waiting === 1)
      held[0]()
      assert.equal((await waiting).status, 200, 'the waiting search got the freed turn')
      for (const end of held) end()
      assert.equal(slots.active, 0, 'refused and answered searches hold no turn')
      assert.equal((await searchCustomers(http, b)).status, 200)
    } finally {
      await app.teardown()
    }
  })

  /** PostgreSQL: a connection holding `customers` locked, and how many statements filtering `column` wait for it. */
  function customersLocker() {
    const locker = createKnex(suite.db.url, { min: 1, max: 1 }, { statementTimeoutMs: 0 })
    return {
      lock: async () => {
        await locker.raw('BEGIN')
        await locker.raw('LOCK TABLE customers IN ACCESS EXCLUSIVE MODE')
      },
      unlock: () => locker.raw('ROLLBACK'),
      // The locker's transaction would see one snapshot of the activity: it asks for a new one each time.
      waiting: async (column: string) => {
        await locker.raw('select pg_stat_clear_snapshot()')
        const { rows } = await locker.raw(
          "select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like ?",
          [`%from "customers" where "${column}" ilike%`]
        )
        return Number(rows[0].n)
      },
      close: async () => {
        await locker.raw('ROLLBACK').catch(() => undefined)
        await locker.destroy()
      }
    }
  }

  it('long searches of two companies leave a read connection to every other read, and each search gets its turn', async function () {
    // A search that takes long for real: PostgreSQL holds it at a lock on the table it reads. (A
    // SQLite read cannot be held while another table stays readable: it locks the whole file.)
    if (suite.db.name !== 'postgres') return this.skip()
    // Waits long enough for the queued searches to outlast the test's own steps on a slow machine.
    const { app, http } = await timedApp({ statementTimeoutMs: 30000, acquireTimeoutMs: 10000 })
    const knex = app.get('knex' as any) as Knex
    const { total, perCompany } = app.get('searchSlots').limits
    const locker = customersLocker()
    try {
      const [a, b, c] = [await suite.company(), await suite.company(), await suite.company()]
      // Their keys known to the instance, and the search's once-per-process look at the table's ids
      // done, so nothing but the searches' own statements needs the table.
      for (const company of [a, b, c]) assert.equal((await company.api.get('/v1/gangs')).status, 200)
      assert.equal((await searchCustomers(http, c)).status, 200)
      const readConnections = readConnectionsOf(knex)
      await locker.lock()
      // More searches than read connections: without turns they would take every one. The two
      // companies search different fields, so the statements waiting on the lock tell them apart.
      const searches = [
        ...Array.from({ length: readConnections }, () => searchCustomers(http, a)),
        ...Array.from({ length: perCompany + 1 }, () => b.api.get('/v1/customers', { 'number[$like]': '%K-1%' }))
      ]
      await eventually(
        async () => (await locker.waiting('company_name')) + (await locker.waiting('number')),
        (n) => n >= total
      )
      // A list of another table (and another company) is served by the connection left over.
      const list = await within(3000, c.api.get('/v1/gangs'), 'a list while searches wait on the lock')
      assert.equal(list.status, 200, list.text)
      assert.deepEqual(
        [await locker.waiting('company_name'), await locker.waiting('number')],
        [perCompany, total - perCompany],
        'searches reading at once, per company'
      )
      await locker.unlock()
      const answers = await Promise.all(searches)
      assert.deepEqual(
        answers.map((res) => res.status),
        searches.map(() => 200),
        'every search got its turn once the lock was gone'
      )
    } finally {
      await locker.close()
      await app.teardown()
    }
  })

  it('a search cancelled by the statement timeout gives its turn back', async function () {
    if (suite.db.name !== 'postgres') return this.skip()
    const { app, http } = await timedApp()
    const slots = app.get('searchSlots')
    const locker = customersLocker()
    try {
      const company = await suite.company()
      assert.equal((await searchCustomers(http, company)).status, 200)
      await locker.lock()
      const answers = await Promise.all(
        Array.from({ length: slots.limits.perCompany }, () => searchCustomers(http, company))
      )
      for (const res of answers) assertUnavailable(res, 'a search past the statement timeout')
      assert.equal(slots.active, 0, 'the failed searches hold no turn')
      await locker.unlock()
      assert.equal((await searchCustomers(http, company)).status, 200)
    } finally {
      await locker.close()
      await app.teardown()
    }
  })

  it('a statement running past the limit is cancelled by the database engine, and the connection stays usable', async function () {
    const knex = createKnex(suite.db.url, {}, { statementTimeoutMs: STATEMENT_TIMEOUT_MS })
    try {
      // No API request runs such a statement on purpose; these stand for a query gone slow.
      // With a bound value: the error's message (logged with the 503) names the statement, not the data.
      const endless =
        suite.db.name === 'postgres'
          ? 'select pg_sleep(30), ?::text as name'
          : 'with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c where x <> ?'
      const started = Date.now()
      const error: any = await knex.raw(endless, ['Marta Rossi-1e4c']).then(
        () => assert.fail('the statement ran to its end'),
        (e) => e
      )
      assert.equal(error.code, suite.db.name === 'postgres' ? '57014' : 'SQLITE_INTERRUPT')
      assert.match(error.message, suite.db.name === 'postgres' ? /pg_sleep/ : /with recursive/)
      assert.doesNotMatch(error.message, /Marta Rossi/)
      assert.ok(Date.now() - started < STATEMENT_TIMEOUT_MS + SLACK_MS, `cancelled after ${Date.now() - started} ms`)
      // A write inside a transaction: it fails with the timeout, not with its rollback (SQLite
      // rolls an interrupted write's transaction back itself; knex's ROLLBACK then finds none).
      const endlessWrite =
        suite.db.name === 'postgres'
          ? 'insert into timeout_probe select 1 from pg_sleep(30)'
          : 'insert into timeout_probe with recursive c(x) as (select 1 union all select x + 1 from c) select x from c'
      const inTransaction: any = await knex
        .transaction(async (trx) => {
          await trx.raw('create temporary table timeout_probe (x integer)')
          await trx.raw('insert into timeout_probe values (1)')
          await trx.raw(endlessWrite)
        })
        .then(
          () => assert.fail('the transaction committed'),
          (e) => e
        )
      assert.equal(inTransaction.code, error.code)
      assert.equal((await knex.raw('select 1 as one')).length ?? 1, 1)
    } finally {
      await knex.destroy()
    }
  })

  it('work that may run long (migrations) can run without the statement timeout; the limit applies again after it', async function () {
    const limitMs = 200
    const knex = createKnex(suite.db.url, {}, { statementTimeoutMs: limitMs })
    // Several times the limit on any machine (about 1.5 s here), yet finite.
    const slow =
      suite.db.name === 'postgres'
        ? 'select pg_sleep(1)'
        : 'with recursive c(x) as (select 1 union all select x + 1 from c where x < 5000000) select count(*) from c'
    try {
      const started = Date.now()
      await withoutStatementTimeout(knex, (untimed) => untimed.raw(slow))
      assert.ok(Date.now() - started > limitMs, `the statement outlived the limit (${Date.now() - started} ms)`)
      const error: any = await knex.raw(slow).then(
        () => assert.fail('the limit applies again'),
        (e) => e
      )
      assert.equal(error.code, suite.db.name === 'postgres' ? '57014' : 'SQLITE_INTERRUPT')
    } finally {
      await knex.destroy()
    }
  })
})
