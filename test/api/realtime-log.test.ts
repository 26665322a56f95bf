import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import type { Server } from 'node:http'
import { forEachDatabase, TestCompany } from '../support/harness'
import { HttpClient } from '../support/http'
import { freePort, liveSocket, LiveSocket, redisAnswers } from '../support/live-socket'
import { headOf, readAll } from '../support/changes'
import { settingsSession } from '../support/settings-session'
import { startServe, stopProcess } from '../support/cli'
import { newUser } from '../support/users'
import { until } from '../support/wait'
import { createApp } from '../../src/app'
import { createApiKey } from '../../src/auth/api-keys'
import type { Application } from '../../src/declarations'

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379'

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64'
)
const png = () => {
  const body = new FormData()
  body.append('file', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'photo.png')
  return body
}

/** A plain socket.io client (see live-socket.ts) that also keeps every `crewclock event`, the log entries. */
interface LogSocket extends LiveSocket {
  log: any[]
}

function logSocket(url: string, apiKey: string): LogSocket {
  const live = liveSocket(url, apiKey) as LogSocket
  live.log = []
  live.socket.on('crewclock event', (entry: any) => live.log.push(entry))
  return live
}

/** The service event each log entry of a record stands for, as a socket receives it. */
const serviceEventsOf = (entries: any[], pathOf: (entry: any) => string = (e) => `v1/${e.type.split('.')[0]}`) =>
  entries
    .filter((entry) => !entry.type.startsWith('company.'))
    .map((entry) => ({ path: pathOf(entry), event: entry.type.split('.')[1], data: entry.data }))

const increasing = (ids: string[]) => ids.every((id, i) => i === 0 || Number(id) > Number(ids[i - 1]))

/**
 * CONTRACT §13.1: realtime delivered from the event log. Two instances on one database and Redis;
 * each socket gets every event of its company once, in log order, as the service event and as the
 * whole log entry (`crewclock event`), filtered by its key's scopes as the change feed filters.
 */
