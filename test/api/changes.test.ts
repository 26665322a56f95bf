import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../support/harness'
import { headOf, readAll } from '../support/changes'
import { newUser } from '../support/users'
import { socketClient } from '../support/socket'
import { createApiKey } from '../../src/auth/api-keys'
import { pruneEventLog } from '../../src/events/retention'
import { appendEvents } from '../../src/events/event-log'

forEachDatabase('change feed', (suite) => {
  let a: TestCompany
  let b: TestCompany

  before(async () => {
    a = await suite.company()
    b = await suite.company()
  })

  const keyWith = async (company: TestCompany, scopes: string[]) => {
    const { key } = await createApiKey(suite.server().knex, suite.server().app.get('appSecret'), {
      companyId: company.id,
      userId: company.adminUserId,
      scopes
    })
    return company.api.withKey(key)
  }

  it('starts empty: no items and next "0", stable', async () => {
    const fresh = await suite.company()
    for (const query of [{}, { after: '0' }] as Record<string, string>[]) {
      const res = await fresh.api.get('/v1/changes', query)
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(res.body, { items: [], next: '0' })
    }
  })

  it('logs created, patched and removed with the record as REST returned it, the key as actor and the request id', async () => {
    const start = await headOf(a.api)
    const created = await a.api.post(
      '/v1/customers',
      { companyName: 'Feed GmbH' },
      { headers: { 'x-request-id': 'req-feed-1' } }
    )
    assert.equal(created.status, 201, created.text)
    const patched = await a.api.patch(`/v1/customers/${created.body.id}`, { number: 'F-1' })
    const afterPatch = await a.api.get(`/v1/customers/${created.body.id}`)
    const removed = await a.api.delete(`/v1/customers/${created.body.id}`)
    assert.equal(removed.status, 204)
    const { items, next } = await readAll(a.api, start)
    assert.deepEqual(
      items.map((event) => event.type),
      ['customers.created', 'customers.patched', 'customers.removed']
    )
    assert.deepEqual(items[0].data, created.body)
    assert.deepEqual(items[1].data, patched.body)
    assert.deepEqual(items[1].data, afterPatch.body)
    // The removed record as it was before the delete.
    assert.deepEqual(items[2].data, afterPatch.body)
    const keyId = (await suite.server().knex('apiKeys').where({ companyId: a.id }).first('id')).id
    for (const event of items) assert.deepEqual(event.actor, { apiKeyId: keyId })
    assert.equal(items[0].requestId, 'req-feed-1')
    assert.equal(items[0].requestId, created.headers.get('x-request-id'))
    assert.equal(items[1].requestId, patched.headers.get('x-request-id'))
    assert.notEqual(items[1].requestId, items[2].requestId)
    for (const event of items) {
      assert.match(event.id, /^[1-9]\d*$/)
      assert.ok(!Number.isNaN(Date.parse(event.occurredAt)))
    }
    assert.ok(Number(items[0].id) < Number(items[1].id) && Number(items[1].id) < Number(items[2].id))
    assert.equal(next, items[2].id)
  })

  it('pages with size and hands out a next that is stable once nothing follows', async () => {
    const start = await headOf(a.api)
    for (const name of ['P1', 'P2', 'P3']) await a.api.post('/v1/customers', { companyName: name })
    const first = await a.api.get('/v1/changes', { after: start, size: 2 })
    assert.equal(first.body.items.length, 2)
    assert.equal(first.body.next, first.body.items[1].id)
    const second = await a.api.get('/v1/changes', { after: first.body.next, size: 2 })
    assert.equal(second.body.items.length, 1)
    assert.equal(second.body.next, second.body.items[0].id)
    const third = await a.api.get('/v1/changes', { after: second.body.next, size: 2 })
    assert.deepEqual(third.body, { items: [], next: second.body.next })
    const again = await a.api.get('/v1/changes', { after: third.body.next })
    assert.deepEqual(again.body, { items: [], next: second.body.next })
  })

  it('refuses malformed cursors, sizes and types with 400 naming the field', async () => {
    const cases: [Record<string, string | string[]>, string][] = [
      [{ after: 'abc' }, 'after'],
      [{ after: '-1' }, 'after'],
      [{ after: '1.5' }, 'after'],
      [{ after: '004' }, 'after'],
      [{ after: '00' }, 'after'],
      [{ after: '' }, 'after'],
      [{ after: '99999999999999999999' }, 'after'],
      [{ after: ['1', '2'] }, 'after'],
      [{ size: '0' }, 'size'],
      [{ size: '501' }, 'size'],
      [{ size: 'x' }, 'size'],
      [{ types: 'nope.created' }, 'types'],
      [{ types: 'customers' }, 'types'],
      [{ types: 'customers.created,' }, 'types'],
      [{ types: 'DROP TABLE' }, 'types'],
      // Wildcards stand for a whole part, as in subscriptions. Adjacent ones, compiled to a regular
      // expression, backtracked before the 400 and held every other request meanwhile (5 s for these
      // eight, minutes for a dozen); mid-word ones were taken as well.
      [{ types: '********.x' }, 'types'],
      [{ types: 'time-*.created' }, 'types'],
      [{ types: 'customers.cre*' }, 'types'],
      [{ types: Array.from({ length: 101 }, () => 'customers.created').join(',') }, 'types'],
      [{ page: '1' }, 'page']
    ]
    for (const [query, field] of cases) {
      const res = await a.api.get('/v1/changes', query)
      assert.equal(res.status, 400, `${JSON.stringify(query)}: ${res.text}`)
      assert.ok(res.body.data.validationErrors[field], `${JSON.stringify(query)}: ${res.text}`)
    }
  })

  it("refuses another company's cursor and an id past the log with 400", async () => {
    const created = await b.api.post('/v1/customers', { companyName: 'Other GmbH' })
    assert.equal(created.status, 201)
    const bHead = await headOf(b.api)
    const res = await a.api.get('/v1/changes', { after: bHead })
    assert.equal(res.status, 400, res.text)
    assert.ok(res.body.data.validationErrors.after)
    const beyond = await a.api.get('/v1/changes', { after: String(Number(await headOf(a.api)) + 1000) })
    assert.equal(beyond.status, 400, beyond.text)
    // And b's events never show in a's feed.
    const { items } = await readAll(a.api)
    assert.ok(!items.some((event) => event.type === 'customers.created' && event.data.id === created.body.id))
  })

  it('filters by types with * wildcards', async () => {
    const start = await headOf(a.api)
    const customer = await a.api.post('/v1/customers', { companyName: 'Typed GmbH' })
    await a.api.patch(`/v1/customers/${customer.body.id}`, { number: 'T-1' })
    const project = await a.api.post('/v1/projects', { number: 'TP-1' })
    assert.equal(project.status, 201, project.text)
    await a.api.delete(`/v1/projects/${project.body.id}`)
    const types = async (filter: string) =>
      (await readAll(a.api, start, { types: filter })).items.map((event: any) => event.type)
    assert.deepEqual(await types('customers.*'), ['customers.created', 'customers.patched'])
    assert.deepEqual(await types('*.removed'), ['projects.removed'])
    assert.deepEqual(await types('customers.patched,projects.*'), [
      'customers.patched',
      'projects.created',
      'projects.removed'
    ])
    assert.deepEqual(await types('*'), [
      'customers.created',
      'customers.patched',
      'projects.created',
      'projects.removed'
    ])
    // A filtered page that ends early moves the cursor to the newest event, past the ones it skipped.
    const filtered = await a.api.get('/v1/changes', { after: start, types: 'customers.created' })
    assert.equal(filtered.body.next, await headOf(a.api))
  })

  it('shows a key only the events of collections its scopes can read', async () => {
    const start = await headOf(a.api)
    await a.api.post('/v1/customers', { companyName: 'Scoped GmbH' })
    await a.api.post('/v1/projects', { number: 'SP-1' })
    const customersOnly = await keyWith(a, ['customers:read'])
    const seen = (await readAll(customersOnly, start)).items.map((event: any) => event.type)
    assert.deepEqual(seen, ['customers.created'])
    const writer = await keyWith(a, ['projects:write'])
    assert.deepEqual(
      (await readAll(writer, start)).items.map((event: any) => event.type),
      ['projects.created']
    )
    const all = await keyWith(a, ['*:read'])
    assert.deepEqual(
      (await readAll(all, start)).items.map((event: any) => event.type),
      ['customers.created', 'projects.created']
    )
    // Its cursor still moves past the events it cannot see.
    assert.equal((await customersOnly.get('/v1/changes', { after: start })).body.next, await headOf(a.api))
  })

  it("shows webhook subscriptions' events only to keys that manage webhooks (their URLs may carry credentials)", async () => {
    const start = await headOf(a.api)
    const created = await a.api.post('/v1/webhook-subscriptions', { url: 'https://hooks.example.test/in/T0K3N' })
    assert.equal(created.status, 201, created.text)
    await a.api.post('/v1/customers', { companyName: 'Beside the hook GmbH' })
    const types = async (scopes: string[]) =>
      (await readAll(await keyWith(a, scopes), start)).items.map((event: any) => event.type)
    assert.deepEqual(await types(['*:read']), ['customers.created'])
    assert.deepEqual(await types(['customers:read', 'webhook-subscriptions:read']), ['customers.created'])
    assert.deepEqual(await types(['*:read', 'webhook-subscriptions:write']), [
      'webhook-subscriptions.created',
      'customers.created'
    ])
    assert.deepEqual(await types(['webhook-subscriptions:write']), ['webhook-subscriptions.created'])
    const readOnly = await keyWith(a, ['webhook-subscriptions:read'])
    assert.equal((await readOnly.get('/v1/changes')).status, 403)
  })

  it('logs nothing for a write refused after partial work (the transaction rolls back)', async () => {
    const userId = await newUser(a, { employedFrom: '2026-01-01' })
    const typeId = (await suite.server().knex('timeEntryTypes').where({ companyId: a.id }).orderBy('order').first('id'))
      .id
    const running = await a.api.post('/v1/time-entries', {
      typeId,
      userId,
      startsAt: '2026-03-04T08:00:00.000Z',
      endsAt: null
    })
    assert.equal(running.status, 201, running.text)
    const week = await a.api.get('/v1/time-sheet-weeks/by-user', { userId, weekStart: '2026-03-02' })
    assert.equal(week.status, 200, week.text)
    const head = await headOf(a.api)
    const dayRows = () => suite.server().knex('timeSheetDays').where({ companyId: a.id, userId }).count({ n: '*' })
    const [{ n: daysBefore }] = await dayRows()
    // Submitting the week first creates its missing day rows, then refuses the day with the running entry.
    const refused = await a.api.patch(`/v1/time-sheet-weeks/${week.body.id}`, { status: 'submitted' })
    assert.equal(refused.status, 409, refused.text)
    assert.equal(await headOf(a.api), head)
    assert.deepEqual((await a.api.get('/v1/changes', { after: head })).body, { items: [], next: head })
    const [{ n: daysAfter }] = await dayRows()
    assert.equal(Number(daysAfter), Number(daysBefore))
  })

  it('answers 410 for a cursor older than the retained events, and serves the rest', async () => {
    const company = await suite.company()
    const knex = suite.server().knex
    const old = await company.api.post('/v1/customers', { companyName: 'Old GmbH' })
    await company.api.patch(`/v1/customers/${old.body.id}`, { number: 'O-1' })
    const before = await readAll(company.api)
    await company.api.post('/v1/customers', { companyName: 'New GmbH' })
    // The first two events are 40 days old; the default retention is 30.
    const aged = new Date(Date.now() - 40 * 86_400_000).toISOString()
    await knex('eventLog')
      .whereIn(
        'id',
        before.items.map((event) => Number(event.id))
      )
      .update({ occurredAt: aged })
    assert.equal(await pruneEventLog(knex, suite.server().app.get('events').retentionDays), 2)
    // Pruning again deletes nothing more.
    assert.equal(await pruneEventLog(knex, 30), 0)
    for (const after of ['0', before.items[0].id]) {
      const gone = await company.api.get('/v1/changes', { after })
      assert.equal(gone.status, 410, gone.text)
      assert.equal(gone.body.name, 'Gone')
      assert.ok(gone.body.data.validationErrors.after)
    }
    // The last pruned id lost nothing after it; without a cursor the feed starts at the oldest retained.
    const tail = await company.api.get('/v1/changes', { after: before.next })
    assert.equal(tail.status, 200, tail.text)
    assert.deepEqual(
      tail.body.items.map((event: any) => event.type),
      ['customers.created']
    )
    assert.deepEqual((await company.api.get('/v1/changes')).body, tail.body)
  })

  it('numbers concurrent writes of one company in commit order: a reader following the feed misses none', async () => {
    const company = await suite.company()
    const users = [await newUser(company), await newUser(company)]
    const typeId = (
      await suite.server().knex('timeEntryTypes').where({ companyId: company.id }).orderBy('order').first('id')
    ).id
    let writing = true
    const seen = new Map<string, any>()
    const follow = async () => {
      let cursor = '0'
      for (;;) {
        const done = !writing
        const res = await company.api.get('/v1/changes', { after: cursor, size: 500 })
        assert.equal(res.status, 200, res.text)
        for (const event of res.body.items) seen.set(event.id, event)
        cursor = res.body.next
        if (done && res.body.items.length === 0) return
      }
    }
    const writer = async (n: number) => {
      for (let i = 0; i < 6; i++) {
        const userId = users[(n + i) % 2]
        const day = `2026-0${1 + ((n + i) % 8)}-${String(1 + n * 6 + i).padStart(2, '0')}`
        const res =
          i % 2 === 0
            ? await company.api.post('/v1/customers', { companyName: `C${n}-${i}` })
            : await company.api.post('/v1/time-entries', {
                typeId,
                userId,
                startsAt: `${day}T08:00:00.000Z`,
                endsAt: `${day}T09:00:00.000Z`
              })
        assert.equal(res.status, 201, res.text)
      }
    }
    const reader = follow()
    await Promise.all([0, 1, 2, 3].map(writer))
    writing = false
    await reader
    const all = await readAll(company.api)
    assert.ok(all.items.length >= 24)
    // Every event the log holds reached the reader that followed it while the writes committed.
    assert.deepEqual([...seen.keys()].sort(), all.items.map((event: any) => event.id).sort())
    const ids = all.items.map((event: any) => Number(event.id))
    assert.equal(new Set(ids).size, ids.length)
  })

  const lockOrigin = { actor: { system: true as const }, requestId: 'lock-test' }
  const lockEvent = { type: 'customers.created', scope: 'customers', data: { id: 1 } }
  /** A feed page read while an earlier append is open may wait for it or not; it never passes it. */
  const assertNotPassed = (page: any, open: string, later: string) => {
    const ids = page.items.map((item: any) => item.id)
    if (!ids.includes(open)) {
      assert.ok(!ids.includes(later), `the page has ${later} without ${open}, still open: ${ids}`)
      assert.ok(Number(page.next) < Number(open), `next ${page.next} passed ${open}, still open`)
    }
  }

  it("lets a company's appends commit side by side, and no reader passes one still open (PostgreSQL: the log lock)", async function () {
    if (suite.db.name !== 'postgres') return this.skip()
    const knex = suite.server().knex
    const company = await suite.company()
    const head = await headOf(company.api)
    // Two open appends: `b` draws a later id than `a` and commits first.
    const first = await knex.transaction()
    const [a] = await appendEvents(first, company.id, [lockEvent], lockOrigin)
    let pages: any[] = []
    let subscribing: Promise<any> | undefined
    let b = a
    try {
      ;[b] = await knex.transaction((trx) => appendEvents(trx, company.id, [lockEvent], lockOrigin))
      assert.ok(Number(b.id) > Number(a.id))
      // A reader that went past `b` now would never see `a`. A feed read waits for the open append
      // up to HORIZON_WAIT_MS and then answers what had committed before it (here, as `a` stays
      // open until the pages are in); a new webhook subscription's position waits in its transaction.
      subscribing = company.api.post('/v1/webhook-subscriptions', {
        url: 'https://hooks.example.test/in',
        types: ['customers.*']
      })
      pages = await Promise.all([
        company.api.get('/v1/changes', { after: head }),
        company.api.get('/v1/changes', { after: head, types: 'customers.*' })
      ])
    } finally {
      await first.commit()
    }
    for (const page of pages) {
      assert.equal(page.status, 200, page.text)
      assertNotPassed(page.body, a.id, b.id)
      // From where it stopped, the feed has both, in order.
      const { items } = await readAll(company.api, page.body.next)
      const seen = [...page.body.items, ...items]
        .filter((item: any) => item.type === 'customers.created')
        .map((item: any) => item.id)
      assert.deepEqual(seen, [a.id, b.id])
    }
    const subscription = await subscribing!
    assert.equal(subscription.status, 201, subscription.text)
    // The subscription starts after both appends: its position is past them.
    const stored = await knex('webhook_subscriptions').where({ id: subscription.body.id }).first('lastEventId')
    assert.ok(Number(stored.lastEventId) >= Number(b.id), `position ${stored.lastEventId}, appends ${a.id} and ${b.id}`)
  })

  it('a reader behind an open append that then rolls back moves on without it (PostgreSQL)', async function () {
    if (suite.db.name !== 'postgres') return this.skip()
    const knex = suite.server().knex
    const company = await suite.company()
    const head = await headOf(company.api)
    const first = await knex.transaction()
    let page: any
    let b: { id: string }
    try {
      const [a] = await appendEvents(first, company.id, [lockEvent], lockOrigin)
      ;[b] = await knex.transaction((trx) => appendEvents(trx, company.id, [lockEvent], lockOrigin))
      page = await company.api.get('/v1/changes', { after: head })
      assert.equal(page.status, 200, page.text)
      assertNotPassed(page.body, a.id, b.id)
    } finally {
      await first.rollback()
    }
    const { items } = await readAll(company.api, page.body.next)
    assert.deepEqual(
      [...page.body.items, ...items].map((item: any) => item.id),
      [b!.id]
    )
  })

  it('logs an idempotent write once: its replay logs nothing', async () => {
    const start = await headOf(a.api)
    const headers = { 'idempotency-key': `feed-${Date.now()}` }
    const first = await a.api.post('/v1/customers', { companyName: 'Once GmbH' }, { headers })
    assert.equal(first.status, 201, first.text)
    const again = await a.api.post('/v1/customers', { companyName: 'Once GmbH' }, { headers })
    assert.equal(again.headers.get('idempotent-replayed'), 'true')
    const { items } = await readAll(a.api, start)
    assert.deepEqual(
      items.map((event: any) => [event.type, event.data.id]),
      [['customers.created', first.body.id]]
    )
    assert.deepEqual(items[0].data, first.body)
  })

  it('reads the same feed over a socket', async () => {
    const socket = socketClient(suite.server().url)
    try {
      await socket.client.authenticate({ strategy: 'apiKey', apiKey: a.apiKey })
      const start = await headOf(a.api)
      await a.api.post('/v1/customers', { companyName: 'Socket GmbH' })
      const page = await socket.client.service('v1/changes').find({ query: { after: start, size: 5 } })
      assert.deepEqual(page, (await a.api.get('/v1/changes', { after: start, size: 5 })).body)
      assert.equal(page.items.length, 1)
      await assert.rejects(socket.client.service('v1/changes').find({ query: { size: 0 } }), { name: 'BadRequest' })
    } finally {
      socket.close()
    }
  })

  it('is described in the OpenAPI documents (/v1/changes/spec and /openapi.json)', async () => {
    const spec = await a.api.get('/v1/changes/spec')
    assert.equal(spec.status, 200, spec.text)
    assert.ok(spec.body.paths['/v1/changes'].get)
    assert.ok(spec.body.components.schemas.ChangeEvent)
    const combined = await suite.server().http.get('/openapi.json')
    assert.ok(combined.body.paths['/v1/changes'].get.responses['410'])
    const unauthenticated = await suite.server().http.get('/v1/changes')
    assert.equal(unauthenticated.status, 401)
    const method = await a.api.post('/v1/changes', {})
    assert.equal(method.status, 405)
  })
})
