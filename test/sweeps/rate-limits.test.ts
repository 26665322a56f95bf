import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import crypto from 'node:crypto'
import http, { type Server } from 'node:http'
import net from 'node:net'
import { createClient } from 'redis'
import { feathers } from '@feathersjs/feathers'
import socketio from '@feathersjs/socketio-client'
import { io } from 'socket.io-client'
import { forEachDatabase, type DatabaseSuite } from '../support/harness'
import { HttpClient } from '../support/http'
import { startServe, stopProcess } from '../support/cli'
import { eventually, until } from '../support/wait'
import { createApp } from '../../src/app'
import type { Application } from '../../src/declarations'

/** CONTRACT §10.2: failed authentications per client address, requests per key. */

interface LimitOptions {
  authFailures?: number
  perKey?: number
  trustProxy?: string
  cors?: string[]
  redisUrl?: string
  syncKey?: string
  uploadsMaxBytes?: number
}

/** An app of its own on the suite's database, with the limits under test (the shared server is not throttled). */
export async function limitedServer(suite: DatabaseSuite, options: LimitOptions) {
  const app: Application = createApp({
    redisUrl: options.redisUrl ?? '',
    syncKey: options.syncKey,
    database: { url: suite.db.url },
    dataDir: suite.server().app.get('dataDir'),
    trustProxy: options.trustProxy ?? '',
    ...(options.uploadsMaxBytes
      ? { uploads: { ...suite.server().app.get('uploads'), maxBytes: options.uploadsMaxBytes } }
      : {}),
    security: {
      cors: { origins: options.cors ?? [] },
      rateLimit: { authFailures: { points: options.authFailures ?? 100000, duration: 60 }, perKey: options.perKey ?? 0 }
    }
  } as any)
  const server: Server = await app.listen(0)
  const address = server.address()
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  return { app, url, http: new HttpClient(url), stop: () => app.teardown() }
}

/** A Feathers socket client that may send handshake headers (a proxy's X-Forwarded-For). */
function socketFrom(url: string, headers: Record<string, string> = {}) {
  const socket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false, extraHeaders: headers })
  const client = feathers()
  client.configure(socketio(socket, { timeout: 60000 }))
  const authenticate = (data: Record<string, unknown>) =>
    client
      .service('authentication')
      .create(data)
      .then(() => ({ code: 201, data: undefined as any }))
      .catch((error: any) => ({ code: error.code as number, data: error.data }))
  return { client, authenticate, close: () => socket.close() }
}

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379'

/** Whether a Redis answers at `url` (a test that needs one skips, saying why, when none does). */
async function redisAnswers(url: string) {
  const client = createClient({ url, socket: { connectTimeout: 1000, reconnectStrategy: false } })
  client.on('error', () => undefined)
  try {
    await client.connect()
    await client.ping()
    return true
  } catch {
    return false
  } finally {
    if (client.isOpen) client.destroy()
  }
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo
      probe.close(() => resolve(port))
    })
  })

/** A redis-server of the test's own, so that stopping it leaves the shared one alone. */
async function ownRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' }
  )
  // Not left behind when mocha exits early (a timeout).
  const stop = () => child.kill('SIGKILL')
  process.once('exit', stop)
  child.once('exit', () => process.removeListener('exit', stop))
  await eventually(
    () => redisAnswers(`redis://127.0.0.1:${port}`),
    (answers) => answers
  )
  return child
}

/** A GET on a new connection each time, so that node:cluster may hand it to either worker. */
function getOnNewConnection(url: string, path: string, apiKey: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      url + path,
      { agent: false, headers: { authorization: `Bearer ${apiKey}`, connection: 'close' } },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      }
    )
    req.on('error', reject)
  })
}

const from = (address: string, extra: Record<string, string> = {}) => ({
  headers: { 'x-forwarded-for': address, ...extra }
})
const WRONG_KEY = 'ck_' + 'A'.repeat(43)

