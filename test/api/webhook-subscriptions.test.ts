import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../support/harness'
import { HttpClient } from '../support/http'
import { socketClient } from '../support/socket'
import { until } from '../support/wait'
import { createApiKey } from '../../src/auth/api-keys'
import { createRestClient } from '../../client/src'
import type { Configuration } from '../../src/declarations'
import type { Resolver } from '../../src/webhooks/addresses'
import { systemResolver } from '../../src/webhooks/addresses'
import { createCustomers, eventIds } from '../support/webhook-events'

/**
 * `/v1/webhook-subscriptions` as a collection (CONTRACT §13.3): its fields and rules, the
 * signing secret that only the create reveals, the URL rules against server-side request
 * forgery, scopes, tenancy, and the replay's input. Deliveries: webhooks-delivery.test.ts.
 */
const SECRET = /^whsec_[A-Za-z0-9+/]+={0,2}$/

forEachDatabase('webhook subscriptions', (suite) => {
  let company: TestCompany
  before(async () => {
    company = await suite.company()
  })

  const create = (api: HttpClient, body: Record<string, unknown>) => api.post('/v1/webhook-subscriptions', body)

  it('creates a subscription with defaults, changes and deletes it', async () => {
    const created = await create(company.api, { url: 'https://hooks.example.test/in', description: 'Payroll' })
    assert.equal(created.status, 201, created.text)
    assert.deepEqual(
      { ...created.body, id: 0, createdAt: '', updatedAt: '', secret: '' },
      {
        id: 0,
        url: 'https://hooks.example.test/in',
        types: [],
        description: 'Payroll',
        deactivatedAt: null,
        createdAt: '',
        updatedAt: '',
        secret: ''
      }
    )
    const path = `/v1/webhook-subscriptions/${created.body.id}`
    const patched = await company.api.patch(path, { types: ['time-entries.*', '*.removed', 'company.recomputed'] })
    assert.equal(patched.status, 200, patched.text)
    assert.deepEqual(patched.body.types, ['time-entries.*', '*.removed', 'company.recomputed'])
    assert.equal((await company.api.patch(path, { types: null })).status, 400)
    assert.equal((await company.api.patch(path, { secret: 'whsec_AAAA' })).status, 400)
    assert.equal((await company.api.delete(path)).status, 204)
    assert.equal((await company.api.get(path)).status, 404)
  })

  it('returns the signing secret in the create only: never in a get, a list, a change, a socket event or the table', async () => {
    const socket = socketClient(suite.server().url)
    const events: { event: string; payload: unknown }[] = []
    try {
      await socket.client.authenticate({ strategy: 'apiKey', apiKey: company.apiKey })
      socket.socket.onAny((event: string, payload: unknown) => {
        if (event.startsWith('v1/webhook-subscriptions ')) events.push({ event, payload })
      })
      const created = await create(company.api, { url: 'https://hooks.example.test/secret' })
      assert.equal(created.status, 201, created.text)
      const { secret, id } = created.body
      assert.match(secret, SECRET)
      assert.equal(Buffer.from(secret.slice('whsec_'.length), 'base64').length, 32)
      const other = await create(company.api, { url: 'https://hooks.example.test/secret' })
      assert.notEqual(other.body.secret, secret, 'each subscription has its own secret')

      // Over a socket the create answers with the secret as well; its event carries none.
      const viaSocket = (await socket.client
        .service('v1/webhook-subscriptions')
        .create({ url: 'https://hooks.example.test/socket' })) as Record<string, unknown>
      assert.match(String(viaSocket.secret), SECRET)

      const seen = [
        (await company.api.get(`/v1/webhook-subscriptions/${id}`)).text,
        (await company.api.get('/v1/webhook-subscriptions', { size: 20 })).text,
        (await company.api.patch(`/v1/webhook-subscriptions/${id}`, { description: 'changed' })).text,
        (await company.api.get(`/v1/webhook-subscriptions/${id}/deliveries`)).text
      ]
      await until(() => events.filter((e) => e.event.endsWith(' created')).length === 3)
      await until(() => events.some((e) => e.event.endsWith(' patched')))
      seen.push(JSON.stringify(events))
      const rows = await suite.server().knex('webhook_subscriptions').where({ companyId: company.id })
      seen.push(JSON.stringify(rows))
      seen.push(JSON.stringify(await suite.server().knex('event_log').where({ companyId: company.id })))
      for (const text of seen) {
        assert.ok(!text.includes(secret.slice('whsec_'.length)), `the secret shows in ${text.slice(0, 200)}`)
        assert.ok(!/"secret":"whsec_/.test(text), `a secret shows in ${text.slice(0, 200)}`)
      }
      assert.ok(
        events.filter((e) => e.event.endsWith(' created')).every((e) => !Object.hasOwn(e.payload as object, 'secret'))
      )
    } finally {
      socket.close()
    }
  })

  it('answers a create repeated with its Idempotency-Key with the same secret, which the stored response does not hold', async () => {
    const key = { headers: { 'Idempotency-Key': `webhook-create-${Date.now()}` } }
    const body = { url: 'https://hooks.example.test/idempotent', types: ['customers.*'] }
    const first = await company.api.post('/v1/webhook-subscriptions', body, key)
    assert.equal(first.status, 201, first.text)
    const again = await company.api.post('/v1/webhook-subscriptions', body, key)
    assert.equal(again.status, 201, again.text)
    assert.equal(again.headers.get('idempotent-replayed'), 'true')
    assert.deepEqual(again.body, first.body)
    const listed = await company.api.get('/v1/webhook-subscriptions', { url: body.url })
    assert.equal(listed.body.total, 1, 'created once')
    const stored = await suite.server().knex('idempotency_keys').where({ companyId: company.id })
    assert.ok(stored.length > 0)
    assert.ok(!JSON.stringify(stored).includes(first.body.secret.slice('whsec_'.length)))
  })

  it('is reachable through the typed client: the collection, its deliveries and its replay', async () => {
    const client = createRestClient(suite.server().url, company.apiKey)
    const created = (await client
      .service('v1/webhook-subscriptions')
      .create({ url: 'https://hooks.example.test/typed', types: ['customers.created'] })) as {
      id: number
      secret?: string
    }
    assert.match(String(created.secret), SECRET)
    const route = { webhookSubscriptionId: created.id }
    const deliveries = await client
      .service('v1/webhook-subscriptions/:webhookSubscriptionId/deliveries')
      .find({ route, query: { deliveredAt: null, size: 5 } })
    assert.deepEqual(deliveries.items, [])
    const queued = await client
      .service('v1/webhook-subscriptions/:webhookSubscriptionId/replay')
      .create({ after: '0' }, { route })
    assert.deepEqual(queued, { queued: 0 })
  })

  describe('URLs that would reach the server or its network (SSRF): 400 naming url', () => {
    // Names resolve through this table; anything else through the system resolver (/etc/hosts).
    const names: Record<string, string[]> = {
      'public.example.test': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
      'mixed.example.test': ['93.184.216.34', '10.0.0.7'],
      'mapped.example.test': ['::ffff:192.168.0.1'],
      'metadata.example.test': ['169.254.169.254']
    }
    const resolver: Resolver = async (host) => names[host] ?? systemResolver(host)
    let saved: Configuration['webhooks']
    before(() => {
      const { app } = suite.server()
      saved = app.get('webhooks')
      app.set('webhooks', { ...saved, allowPrivateUrls: false })
      app.set('webhookResolver', resolver)
    })
    after(() => {
      const { app } = suite.server()
      app.set('webhooks', saved)
      app.set('webhookResolver', undefined)
    })

    const refused = [
      'https://127.0.0.1/hook',
      'https://127.1.2.3/hook',
      'https://localhost/hook',
      'https://2130706433/hook',
      'https://0177.0.0.1/hook',
      'https://0x7f000001/hook',
      'https://0.0.0.0/hook',
      'https://0/hook',
      'https://[::1]/hook',
      'https://[::]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://[::ffff:10.0.0.1]/hook',
      'https://[::127.0.0.1]/hook',
      'https://[::169.254.169.254]/hook',
      'https://10.1.2.3/hook',
      'https://172.16.0.1/hook',
      'https://192.168.1.20:8443/hook',
      'https://100.64.0.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[fe80::1]/hook',
      'https://[fc00::1]/hook',
      'https://224.0.0.1/hook',
      'https://mixed.example.test/hook',
      'https://mapped.example.test/hook',
      'https://metadata.example.test/hook'
    ]
    for (const url of refused) {
      it(`refuses ${url}`, async () => {
        const res = await create(company.api, { url })
        assert.equal(res.status, 400, res.text)
        assert.match(res.body.data.validationErrors.url, /private, loopback or link-local/)
        // What a name resolves to stays on the server.
        assert.doesNotMatch(res.body.data.validationErrors.url, /10\.0\.0\.7|169\.254|127\.0\.0\.1|::ffff/)
      })
    }

    it('refuses plain http://, names that do not resolve and relative URLs; accepts public https:// targets', async () => {
      for (const url of [
        'http://public.example.test/hook',
        'ftp://public.example.test/',
        'https://nowhere.invalid/hook'
      ]) {
        const res = await create(company.api, { url })
        assert.equal(res.status, 400, `${url}: ${res.text}`)
        assert.ok(res.body.data.validationErrors.url, url)
      }
      assert.equal((await create(company.api, { url: '/relative' })).status, 400)
      for (const url of [
        'https://public.example.test/hook',
        'https://93.184.216.34:8443/hook',
        'https://[2606:2800:220:1::1]/x'
      ]) {
        const res = await create(company.api, { url })
        assert.equal(res.status, 201, `${url}: ${res.text}`)
      }
    })

    it('checks a changed URL the same way', async () => {
      const created = await create(company.api, { url: 'https://public.example.test/hook' })
      const res = await company.api.patch(`/v1/webhook-subscriptions/${created.body.id}`, {
        url: 'https://[::1]:3030/'
      })
      assert.equal(res.status, 400, res.text)
      assert.ok(res.body.data.validationErrors.url)
      assert.equal(
        (await company.api.get(`/v1/webhook-subscriptions/${created.body.id}`)).body.url,
        'https://public.example.test/hook'
      )
    })
  })

  it('refuses event types that cannot occur, naming each one', async () => {
    const res = await create(company.api, {
      url: 'https://hooks.example.test/',
      types: ['time-entries.*', 'time-entry.created', 'customers.deleted', '*.*']
    })
    assert.equal(res.status, 400, res.text)
    assert.deepEqual(Object.keys(res.body.data.validationErrors).sort(), ['types.1', 'types.2'])
    const shape = await create(company.api, {
      url: 'https://hooks.example.test/',
      types: ['Customers.created', 'customers']
    })
    assert.equal(shape.status, 400)
    assert.ok(shape.body.data.validationErrors['types.0'] && shape.body.data.validationErrors['types.1'])
  })

  it('needs webhook-subscriptions:write for every method, reads included', async () => {
    const { knex, app } = suite.server()
    const created = await create(company.api, { url: 'https://hooks.example.test/scoped' })
    const id = created.body.id
    const keyWith = async (scopes: string[]) =>
      new HttpClient(
        suite.server().url,
        (await createApiKey(knex, app.get('appSecret'), { companyId: company.id, userId: company.adminUserId, scopes }))
          .key
      )
    for (const api of [await keyWith(['*:read']), await keyWith(['webhook-subscriptions:read', 'customers:write'])]) {
      for (const res of [
        await api.get('/v1/webhook-subscriptions'),
        await api.get(`/v1/webhook-subscriptions/${id}`),
        await api.get(`/v1/webhook-subscriptions/${id}/deliveries`),
        await api.post(`/v1/webhook-subscriptions/${id}/replay`, { after: '0' }),
        await api.post('/v1/webhook-subscriptions', { url: 'https://hooks.example.test/x' }),
        await api.patch(`/v1/webhook-subscriptions/${id}`, { description: 'x' }),
        await api.delete(`/v1/webhook-subscriptions/${id}`)
      ]) {
        assert.equal(res.status, 403, res.text)
        assert.equal(res.body.data.scope, 'webhook-subscriptions:write')
      }
    }
    const manager = await keyWith(['webhook-subscriptions:write'])
    assert.equal((await manager.get(`/v1/webhook-subscriptions/${id}/deliveries`)).status, 200)
    assert.equal((await manager.post(`/v1/webhook-subscriptions/${id}/replay`, { after: 0 })).status, 202)
  })

  it("answers 404 for another company's subscription on every route and lists none of them", async () => {
    const other = await suite.company()
    const theirs = await create(other.api, { url: 'https://hooks.example.test/theirs' })
    const id = theirs.body.id
    for (const res of [
      await company.api.get(`/v1/webhook-subscriptions/${id}`),
      await company.api.patch(`/v1/webhook-subscriptions/${id}`, { deactivatedAt: new Date().toISOString() }),
      await company.api.delete(`/v1/webhook-subscriptions/${id}`),
      await company.api.get(`/v1/webhook-subscriptions/${id}/deliveries`),
      await company.api.post(`/v1/webhook-subscriptions/${id}/replay`, { after: '0' })
    ])
      assert.equal(res.status, 404, res.text)
    const listed = await company.api.get('/v1/webhook-subscriptions', { 'id[$in]': [id], size: 20 })
    assert.deepEqual(listed.body.items, [])
    assert.equal((await other.api.get(`/v1/webhook-subscriptions/${id}`)).body.deactivatedAt, null)
  })

  it('replay: refuses bad bodies naming after, event ids of another company and deactivated subscriptions', async () => {
    const { knex } = suite.server()
    const sub = (await create(company.api, { url: 'https://hooks.example.test/replay' })).body
    const path = `/v1/webhook-subscriptions/${sub.id}/replay`
    for (const body of [{}, { after: 'abc' }, { after: -1 }, { after: 1.5 }, { after: null }, { after: '1e3' }]) {
      const res = await company.api.post(path, body)
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`)
      assert.ok(res.body.data.validationErrors.after, res.text)
    }
    const extra = await company.api.post(path, { after: '0', since: 'yesterday' })
    assert.equal(extra.status, 400)
    assert.ok(extra.body.data.validationErrors.since)
    assert.equal((await company.api.post(path, { after: '0' }, { query: { dry: 'run' } })).status, 400)

    const other = await suite.company()
    await createCustomers(other.api, 1)
    const [foreign] = await eventIds(knex, other.id, 'customers.created')
    const res = await company.api.post(path, { after: foreign })
    assert.equal(res.status, 400, res.text)
    assert.match(res.body.data.validationErrors.after, /not an event id/)

    // After retention deleted the events up to one: a cursor before it is 410, the last deleted one fine.
    await createCustomers(company.api, 3)
    const ids = await eventIds(knex, company.id, 'customers.created')
    await knex('event_log_heads')
      .insert({ companyId: company.id, prunedThrough: ids[1] })
      .onConflict('companyId')
      .merge()
    await knex('event_log').where({ companyId: company.id }).andWhere('id', '<=', ids[1]).delete()
    const gone = await company.api.post(path, { after: ids[0] })
    assert.equal(gone.status, 410, gone.text)
    assert.ok(gone.body.data.validationErrors.after)
    assert.equal((await company.api.post(path, { after: ids[1] })).status, 202)

    await company.api.patch(`/v1/webhook-subscriptions/${sub.id}`, { deactivatedAt: new Date().toISOString() })
    const deactivated = await company.api.post(path, { after: '0' })
    assert.equal(deactivated.status, 409, deactivated.text)
    assert.equal(deactivated.body.data.reason, 'subscription-deactivated')
  })
})
