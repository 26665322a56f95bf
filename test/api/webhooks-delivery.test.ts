import assert from 'node:assert/strict'
import { createApiKey } from '../../src/auth/api-keys'
import { forEachDatabase, TestCompany } from '../support/harness'
import { HttpClient } from '../support/http'
import { eventually, until } from '../support/wait'
import { webhookServer } from '../support/webhook-app'
import { createCustomers, eventIds, write } from '../support/webhook-events'
import { verified, WebhookReceiver } from '../support/webhook-receiver'

/**
 * Webhook delivery (CONTRACT §13.3) to a real receiver on 127.0.0.1 that checks every signature
 * with the `standardwebhooks` package: what is sent, in which order, retries, isolation of a
 * failing receiver, replay, scopes, (de)activation and the failure window. The schedule is in
 * milliseconds (test/support/webhook-app.ts). Several instances: webhooks-instances.test.ts.
 */
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

interface Subscription {
  id: number
  secret: string
}

forEachDatabase('webhook delivery', (suite) => {
  const server = webhookServer(suite, 'webhooks-delivery')
  let receiver: WebhookReceiver
  before(async () => {
    receiver = await new WebhookReceiver().start()
  })
  after(() => receiver.stop())

  let paths = 0
  const pathFor = (name: string) => `/${name}-${suite.db.name}-${++paths}`

  async function subscribe(company: TestCompany, path: string, body: Record<string, unknown> = {}, api = company.api) {
    const res = await api.post('/v1/webhook-subscriptions', { url: receiver.url + path, ...body })
    assert.equal(res.status, 201, res.text)
    return res.body as Subscription
  }

  const deliveries = async (company: TestCompany, id: number, query: Record<string, string | number> = {}) => {
    const res = await company.api.get(`/v1/webhook-subscriptions/${id}/deliveries`, { size: 20, ...query })
    assert.equal(res.status, 200, res.text)
    return res.body as { total: number; items: Record<string, unknown>[] }
  }

  it('POSTs the events of its company and types created after it, signed for the standardwebhooks verifier', async () => {
    const company = await server().company()
    const other = await server().company()
    await createCustomers(company.api, 2, 'Before the subscription')
    const to = pathFor('signed')
    const sub = await subscribe(company, to, { types: ['customers.*'] })
    const theirPath = pathFor('theirs')
    const theirs = await subscribe(other, theirPath, { types: ['customers.*'] })
    await createCustomers(other.api, 2, 'Of another company')
    const customers = await createCustomers(company.api, 3)
    await write(company.api, 'POST', '/v1/projects', { number: `P-${paths}` })
    const renamed = await write(company.api, 'PATCH', `/v1/customers/${customers[0].id}`, {
      companyName: 'Renamed customer'
    })
    await until(() => receiver.accepted(to).length === 4)

    const created = (await eventIds(server().knex, company.id, 'customers.created')).slice(2)
    const [patched] = await eventIds(server().knex, company.id, 'customers.patched')
    const got = receiver.accepted(to)
    assert.deepEqual(
      got.map((d) => d.id),
      [...created, patched],
      'the events after the subscription, in log order, webhook-id = event id (no project, nothing before it)'
    )
    const payloads = got.map((delivery) => verified(delivery, sub.secret))
    assert.deepEqual(
      payloads.map((p) => p.type),
      ['customers.created', 'customers.created', 'customers.created', 'customers.patched']
    )
    assert.deepEqual(
      payloads.map((p) => p.data),
      [...customers, renamed]
    )
    for (const payload of payloads) assert.match(payload.timestamp, ISO)
    assert.deepEqual(Object.keys(JSON.parse(got[0].body)), ['type', 'timestamp', 'data'])
    assert.throws(() => verified({ ...got[0], body: got[0].body.replace('Webhook', 'Forged') }, sub.secret))
    assert.throws(() => verified(got[0], theirs.secret), 'signed with its own subscription secret')

    // The receiver answers before the sender records the attempt: wait until all four are recorded.
    const list = await eventually(
      () => deliveries(company, sub.id),
      (found) => found.items.every((d) => d.deliveredAt !== null)
    )
    assert.equal(list.total, 4)
    assert.deepEqual(
      list.items.map(({ eventId, type, attempts, lastStatus, lastError, nextAttemptAt }) => ({
        eventId,
        type,
        attempts,
        lastStatus,
        lastError,
        nextAttemptAt
      })),
      got.map((d, i) => ({
        eventId: d.id,
        type: payloads[i].type,
        attempts: 1,
        lastStatus: 200,
        lastError: null,
        nextAttemptAt: null
      }))
    )
    for (const item of list.items) {
      assert.match(String(item.deliveredAt), ISO)
      assert.match(String(item.createdAt), ISO)
    }
    const filtered = await deliveries(company, sub.id, { type: 'customers.patched' })
    assert.deepEqual(
      filtered.items.map((item) => item.eventId),
      [patched]
    )
    await until(() => receiver.accepted(theirPath).length === 2)
    assert.deepEqual(
      receiver.accepted(theirPath).map((d) => d.id),
      await eventIds(server().knex, other.id, 'customers.created'),
      "the other company's subscription received its own events only"
    )
  })

  it('retries a failing delivery with the same webhook-id on the schedule and holds the later ones back; all go out in log order', async () => {
    const company = await server().company()
    const to = pathFor('flaky')
    let failures = 3
    receiver.answer(to, () => (failures-- > 0 ? 500 : 204))
    const sub = await subscribe(company, to, { types: ['customers.created'] })
    await createCustomers(company.api, 5)
    await until(() => receiver.accepted(to).length === 5)

    const ids = await eventIds(server().knex, company.id, 'customers.created')
    const all = receiver.to(to)
    assert.deepEqual(
      all.map((d) => [d.id, d.status]),
      [
        [ids[0], 500],
        [ids[0], 500],
        [ids[0], 500],
        [ids[0], 204],
        [ids[1], 204],
        [ids[2], 204],
        [ids[3], 204],
        [ids[4], 204]
      ]
    )
    // The schedule is a floor: 200 ms after the first failure, 400 ms after the second and (it repeats) the third.
    const gap = (i: number) => all[i + 1].at - all[i].at
    assert.ok(gap(0) >= 200 && gap(1) >= 400 && gap(2) >= 400, `gaps ${gap(0)}, ${gap(1)}, ${gap(2)}`)
    for (const delivery of all) verified(delivery, sub.secret)

    const recorded = await eventually(
      () => deliveries(company, sub.id),
      (found) => found.items.every((d) => d.deliveredAt !== null)
    )
    const [first, second] = recorded.items
    assert.deepEqual([first.attempts, first.lastStatus, first.lastError, first.nextAttemptAt], [4, 204, null, null])
    assert.deepEqual([second.attempts, second.lastStatus], [1, 204])
  })

  it('a slow or failing receiver delays only its own subscription', async () => {
    const company = await server().company()
    const [slow, failing, healthy] = [pathFor('slow'), pathFor('failing'), pathFor('healthy')]
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    let failingAnswer = 503
    receiver.answer(slow, async () => {
      await released
      return 200
    })
    receiver.answer(failing, () => failingAnswer)
    for (const path of [slow, failing, healthy]) await subscribe(company, path, { types: ['customers.created'] })
    await createCustomers(company.api, 1)
    // The slow one is waiting for its answer, the failing one is being retried ...
    await until(() => receiver.inFlight(slow) === 1 && receiver.to(failing).length >= 2)
    // ... while the third receives everything that follows.
    await createCustomers(company.api, 20)
    await until(() => receiver.accepted(healthy).length === 21)
    assert.equal(receiver.accepted(slow).length, 0)
    assert.equal(receiver.accepted(failing).length, 0)

    release()
    failingAnswer = 200
    await until(() => receiver.accepted(slow).length === 21 && receiver.accepted(failing).length === 21)
    const ids = await eventIds(server().knex, company.id, 'customers.created')
    for (const path of [slow, failing, healthy])
      assert.deepEqual(
        receiver.accepted(path).map((d) => d.id),
        ids,
        path
      )
  })

  it('replays retained events after an id, as its types select them, behind the deliveries already queued', async () => {
    const company = await server().company()
    const to = pathFor('replay')
    const sub = await subscribe(company, to, { types: ['customers.created'] })
    const customers = await createCustomers(company.api, 3)
    await write(company.api, 'PATCH', `/v1/customers/${customers[0].id}`, { companyName: 'Not asked for' })
    await until(() => receiver.accepted(to).length === 3)

    // Two more wait, the first being retried while the receiver fails.
    let failing = true
    receiver.answer(to, () => (failing ? 500 : 200))
    await createCustomers(company.api, 2)
    await eventually(
      () => deliveries(company, sub.id),
      (list) => list.total === 5
    )
    const ids = await eventIds(server().knex, company.id, 'customers.created')
    const replayed = await company.api.post(`/v1/webhook-subscriptions/${sub.id}/replay`, { after: ids[0] })
    assert.equal(replayed.status, 202, replayed.text)
    assert.deepEqual(replayed.body, { queued: 4 })
    failing = false
    await until(() => receiver.accepted(to).length === 9)
    assert.deepEqual(
      receiver.accepted(to).map((d) => d.id),
      [...ids, ...ids.slice(1)],
      'the queued ones first, then the replayed ones in log order, each with its event id'
    )
    for (const delivery of receiver.accepted(to)) verified(delivery, sub.secret)
    assert.equal((await deliveries(company, sub.id)).total, 9)

    const all = await company.api.post(`/v1/webhook-subscriptions/${sub.id}/replay`, { after: '0' })
    assert.deepEqual(all.body, { queued: 5 })
    await until(() => receiver.accepted(to).length === 14)
  })

  it('sends only the collections the key that set it up can read', async () => {
    const company = await server().company()
    const { key } = await createApiKey(server().knex, server().app.get('appSecret'), {
      companyId: company.id,
      userId: company.adminUserId,
      scopes: ['customers:read', 'webhook-subscriptions:write']
    })
    const narrow = new HttpClient(server().url, key)
    const to = pathFor('scoped')
    await subscribe(company, to, {}, narrow)
    await write(company.api, 'POST', '/v1/projects', { number: 'P-scoped' })
    await write(company.api, 'POST', '/v1/users', { fullName: 'Not for this key', email: `u-${paths}@example.test` })
    const [customer] = await createCustomers(company.api, 1)
    await until(() => receiver.accepted(to).length >= 1)
    assert.deepEqual(
      receiver.accepted(to).map((d) => JSON.parse(d.body).type),
      ['customers.created'],
      'the project and the user, logged before the customer, were not sent'
    )
    assert.equal(JSON.parse(receiver.accepted(to)[0].body).data.id, customer.id)
  })

  it('deactivation gives up the queue; after reactivation only new events go out, and a replay brings the rest', async () => {
    const company = await server().company()
    const to = pathFor('toggle')
    receiver.answer(to, () => 500)
    const sub = await subscribe(company, to, { types: ['customers.created'] })
    await createCustomers(company.api, 2)
    await until(() => receiver.to(to).length >= 1)
    // The second waits behind the failing first.
    await eventually(
      () => deliveries(company, sub.id),
      (list) => list.total === 2
    )
    const path = `/v1/webhook-subscriptions/${sub.id}`
    const off = await company.api.patch(path, { deactivatedAt: new Date().toISOString() })
    assert.equal(off.status, 200, off.text)
    const given = await deliveries(company, sub.id)
    assert.equal(given.total, 2)
    for (const item of given.items) {
      assert.equal(item.nextAttemptAt, null)
      assert.equal(item.deliveredAt, null)
    }
    assert.equal(given.items[1].lastError, 'not sent: the subscription was deactivated')

    await createCustomers(company.api, 1, 'While deactivated')
    receiver.answer(to, () => 200)
    assert.equal((await company.api.patch(path, { deactivatedAt: null })).status, 200)
    await createCustomers(company.api, 1, 'After reactivation')
    const ids = await eventIds(server().knex, company.id, 'customers.created')
    await until(() => receiver.accepted(to).length === 1)
    assert.equal(receiver.accepted(to)[0].id, ids[3])

    const replayed = await company.api.post(`${path}/replay`, { after: '0' })
    assert.deepEqual(replayed.body, { queued: 4 })
    await until(() => receiver.accepted(to).length === 5)
    assert.deepEqual(
      receiver.accepted(to).map((d) => d.id),
      [ids[3], ...ids]
    )
  })

  describe('after the failure window', () => {
    // Names resolve through this table: the subscription's host resolves to a public address when it
    // is saved and to the loopback when deliveries go out (DNS rebinding). Nothing is ever sent.
    const names: Record<string, string[]> = { 'rebind.example.test': ['93.184.216.34'] }
    const windowed = webhookServer(
      suite,
      'webhooks-window',
      { allowPrivateUrls: false, retryDelaysMs: [100], failureWindowMs: 1000 },
      (app) => app.set('webhookResolver', async (host: string) => names[host] ?? [])
    )

    it('refuses a host that now resolves to a private address, retries, and deactivates the subscription when the window has passed', async () => {
      const company = await windowed().company()
      const res = await company.api.post('/v1/webhook-subscriptions', {
        url: 'https://rebind.example.test/hook',
        types: ['customers.created']
      })
      assert.equal(res.status, 201, res.text)
      names['rebind.example.test'] = ['127.0.0.1']
      await createCustomers(company.api, 2)
      const sub = await eventually(
        async () => (await company.api.get(`/v1/webhook-subscriptions/${res.body.id}`)).body,
        (found) => found.deactivatedAt !== null
      )
      assert.match(sub.deactivatedAt, ISO)
      const list = (await company.api.get(`/v1/webhook-subscriptions/${sub.id}/deliveries`)).body
      const [first, second] = list.items
      assert.ok(first.attempts >= 2, `attempts ${first.attempts}`)
      assert.equal(first.lastStatus, null)
      // The name, not what it resolved to: an address would map the network behind the server.
      assert.equal(
        first.lastError,
        'refused: rebind.example.test resolves to a private, loopback or link-local address'
      )
      assert.deepEqual(
        [first.nextAttemptAt, first.deliveredAt, second.attempts, second.nextAttemptAt, second.lastError],
        [null, null, 0, null, 'not sent: the subscription was deactivated']
      )
      // The deactivation is a logged change of the server's own (CONTRACT §13.1 actor `system`).
      const logged = await windowed()
        .knex('event_log')
        .where({ companyId: company.id, type: 'webhook-subscriptions.patched' })
        .orderBy('id', 'desc')
        .first()
      assert.equal(JSON.parse(logged.data).deactivatedAt, sub.deactivatedAt)
      assert.deepEqual(JSON.parse(logged.actor), { system: true })
    })
  })
})