forEachDatabase('realtime from the event log', (suite) => {
  const instances: { app: Application; url: string }[] = []
  let syncKey: string

  before(async function () {
    if (!(await redisAnswers(REDIS_URL))) {
      console.log(`      (skipped: no Redis answering at ${REDIS_URL})`)
      this.skip()
    }
    syncKey = `crewclock-test-${crypto.randomUUID()}`
    for (let i = 0; i < 2; i++) {
      const app = createApp({
        redisUrl: REDIS_URL,
        syncKey,
        database: { url: suite.db.url },
        dataDir: suite.server().app.get('dataDir'),
        uploads: suite.server().app.get('uploads')
      })
      const server: Server = await app.listen(0)
      instances.push({ app, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` })
    }
  })

  after(async () => {
    for (const { app } of instances) await app.teardown()
  })

  const through = (i: number, company: TestCompany) => new HttpClient(instances[i].url, company.apiKey)

  const keyWith = async (company: TestCompany, scopes: string[]) =>
    (
      await createApiKey(suite.server().knex, suite.server().app.get('appSecret'), {
        companyId: company.id,
        userId: company.adminUserId,
        scopes
      })
    ).key

  it('60 writes at once through both instances: every socket on either gets each event once, in log order, as the feed has it; another company gets none', async () => {
    const c = await suite.company()
    const other = await suite.company()
    const sockets = [0, 0, 1, 1].map((i) => logSocket(instances[i].url, c.apiKey))
    const stranger = logSocket(instances[0].url, other.apiKey)
    try {
      await Promise.all([...sockets, stranger].map((s) => s.loggedIn()))
      const start = await headOf(c.api)
      const writes = await Promise.all([
        ...Array.from({ length: 60 }, (_, i) =>
          through(i % 2, c).post('/v1/customers', { companyName: `Concurrent ${i}` })
        ),
        ...Array.from({ length: 10 }, (_, i) =>
          through(i % 2, other).post('/v1/customers', { companyName: `Stranger ${i}` })
        )
      ])
      for (const res of writes) assert.equal(res.status, 201, res.text)

      const { items } = await readAll(c.api, start)
      assert.equal(items.length, 60)
      assert.ok(increasing(items.map((item) => item.id)), 'the feed is in id order')
      await until(() => sockets.every((s) => s.log.length >= 60) && stranger.log.length >= 10)
      // A last write is the next event each socket gets: nothing came twice or late before it.
      const last = await through(1, c).post('/v1/customers', { companyName: 'Last' })
      assert.equal(last.status, 201)
      await until(() => sockets.every((s) => s.log.length >= 61))
      const all = (await readAll(c.api, start)).items
      for (const [i, s] of sockets.entries()) {
        assert.deepEqual(s.log, all, `socket ${i}: the log's entries, each once, in id order`)
        assert.deepEqual(s.events, serviceEventsOf(all), `socket ${i}: the service events, in the same order`)
      }
      assert.ok(stranger.log.every((entry) => entry.data.companyName.startsWith('Stranger ')))
      assert.equal(stranger.log.length, 10)
    } finally {
      ;[...sockets, stranger].forEach((s) => s.close())
    }
  })

  it("a week move's days, week and month reach a socket of the other instance, as logged", async () => {
    const c = await suite.company()
    const userId = await newUser(c, { employedFrom: '2026-09-01' })
    const typeId = (await suite.server().knex('timeEntryTypes').where({ companyId: c.id }).orderBy('order').first('id'))
      .id
    const entry = await c.api.post('/v1/time-entries', {
      typeId,
      userId,
      startsAt: '2026-10-06T08:00:00.000Z',
      endsAt: '2026-10-06T12:00:00.000Z'
    })
    assert.equal(entry.status, 201, entry.text)
    const week = await c.api.get('/v1/time-sheet-weeks/by-user', { userId, weekStart: '2026-10-05' })
    const month = await c.api.get('/v1/time-sheet-months/by-user', { userId, month: '2026-10-01' })
    const live = logSocket(instances[0].url, c.apiKey)
    try {
      await live.loggedIn()
      const start = await headOf(c.api)
      const moved = await through(1, c).patch(`/v1/time-sheet-weeks/${week.body.id}`, { status: 'submitted' })
      assert.equal(moved.status, 200, moved.text)
      const { items } = await readAll(c.api, start)
      await until(() => live.log.length >= items.length)
      assert.deepEqual(live.log, items)
      assert.deepEqual(live.events, serviceEventsOf(items))
      assert.deepEqual(live.of('v1/time-sheet-weeks', 'patched')[0].data, moved.body)
      assert.equal(new Set(live.of('v1/time-sheet-days').map((e) => e.data.day)).size, 7)
      assert.deepEqual(
        live.of('v1/time-sheet-months').map((e) => [e.event, e.data.id, e.data.submittedCount]),
        [['patched', month.body.id, 7]]
      )
    } finally {
      live.close()
    }
  })

  it('company.recomputed comes as a crewclock event only, to keys that read time sheets', async () => {
    const c = await suite.company()
    const userId = await newUser(c, { employedFrom: '2026-09-01' })
    assert.equal((await c.api.get('/v1/time-sheet-months/by-user', { userId, month: '2026-10-01' })).status, 200)
    const sheets = logSocket(instances[0].url, await keyWith(c, ['time-sheet-days:read', 'customers:read']))
    const customersOnly = logSocket(instances[1].url, await keyWith(c, ['customers:read']))
    try {
      await Promise.all([sheets.loggedIn(), customersOnly.loggedIn()])
      const start = await headOf(c.api)
      // The settings page runs on another instance: the wake-up does not reach these two, the poll finds it.
      const admin = await settingsSession(suite.server(), c)
      const version = await admin.post('/settings/working-times', {
        validFrom: '2026-10-01',
        targetMinutes: { monday: 60, tuesday: 0, wednesday: 0, thursday: 0, friday: 0, saturday: 0, sunday: 0 }
      })
      assert.equal(version.status, 201, version.text)
      const after = await c.api.post('/v1/customers', { companyName: 'After the recompute' })
      assert.equal(after.status, 201)
      const { items } = await readAll(c.api, start)
      assert.deepEqual(
        items.map((item) => item.type),
        ['company.recomputed', 'customers.created']
      )
      await until(() => sheets.log.length >= 2 && customersOnly.log.length >= 1)
      assert.deepEqual(sheets.log, items)
      assert.deepEqual(sheets.events, [{ path: 'v1/customers', event: 'created', data: after.body }])
      assert.deepEqual(customersOnly.log, [items[1]])
    } finally {
      sheets.close()
      customersOnly.close()
    }
  })

  it("a key's socket gets what its scopes read, as the feed shows that key; uploads on their parent's pattern path", async () => {
    const c = await suite.company()
    const keys = {
      all: c.apiKey,
      customers: await keyWith(c, ['customers:read']),
      assignments: await keyWith(c, ['assignments:write']),
      projects: await keyWith(c, ['projects:read'])
    }
    const sockets = Object.fromEntries(
      Object.entries(keys).map(([name, key], i) => [name, logSocket(instances[i % 2].url, key)])
    ) as Record<keyof typeof keys, LogSocket>
    try {
      await Promise.all(Object.values(sockets).map((s) => s.loggedIn()))
      const start = await headOf(c.api)
      const customer = await through(0, c).post('/v1/customers', { companyName: 'Scoped GmbH' })
      const assignment = await through(1, c).post('/v1/assignments', { name: 'Scoped', customerId: customer.body.id })
      const upload = await through(0, c).post(`/v1/assignments/${assignment.body.id}/uploads`, undefined, {
        raw: png()
      })
      assert.equal(upload.status, 201, upload.text)
      assert.equal((await through(1, c).delete(`/v1/assignments/${assignment.body.id}`)).status, 204)
      // Last, one write each key reads (the full key all three): once it is there, nothing it may read is still to come.
      assert.equal((await through(0, c).post('/v1/projects', { number: 'P-1' })).status, 201)
      assert.equal((await through(1, c).patch(`/v1/customers/${customer.body.id}`, { number: 'C-1' })).status, 200)
      assert.equal(
        (await through(0, c).post('/v1/assignments', { name: 'Last', customerId: customer.body.id })).status,
        201
      )

      const seen = async (key: string) => (await readAll(c.api.withKey(key), start)).items
      const expected = {
        all: await seen(keys.all),
        customers: await seen(keys.customers),
        assignments: await seen(keys.assignments),
        projects: await seen(keys.projects)
      }
      assert.deepEqual(
        expected.customers.map((item) => item.type),
        ['customers.created', 'customers.patched']
      )
      assert.deepEqual(
        expected.assignments.map((item) => item.type),
        ['assignments.created', 'uploads.created', 'uploads.removed', 'assignments.removed', 'assignments.created']
      )
      assert.deepEqual(
        expected.projects.map((item) => item.type),
        ['projects.created']
      )
      const names = Object.keys(keys) as (keyof typeof keys)[]
      await until(() => names.every((name) => sockets[name].log.length >= expected[name].length))
      for (const name of names)
        assert.deepEqual(sockets[name].log, expected[name], `${name}: the feed's entries for this key`)
      const onPattern = (entry: any) =>
        entry.type.startsWith('uploads.') ? 'v1/assignments/:assignmentId/uploads' : `v1/${entry.type.split('.')[0]}`
      assert.deepEqual(sockets.assignments.events, serviceEventsOf(expected.assignments, onPattern))
      assert.deepEqual(sockets.assignments.of('v1/assignments/:assignmentId/uploads', 'created')[0].data, upload.body)
      assert.deepEqual(sockets.all.events, serviceEventsOf(expected.all, onPattern))
    } finally {
      Object.values(sockets).forEach((s) => s.close())
    }
  })

  it('a socket authenticated again with another company gets only the second one’s events from then on', async () => {
    const c = await suite.company()
    const d = await suite.company()
    const live = logSocket(instances[0].url, c.apiKey)
    try {
      await live.loggedIn()
      const { error } = await live.call('create', 'authentication', { strategy: 'apiKey', apiKey: d.apiKey })
      assert.equal(error, null)
      assert.equal((await through(1, c).post('/v1/customers', { companyName: 'Left behind' })).status, 201)
      const mine = await through(1, d).post('/v1/customers', { companyName: 'Now mine' })
      await until(() => live.log.length >= 1)
      const last = await through(0, d).post('/v1/customers', { companyName: 'Also mine' })
      await until(() => live.log.length >= 2)
      assert.deepEqual(
        live.log.map((entry) => entry.data),
        [mine.body, last.body]
      )
    } finally {
      live.close()
    }
  })

  it('an instance restarts: its client reconnects and gets the events after it logged in again; the gap is in the feed after the last id it saw', async () => {
    const c = await suite.company()
    const port = String(await freePort())
    const env = {
      DATABASE_URL: suite.server().db.url,
      DATA_DIR: suite.server().app.get('dataDir'),
      REDIS_URL,
      SYNC_KEY: syncKey,
      PORT: port
    }
    let served = await startServe(env)
    const live = logSocket(served.url, c.apiKey)
    try {
      await live.loggedIn()
      const before = await through(0, c).post('/v1/customers', { companyName: 'Before' })
      await until(() => live.log.length === 1)
      await stopProcess(served.child)
      await until(() => live.disconnects.length === 1)
      assert.deepEqual(live.disconnects, ['transport close'])
      const during = await through(0, c).post('/v1/customers', { companyName: 'While it was away' })
      assert.equal(during.status, 201)

      served = await startServe(env)
      await live.loggedIn(2)
      const after = await through(1, c).post('/v1/customers', { companyName: 'After' })
      await until(() => live.log.length === 2)
      assert.deepEqual(
        live.log.map((entry) => entry.data),
        [before.body, after.body]
      )
      // What it missed: the feed after the last id the client saw.
      const { items } = await readAll(c.api, live.log[0].id)
      assert.deepEqual(
        items.map((item) => item.data),
        [during.body, after.body]
      )
    } finally {
      live.close()
      await stopProcess(served.child)
    }
  })
})
