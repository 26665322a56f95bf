import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import type { Server } from 'node:http'
import { forEachDatabase, TestCompany } from '../support/harness'
import { HttpClient } from '../support/http'
import { freePort, liveSocket, LiveSocket, ownRedis } from '../support/live-socket'
import { eventually, until } from '../support/wait'
import { headOf, readAll } from '../support/changes'
import { TcpProxy } from '../support/proxy'
import { createApp } from '../../src/app'
import type { Application } from '../../src/declarations'

interface Instance {
  app: Application
  url: string
  http: HttpClient
}

/** A live socket (live-socket.ts) that also keeps every `crewclock event`, the log entries. */
interface LogSocket extends LiveSocket {
  log: any[]
}

function logSocket(url: string, apiKey: string): LogSocket {
  const live = liveSocket(url, apiKey) as LogSocket
  live.log = []
  live.socket.on('crewclock event', (entry: any) => live.log.push(entry))
  return live
}

/**
 * CONTRACT §12, Redis outage: two instances on a redis-server of the test's own, which the test
 * stops and starts. HTTP keeps working, and so does realtime: every instance reads the events from
 * the log (woken over Redis, or by its poll when the wake-up is lost), so sockets stay open, new
 * ones are admitted, and the writes made during the outage reach every socket in log order, each
 * once. `/ready` says `degraded` while an instance cannot reach Redis.
 */