forEachDatabase('rate limits', (suite) => {
  describe('failed authentications per client address', () => {
    it('behind a trusted proxy: the address that failed is limited, others and valid keys are not', async () => {
      const limited = await limitedServer(suite, { authFailures: 20, trustProxy: '127.0.0.1' })
      try {
        const c = await suite.company()
        const { http } = limited
        const wrong = (address: string) =>
          http.get('/v1/customers', undefined, from(address, { authorization: `Bearer ${WRONG_KEY}` }))
        for (let i = 0; i < 20; i++) assert.equal((await wrong('203.0.113.7')).status, 401, `failure ${i + 1}`)
        const refused = await wrong('203.0.113.7')
        assert.equal(refused.status, 429)
        assert.equal(refused.body.name, 'TooManyRequests')
        assert.ok(Number(refused.headers.get('retry-after')) >= 1)
        assert.ok(refused.body.data.retryAfter >= 1)
        // A forged left-most entry does not make the proxy's client someone else.
        assert.equal((await wrong('198.51.100.99, 203.0.113.7')).status, 429)
        assert.equal((await wrong('198.51.100.8')).status, 401, 'another client is not limited')
        assert.equal(
          (await http.withKey(c.apiKey).get('/v1/customers', undefined, from('203.0.113.7'))).status,
          200,
          'a valid key is never refused'
        )
        assert.equal((await http.get('/health', undefined, from('203.0.113.7'))).status, 200)
        assert.equal((await http.get('/ready', undefined, from('203.0.113.7'))).status, 200)
        assert.equal((await wrong('203.0.113.7')).status, 429, 'still limited after the valid request')
      } finally {
        await limited.stop()
      }
    })

    it('without TRUST_PROXY, X-Forwarded-For is ignored: rotating forged addresses are still one client', async () => {
      const limited = await limitedServer(suite, { authFailures: 5 })
      try {
        const statuses = []
        for (let i = 0; i < 12; i++) {
          const res = await limited.http.get(
            '/v1/customers',
            undefined,
            from(`198.51.100.${i + 1}`, { authorization: `Bearer ${WRONG_KEY}` })
          )
          statuses.push(res.status)
        }
        assert.deepEqual(statuses, [...Array(5).fill(401), ...Array(7).fill(429)])
      } finally {
        await limited.stop()
      }
    })

    it('sockets: 100 wrong keys on one socket get 20 401s, then TooManyRequests; a valid key on a new socket still authenticates', async function () {
      const limited = await limitedServer(suite, { authFailures: 20 })
      const attacker = socketFrom(limited.url)
      const honest = socketFrom(limited.url)
      try {
        const c = await suite.company()
        const codes: number[] = []
        let retryAfter = 0
        for (let i = 0; i < 100; i++) {
          const res = await attacker.authenticate({ strategy: 'apiKey', apiKey: WRONG_KEY })
          codes.push(res.code)
          if (res.code === 429) retryAfter = res.data?.retryAfter
        }
        assert.equal(codes.filter((code) => code === 401).length, 20)
        assert.deepEqual(codes.slice(20), Array(80).fill(429))
        assert.ok(retryAfter >= 1, 'TooManyRequests carries data.retryAfter')
        assert.equal((await honest.authenticate({ strategy: 'apiKey', apiKey: c.apiKey })).code, 201)
        assert.ok(await honest.client.service('v1/customers').find())
        // One counter per address, whatever the transport.
        assert.equal(
          (await limited.http.get('/v1/customers', undefined, { headers: { authorization: `Bearer ${WRONG_KEY}` } }))
            .status,
          429
        )
      } finally {
        attacker.close()
        honest.close()
        await limited.stop()
      }
    })

    it('a socket behind a trusted proxy is counted by its forwarded address; a key in the handshake headers counts too', async () => {
      const limited = await limitedServer(suite, { authFailures: 2, trustProxy: '127.0.0.1' })
      const sockets = [
        socketFrom(limited.url, { 'x-forwarded-for': '203.0.113.20' }),
        socketFrom(limited.url, { 'x-forwarded-for': '203.0.113.21' })
      ]
      try {
        const [a, b] = sockets
        assert.equal((await a.authenticate({ strategy: 'apiKey', apiKey: WRONG_KEY })).code, 401)
        assert.equal((await a.authenticate({ strategy: 'apiKey', apiKey: WRONG_KEY })).code, 401)
        assert.equal((await a.authenticate({ strategy: 'apiKey', apiKey: WRONG_KEY })).code, 429)
        assert.equal(
          (await b.authenticate({ strategy: 'apiKey', apiKey: WRONG_KEY })).code,
          401,
          'another forwarded client'
        )
        // The handshake's Authorization header is tried by the server before any call: it counts for b's address.
        const handshake = io(limited.url, {
          transports: ['websocket'],
          forceNew: true,
          reconnection: false,
          extraHeaders: { 'x-forwarded-for': '203.0.113.21', authorization: `Bearer ${WRONG_KEY}` }
        })
        const refused = await new Promise<Error>((resolve) => handshake.on('connect_error', resolve))
        handshake.close()
        assert.match(refused.message, /Invalid or revoked API key/)
        assert.equal((await b.authenticate({ strategy: 'apiKey', apiKey: WRONG_KEY })).code, 429)
      } finally {
        for (const s of sockets) s.close()
        await limited.stop()
      }
    })

    it('wrong settings passwords count over REST and sockets; a limited address cannot log in until the window passes', async () => {
      const limited = await limitedServer(suite, { authFailures: 3, trustProxy: '127.0.0.1' })
      const password = 'correct horse battery'
      const c = await suite.company({ adminPassword: password })
      const { email } = await suite.server().knex('users').where({ id: c.adminUserId }).first()
      const socketA = socketFrom(limited.url, { 'x-forwarded-for': '203.0.113.30' })
      const socketB = socketFrom(limited.url, { 'x-forwarded-for': '203.0.113.31' })
      try {
        const login = (address: string, pass: string) =>
          limited.http.post('/authentication', { strategy: 'local', email, password: pass }, from(address))
        assert.equal((await login('203.0.113.30', 'guess 1')).status, 401)
        assert.equal((await socketA.authenticate({ strategy: 'local', email, password: 'guess 2' })).code, 401)
        assert.equal((await login('203.0.113.30', 'guess 3')).status, 401)
        const refused = await login('203.0.113.30', 'guess 4')
        assert.equal(refused.status, 429)
        assert.ok(Number(refused.headers.get('retry-after')) >= 1)
        assert.equal((await socketA.authenticate({ strategy: 'local', email, password: 'guess 5' })).code, 429)
        // Refused before the password is compared: the right guess is not revealed.
        assert.equal((await login('203.0.113.30', password)).status, 429)
        assert.equal((await socketA.authenticate({ strategy: 'local', email, password })).code, 429)
        // Sockets alone reach the limit as well.
        for (let i = 0; i < 3; i++)
          assert.equal((await socketB.authenticate({ strategy: 'local', email, password: `wrong ${i}` })).code, 401)
        assert.equal((await socketB.authenticate({ strategy: 'local', email, password: 'wrong 4' })).code, 429)
        assert.equal((await login('203.0.113.32', password)).status, 201, 'the admin logs in from another address')
      } finally {
        socketA.close()
        socketB.close()
        await limited.stop()
      }
    })
  })

  describe('requests per key', () => {
    it('perKey 5: RateLimit fields count down on every /v1 response, the 6th request gets 429, other keys are unaffected', async () => {
      const limited = await limitedServer(suite, { perKey: 5 })
      try {
        const c = await suite.company()
        const other = await suite.company()
        const api = limited.http.withKey(c.apiKey)
        const responses = [
          await api.get('/v1/customers'),
          await api.get('/v1/customers/2147483647'),
          await api.post('/v1/customers', { companyName: 'Budget' }),
          await api.get('/v1/customers', { size: 999 }),
          await api.get('/v1/customers')
        ]
        assert.deepEqual(
          responses.map((r) => r.status),
          [200, 404, 201, 400, 200]
        )
        assert.deepEqual(
          responses.map((r) => r.headers.get('ratelimit-limit')),
          Array(5).fill('5')
        )
        assert.deepEqual(
          responses.map((r) => r.headers.get('ratelimit-remaining')),
          ['4', '3', '2', '1', '0']
        )
        for (const r of responses) {
          const reset = Number(r.headers.get('ratelimit-reset'))
          assert.ok(reset >= 1 && reset <= 60, `RateLimit-Reset ${reset}`)
        }
        const refused = await api.get('/v1/customers')
        assert.equal(refused.status, 429)
        assert.equal(refused.body.name, 'TooManyRequests')
        assert.ok(Number(refused.headers.get('retry-after')) >= 1)
        assert.equal(refused.body.data.retryAfter, Number(refused.headers.get('retry-after')))
        assert.equal(refused.headers.get('ratelimit-remaining'), '0')
        const fresh = await limited.http.withKey(other.apiKey).get('/v1/customers')
        assert.equal(fresh.status, 200, 'another key has its own budget')
        assert.equal(fresh.headers.get('ratelimit-remaining'), '4')
        // No key, no budget to describe.
        const anonymous = await limited.http.get('/v1/customers')
        assert.equal(anonymous.status, 401)
        assert.equal(anonymous.headers.get('ratelimit-limit'), null)
      } finally {
        await limited.stop()
      }
    })

    it('requests refused before a service runs (405, 415, malformed JSON, unknown route) spend the budget and carry the fields too', async () => {
      const limited = await limitedServer(suite, { perKey: 5 })
      try {
        const c = await suite.company()
        const api = limited.http.withKey(c.apiKey)
        const refusals = [
          await api.put('/v1/customers/1', {}),
          await api.post('/v1/customers', undefined, { raw: 'x', headers: { 'content-type': 'text/plain' } }),
          await api.post('/v1/customers', undefined, { raw: '{bad', headers: { 'content-type': 'application/json' } }),
          await api.get('/v1/no-such-collection')
        ]
        assert.deepEqual(
          refusals.map((r) => r.status),
          [405, 415, 400, 404]
        )
        assert.deepEqual(
          refusals.map((r) => r.headers.get('ratelimit-remaining')),
          ['4', '3', '2', '1']
        )
        const last = await api.get('/v1/customers')
        assert.equal(last.headers.get('ratelimit-remaining'), '0')
        // Over the budget, a refusal is a 429 as well: the key cannot keep the server busy with them.
        const over = await api.put('/v1/customers/1', {})
        assert.equal(over.status, 429)
        assert.ok(Number(over.headers.get('retry-after')) >= 1)
        // Without a key there is no budget to describe.
        const anonymous = await limited.http.put('/v1/customers/1', {})
        assert.equal(anonymous.status, 405)
        assert.equal(anonymous.headers.get('ratelimit-limit'), null)
      } finally {
        await limited.stop()
      }
    })

    it('an upload over the budget is refused before the file is read (429, not 413); an upload spends one request', async () => {
      const limited = await limitedServer(suite, { perKey: 3, uploadsMaxBytes: 1024 })
      try {
        const c = await suite.company()
        const api = limited.http.withKey(c.apiKey)
        const customer = await api.post('/v1/customers', { companyName: 'Budget uploads' })
        const assignment = await api.post('/v1/assignments', { name: 'Roof', customerId: customer.body.id })
        const form = (bytes: number) => {
          const body = new FormData()
          body.append('file', new Blob([Buffer.alloc(bytes, 1)], { type: 'application/octet-stream' }), 'plan.bin')
          return body
        }
        const base = `/v1/assignments/${assignment.body.id}/uploads`
        const stored = await api.post(base, undefined, { raw: form(10) })
        assert.equal(stored.status, 201)
        assert.equal(stored.headers.get('ratelimit-remaining'), '0', 'the upload spent exactly one request')
        // Over the size limit too: a 413 would mean the file was streamed before the budget was looked at.
        const refused = await api.post(base, undefined, { raw: form(4096) })
        assert.equal(refused.status, 429)
        assert.ok(Number(refused.headers.get('retry-after')) >= 1)
      } finally {
        await limited.stop()
      }
    })

    it('socket calls spend the same budget as REST', async () => {
      const limited = await limitedServer(suite, { perKey: 4 })
      const socket = socketFrom(limited.url)
      try {
        const c = await suite.company()
        assert.equal((await socket.authenticate({ strategy: 'apiKey', apiKey: c.apiKey })).code, 201)
        for (let i = 0; i < 3; i++) await socket.client.service('v1/customers').find()
        assert.equal((await limited.http.withKey(c.apiKey).get('/v1/customers')).status, 200)
        const refused = await socket.client
          .service('v1/customers')
          .find()
          .catch((error: any) => error)
        assert.equal(refused.code, 429)
        assert.ok(refused.data.retryAfter >= 1)
        assert.equal((await limited.http.withKey(c.apiKey).get('/v1/customers')).status, 429)
      } finally {
        socket.close()
        await limited.stop()
      }
    })

    it('perKey 0 is unlimited and sends no RateLimit fields; browsers may read the fields (CORS)', async () => {
      const unlimited = await limitedServer(suite, { perKey: 0 })
      const counted = await limitedServer(suite, { perKey: 100, cors: ['https://app.example.com'] })
      try {
        const c = await suite.company()
        const res = await unlimited.http.withKey(c.apiKey).get('/v1/customers')
        assert.equal(res.status, 200)
        assert.equal(res.headers.get('ratelimit-limit'), null)
        const browser = await counted.http
          .withKey(c.apiKey)
          .get('/v1/customers', undefined, { headers: { origin: 'https://app.example.com' } })
        assert.equal(browser.headers.get('ratelimit-limit'), '100')
        const exposed = (browser.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/\s*,\s*/)
        for (const name of [
          'retry-after',
          'ratelimit-limit',
          'ratelimit-remaining',
          'ratelimit-reset',
          'idempotent-replayed'
        ])
          assert.ok(exposed.includes(name), `${name} in ${exposed}`)
        // A browser may send an Idempotency-Key (CONTRACT §13.4): the preflight allows it.
        const preflight = await fetch(`${counted.url}/v1/time-entries`, {
          method: 'OPTIONS',
          headers: {
            origin: 'https://app.example.com',
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'authorization,content-type,idempotency-key'
          }
        })
        assert.equal(preflight.status, 204)
        const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/)
        assert.ok(allowed.includes('idempotency-key'), `idempotency-key in ${allowed}`)
      } finally {
        await unlimited.stop()
        await counted.stop()
      }
    })
  })
  describe('counters shared by workers and instances', () => {
    it('WEB_CONCURRENCY=2: one budget per key for both workers', async function () {
      const port = await freePort()
      const c = await suite.company()
      const served = await startServe({
        DATABASE_URL: suite.server().db.url,
        DATA_DIR: suite.server().app.get('dataDir'),
        PORT: String(port),
        WEB_CONCURRENCY: '2',
        RATE_LIMIT_PER_KEY: '10',
        REDIS_URL: ''
      })
      try {
        await until(() => (served.output().match(/listening on/g) ?? []).length >= 2)
        assert.equal((served.output().match(/listening on/g) ?? []).length, 2, served.output())
        // Twenty requests on new connections land on both workers; per-worker counters would let ~20 through.
        const statuses: number[] = []
        for (let i = 0; i < 20; i++) statuses.push(await getOnNewConnection(served.url, '/v1/customers', c.apiKey))
        assert.equal(statuses.filter((s) => s === 200).length, 10, statuses.join(' '))
        assert.equal(statuses.filter((s) => s === 429).length, 10, statuses.join(' '))
      } finally {
        await stopProcess(served.child)
      }
    })

    it('REDIS_URL: two instances share one budget per key', async function () {
      if (!(await redisAnswers(REDIS_URL))) {
        console.warn(`      (skipped: no Redis answers at ${REDIS_URL}; set REDIS_URL)`)
        this.skip()
      }
      const syncKey = `crewclock-test-${crypto.randomUUID()}`
      const one = await limitedServer(suite, { perKey: 6, redisUrl: REDIS_URL, syncKey })
      const two = await limitedServer(suite, { perKey: 6, redisUrl: REDIS_URL, syncKey })
      try {
        const c = await suite.company()
        const statuses = []
        for (let i = 0; i < 4; i++) {
          statuses.push((await one.http.withKey(c.apiKey).get('/v1/customers')).status)
          statuses.push((await two.http.withKey(c.apiKey).get('/v1/customers')).status)
        }
        assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 429, 429])
        const remaining = (await two.http.withKey(c.apiKey).get('/v1/customers')).headers.get('ratelimit-remaining')
        assert.equal(remaining, '0')
      } finally {
        await one.stop()
        await two.stop()
      }
    })

    it('Redis down: requests still answer, counted in memory, and Redis takes over again when it is back', async function () {
      const port = await freePort()
      let redis = await ownRedis(port)
      if (!(await redisAnswers(`redis://127.0.0.1:${port}`))) {
        redis.kill()
        console.warn('      (skipped: redis-server could not be started)')
        this.skip()
      }
      const limited = await limitedServer(suite, {
        perKey: 3,
        redisUrl: `redis://127.0.0.1:${port}`,
        syncKey: `crewclock-test-${crypto.randomUUID()}`
      })
      try {
        const c = await suite.company()
        const api = limited.http.withKey(c.apiKey)
        assert.equal((await api.get('/v1/customers')).headers.get('ratelimit-remaining'), '2', 'counted in Redis')
        await new Promise<void>((resolve) => {
          redis.once('exit', () => resolve())
          redis.kill('SIGKILL')
        })
        const whileDown = []
        for (let i = 0; i < 4; i++) whileDown.push((await api.get('/v1/customers')).status)
        // The in-memory insurance starts its own count: the limit still holds, nothing fails.
        assert.deepEqual(whileDown, [200, 200, 200, 429])
        redis = await ownRedis(port)
        // The client reconnects on its own (backoff up to 5 s); Redis, empty again, then counts afresh.
        const back = await eventually(
          () => api.get('/v1/customers'),
          (res) => res.status === 200
        )
        assert.equal(back.status, 200, 'counted in Redis again')
        assert.equal(back.headers.get('ratelimit-remaining'), '2')
      } finally {
        await limited.stop()
        redis.kill()
      }
    })
  })
})
