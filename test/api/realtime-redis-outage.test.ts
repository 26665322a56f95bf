import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import type { Server } from 'node:http'
import { forEachDatabase, TestCompany } from '../support/harness'
import { HttpClient } from '../support/http'
import { freePort, liveSocket, LiveSocket, ownRedis } from '../support/live-socket'
import { eventually, until } from '../support/wait'
import { TcpProxy } from '../support/proxy'
import { createApp } from '../../src/app'
import type { Application } from '../../src/declarations'

interface Instance {
  app: Application
  url: string
  http: HttpClient
}

/**
 * CONTRACT §12, Redis outage: two instances on a redis-server of the test's own, which the test
 * stops and starts. HTTP keeps working; sockets are closed (transport close) and refused while the
 * instances cannot reach each other, so that their clients reconnect and read again afterwards
 * instead of silently missing events; realtime resumes without a restart.
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

  /**
   * Writes through `instance` until `live` receives one of these writes; a socket closed meanwhile
   * (a resync) reconnects and logs in again first.
   */
  async function receivesAgain(live: LiveSocket, instance: Instance) {
    for (let i = 0; ; i++) {
      const loggedIn = () => live.timeline.filter((t) => t === 'login' || t.startsWith('disconnect')).at(-1) === 'login'
      await until(() => live.socket.connected && loggedIn())
      const closes = live.disconnects.length
      const name = `Probe ${crypto.randomUUID()}`
      assert.equal((await write(instance, name)).status, 201)
      const arrived = () => live.events.some((e) => e.data.companyName === name)
      await until(() => arrived() || live.disconnects.length > closes)
      if (arrived()) return
    }
  }

  it('an instance starts while Redis is down: HTTP serves, /ready says realtime is degraded, sockets wait until Redis is up', async () => {
    for (const instance of instances) {
      const ready = await readiness(instance)
      assert.equal(ready.status, 200)
      assert.deepEqual(ready.body, { status: 'ready', realtime: 'degraded' })
    }
    assert.equal((await write(instances[0], 'While Redis never was')).status, 201)
    const live = liveSocket(instances[0].url, c.apiKey)
    try {
      await until(() => live.connectErrors >= 2)
      assert.equal(live.logins, 0, 'refused, and retried by socket.io')

      redis = await ownRedis(Number(new URL(redisUrl).port))
      await allReady()
      await live.loggedIn()
      assert.equal((await write(instances[1], 'Redis is up')).status, 201)
      await until(() => live.events.length === 1)
      assert.equal(live.events[0].data.companyName, 'Redis is up')
    } finally {
      live.close()
    }
  })

  it('Redis stops: sockets on both instances are closed and kept away, HTTP works; Redis is back: events flow again', async () => {
    await allReady()
    const sockets: LiveSocket[] = instances.map((instance) => liveSocket(instance.url, c.apiKey))
    try {
      await Promise.all(sockets.map((s) => s.loggedIn()))
      await redis!.stop()
      await until(() => sockets.every((s) => s.disconnects.length === 1))
      for (const s of sockets) assert.deepEqual(s.disconnects, ['transport close'])
      for (const instance of instances) {
        const ready = await eventually(
          () => readiness(instance),
          (res) => res.body.realtime === 'degraded'
        )
        assert.equal(ready.status, 200)
      }
      assert.equal((await write(instances[0], 'During the outage')).status, 201)
      assert.equal((await new HttpClient(instances[1].url, c.apiKey).get('/v1/customers')).status, 200)
      // socket.io keeps trying; each attempt is refused while Redis is away.
      await until(() => sockets.every((s) => s.connectErrors >= 1))
      assert.ok(sockets.every((s) => s.logins === 1))

      redis = await ownRedis(Number(new URL(redisUrl).port))
      await allReady()
      await Promise.all(sockets.map((s) => s.loggedIn(2)))
      // The write during the outage could not be sent: its company's sockets may be closed once more to resync.
      for (const s of sockets) for (const instance of instances) await receivesAgain(s, instance)
    } finally {
      sockets.forEach((s) => s.close())
    }
  })

  it('an instance cut off from Redis: once back, the others close the sockets of the companies whose events it could not send', async () => {
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
    const cutOff: Instance = {
      app,
      url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
      http: new HttpClient(`http://127.0.0.1:${(server.address() as { port: number }).port}`)
    }
    const other = await suite.company()
    const missing = liveSocket(instances[1].url, c.apiKey)
    const unconcerned = liveSocket(instances[1].url, other.apiKey)
    try {
      await eventually(
        () => readiness(cutOff),
        (res) => res.body.realtime === 'ok'
      )
      await Promise.all([missing.loggedIn(), unconcerned.loggedIn()])
      await proxy.stop()
      await eventually(
        () => readiness(cutOff),
        (res) => res.body.realtime === 'degraded'
      )
      assert.equal((await write(cutOff, 'Not sent')).status, 201)
      assert.deepEqual(await Promise.all(instances.map((i) => readiness(i).then((r) => r.body.realtime))), ['ok', 'ok'])

      await proxy.start()
      await until(() => missing.disconnects.length === 1)
      assert.deepEqual(missing.disconnects, ['transport close'])
      await missing.loggedIn(2)
      // The instance handled the resync before `missing` saw its close: a call answered now shows the other company's socket left open.
      assert.equal((await unconcerned.call('find', 'v1/customers', {})).error, null)
      assert.deepEqual(unconcerned.disconnects, [])
    } finally {
      missing.close()
      unconcerned.close()
      await app.teardown()
      await proxy.stop()
    }
  })
})
