import assert from 'node:assert/strict'
import net from 'node:net'
import type { Server } from 'node:http'
import { forEachDatabase, TestCompany } from '../support/harness'
import { socketClient } from '../support/socket'
import { until } from '../support/wait'
import { createApp } from '../../src/app'
import { revokeApiKey } from '../../src/auth/api-keys'
import { HttpClient } from '../support/http'
import type { Application } from '../../src/declarations'

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379'

/** Collects the events of one service on a client. */
function recorder(service: any) {
  const events: { event: string; data: any }[] = []
  for (const event of ['created', 'patched', 'removed']) service.on(event, (data: any) => events.push({ event, data }))
  return events
}

const redisAnswers = () =>
  new Promise<boolean>((resolve) => {
    const { hostname, port } = new URL(REDIS_URL)
    const socket = net.connect(Number(port || 6379), hostname)
    socket.once('connect', () => (socket.end(), resolve(true)))
    socket.once('error', () => resolve(false))
  })

forEachDatabase('realtime', (suite) => {
  let a: TestCompany
  let b: TestCompany

  before(async () => {
    a = await suite.company()
    b = await suite.company()
  })

  it("delivers created, patched and removed of the socket's company only, resolved like REST", async () => {
    const sa = socketClient(suite.server().url)
    const sb = socketClient(suite.server().url)
    const anonymous = socketClient(suite.server().url)
    try {
      await sa.client.authenticate({ strategy: 'apiKey', apiKey: a.apiKey })
      await sb.client.authenticate({ strategy: 'apiKey', apiKey: b.apiKey })
      const eventsA = recorder(sa.client.service('v1/customers'))
      const eventsB = recorder(sb.client.service('v1/customers'))
      const eventsAnon = recorder(anonymous.client.service('v1/customers'))

      const created = await a.api.post('/v1/customers', { companyName: 'Live GmbH' })
      await a.api.patch(`/v1/customers/${created.body.id}`, { number: 'L-1' })
      await a.api.delete(`/v1/customers/${created.body.id}`)
      await until(() => eventsA.length >= 3)
      assert.deepEqual(
        eventsA.map((e) => e.event),
        ['created', 'patched', 'removed']
      )
      assert.deepEqual(eventsA[0].data, created.body)
      assert.equal(eventsA[1].data.number, 'L-1')
      assert.equal(eventsA[2].data.id, created.body.id)

      // B's own write reaches B, proving B's socket works, while A's writes never did.
      await b.api.post('/v1/customers', { companyName: 'B only' })
      await until(() => eventsB.length >= 1)
      assert.deepEqual(
        eventsB.map((e) => e.data.companyName),
        ['B only']
      )
      assert.equal(eventsAnon.length, 0)
      assert.ok(!eventsA.some((e) => e.data.companyName === 'B only'))
    } finally {
      sa.close()
      sb.close()
      anonymous.close()
    }
  })

  it('disconnects the sockets of a key revoked elsewhere (CLI, another instance)', async function () {
    const c = await suite.company()
    const s = socketClient(suite.server().url)
    try {
      await s.client.authenticate({ strategy: 'apiKey', apiKey: c.apiKey })
      const disconnected = new Promise<void>((resolve) => s.socket.once('disconnect', () => resolve()))
      await revokeApiKey(suite.server().knex, c.apiKeyId)
      await disconnected
      assert.equal(s.socket.connected, false)
    } finally {
      s.close()
    }
  })

  it('counts requests per key and version, written in batches', async () => {
    const c = await suite.company()
    for (let i = 0; i < 5; i++) assert.equal((await c.api.get('/v1/customers')).status, 200)
    await suite
      .server()
      .app.get('usage' as any)
      .flush()
    for (let i = 0; i < 2; i++) await c.api.get('/v1/customers')
    await suite
      .server()
      .app.get('usage' as any)
      .flush()
    const rows = await suite.server().knex('api_usage').where({ apiKeyId: c.apiKeyId })
    assert.equal(rows.length, 1)
    assert.equal(rows[0].version, 'v1')
    assert.equal(Number(rows[0].requestCount), 7)
  })

  describe('several instances through Redis', function () {
    const instances: { app: Application; url: string }[] = []

    before(async function () {
      if (!(await redisAnswers())) {
        console.log(`      (skipped: no Redis answering at ${REDIS_URL})`)
        this.skip()
      }
      const syncKey = `crewclock-test-${process.pid}-${suite.db.name}`
      for (let i = 0; i < 2; i++) {
        const app = createApp({
          redisUrl: REDIS_URL,
          syncKey,
          database: { url: suite.db.url },
          dataDir: suite.server().app.get('dataDir')
        } as any)
        const server: Server = await app.listen(0)
        const address = server.address()
        instances.push({ app, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` })
      }
    })

    after(async () => {
      for (const { app } of instances) await app.teardown()
    })

    it('a socket on instance A receives the event of a write made through instance B, once', async () => {
      const c = await suite.company()
      const s = socketClient(instances[0].url)
      try {
        await s.client.authenticate({ strategy: 'apiKey', apiKey: c.apiKey })
        const events = recorder(s.client.service('v1/customers'))
        const created = await new HttpClient(instances[1].url, c.apiKey).post('/v1/customers', {
          companyName: 'Across instances'
        })
        assert.equal(created.status, 201)
        await until(() => events.length >= 1)
        await new Promise((r) => setTimeout(r, 200))
        assert.equal(events.length, 1)
        assert.deepEqual(events[0], { event: 'created', data: created.body })
      } finally {
        s.close()
      }
    })
  })
})