forEachDatabase('realtime: Redis outage', (suite) => {
  let redisUrl: string
  let redis: Awaited<ReturnType<typeof ownRedis>> | undefined
  const instances: Instance[] = []
  let c: TestCompany

  before(async () => {
    redisUrl = `redis://127.0.0.1:${await freePort()}`
    const syncKey = `crewclock-test-${crypto.randomUUID()}`
    // Started while Redis is down: the old setup waited for Redis and never listened.
    for (let i = 0; i < 2; i++) {
      const app = createApp({
        redisUrl,
        syncKey,
        database: { url: suite.db.url },
        dataDir: suite.server().app.get('dataDir')
      })
      const server: Server = await app.listen(0)
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
      instances.push({ app, url, http: new HttpClient(url) })
    }
    c = await suite.company()
  })

  after(async () => {
    for (const { app } of instances) await app.teardown()
    await redis?.stop()
  })

  const readiness = (instance: Instance) => instance.http.get('/ready')
  const allReady = () =>
    Promise.all(
      instances.map((instance) =>
        eventually(
          () => readiness(instance),
          (res) => res.body.realtime === 'ok'
        )
      )
    )
  const write = (instance: Instance, companyName: string) =>
    new HttpClient(instance.url, c.apiKey).post('/v1/customers', { companyName })

  /** Waits until every socket has the feed's entries after `start`, then checks each has exactly those, in order. */
  async function allDelivered(sockets: LogSocket[], start: string) {
    const { items } = await readAll(c.api, start)
    await until(() => sockets.every((s) => s.log.length >= items.length))
    for (const [i, s] of sockets.entries()) {
      assert.deepEqual(s.log, items, `socket ${i}: every entry once, in log order`)
      assert.deepEqual(
        s.of('v1/customers', 'created').map((e) => e.data),
        items.map((item) => item.data)
      )
    }
    return items
  }

  it("an instance starts while Redis is down: HTTP serves, /ready says realtime is degraded, sockets are admitted and get the other instance's events", async () => {
    for (const instance of instances) {
      const ready = await readiness(instance)
      assert.equal(ready.status, 200)
      assert.deepEqual(ready.body, { status: 'ready', realtime: 'degraded' })
    }
    assert.equal((await write(instances[0], 'While Redis never was')).status, 201)
    const live = logSocket(instances[0].url, c.apiKey)
    try {
      await live.loggedIn()
      const start = await headOf(c.api)
      assert.equal((await write(instances[1], 'Across, without Redis')).status, 201)
      await until(() => live.log.length === 1)

      redis = await ownRedis(Number(new URL(redisUrl).port))
      await allReady()
      assert.equal((await write(instances[1], 'Redis is up')).status, 201)
      const items = await allDelivered([live], start)
      assert.deepEqual(
        items.map((item) => item.data.companyName),
        ['Across, without Redis', 'Redis is up']
      )
      assert.deepEqual(live.disconnects, [])
    } finally {
      live.close()
    }
  })

  it('Redis stops: sockets on both instances stay open, writes through both during the outage reach them all, in order, none missing, none twice', async () => {
    await allReady()
    const sockets = [0, 0, 1, 1].map((i) => logSocket(instances[i].url, c.apiKey))
    try {
      await Promise.all(sockets.map((s) => s.loggedIn()))
      const start = await headOf(c.api)
      await redis!.stop()
      for (const instance of instances) {
        const ready = await eventually(
          () => readiness(instance),
          (res) => res.body.realtime === 'degraded'
        )
        assert.equal(ready.status, 200)
      }
      const during = await Promise.all(
        Array.from({ length: 20 }, (_, i) => write(instances[i % 2], `During the outage ${i}`))
      )
      for (const res of during) assert.equal(res.status, 201, res.text)
      // A socket opened during the outage is admitted and gets what follows.
      const late = logSocket(instances[1].url, c.apiKey)
      sockets.push(late)
      await late.loggedIn()
      const lateStart = await headOf(c.api)

      redis = await ownRedis(Number(new URL(redisUrl).port))
      await allReady()
      assert.equal((await write(instances[0], 'After the outage')).status, 201)
      const items = await allDelivered(sockets.slice(0, 4), start)
      assert.equal(items.length, 21)
      assert.deepEqual(late.log, (await readAll(c.api, lateStart)).items)
      for (const s of sockets) {
        assert.deepEqual(s.disconnects, [], 'no socket was closed')
        assert.equal(s.logins, 1)
      }
    } finally {
      sockets.forEach((s) => s.close())
    }
  })

  it('an instance cut off from Redis: its writes reach the sockets of the others and theirs reach its sockets, with no socket closed', async () => {
    await allReady()
    const port = Number(new URL(redisUrl).port)
    const proxy = new TcpProxy('127.0.0.1', port)
    await proxy.start()
    const app = createApp({
      redisUrl: proxy.proxiedUrl(redisUrl),
      syncKey: instances[0].app.get('syncKey'),
      database: { url: suite.db.url },
      dataDir: suite.server().app.get('dataDir')
    })
    const server: Server = await app.listen(0)
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
    const cutOff: Instance = { app, url, http: new HttpClient(url) }
    const other = await suite.company()
    const sockets = [logSocket(instances[1].url, c.apiKey), logSocket(cutOff.url, c.apiKey)]
    const unconcerned = logSocket(instances[1].url, other.apiKey)
    try {
      await eventually(
        () => readiness(cutOff),
        (res) => res.body.realtime === 'ok'
      )
      await Promise.all([...sockets, unconcerned].map((s) => s.loggedIn()))
      const start = await headOf(c.api)
      await proxy.stop()
      await eventually(
        () => readiness(cutOff),
        (res) => res.body.realtime === 'degraded'
      )
      assert.equal((await write(cutOff, 'From the cut-off instance')).status, 201)
      assert.equal((await write(instances[1], 'To the cut-off instance')).status, 201)
      assert.deepEqual(await Promise.all(instances.map((i) => readiness(i).then((r) => r.body.realtime))), ['ok', 'ok'])
      await allDelivered(sockets, start)

      await proxy.start()
      await eventually(
        () => readiness(cutOff),
        (res) => res.body.realtime === 'ok'
      )
      assert.equal((await write(cutOff, 'Back')).status, 201)
      const items = await allDelivered(sockets, start)
      assert.equal(items.length, 3)
      for (const s of [...sockets, unconcerned]) assert.deepEqual(s.disconnects, [])
      assert.deepEqual(unconcerned.log, [])
    } finally {
      ;[...sockets, unconcerned].forEach((s) => s.close())
      await app.teardown()
      await proxy.stop()
    }
  })
})
