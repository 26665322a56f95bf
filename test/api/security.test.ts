import assert from 'node:assert/strict'
import type { Server } from 'node:http'
import { forEachDatabase } from '../support/harness'
import { HttpClient } from '../support/http'
import { createApp } from '../../src/app'
import type { Application } from '../../src/declarations'

forEachDatabase('security', (suite) => {
  /** A second app on the same database with tight limits, so the shared test server is not throttled. */
  async function strictServer(security: object) {
    const app: Application = createApp({
      redisUrl: '',
      database: { url: suite.db.url },
      dataDir: suite.server().app.get('dataDir'),
      security
    } as any)
    const server: Server = await app.listen(0)
    const address = server.address()
    return {
      app,
      http: new HttpClient(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`)
    }
  }

  it('sends security headers and a request id', async () => {
    const c = await suite.company()
    const res = await c.api.get('/v1/customers')
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff')
    assert.ok(res.headers.get('content-security-policy')?.includes("default-src 'self'"))
    assert.equal(res.headers.get('strict-transport-security'), null) // plain HTTP: CONTRACT §10.4
    assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/)
    const echoed = await c.api.get('/v1/customers', undefined, { headers: { 'x-request-id': 'trace-123' } })
    assert.equal(echoed.headers.get('x-request-id'), 'trace-123')
  })

  it('limits failed authentication per client address: 429 with Retry-After, then the window passes', async function () {
    const { app, http } = await strictServer({
      cors: { origins: [] },
      rateLimit: { authFailures: { points: 3, duration: 2 }, perKey: 0 }
    })
    try {
      const c = await suite.company()
      const wrong = () => http.get('/v1/customers', undefined, { headers: { authorization: 'Bearer ck_wrong' } })
      for (let i = 0; i < 3; i++) assert.equal((await wrong()).status, 401)
      const limited = await wrong()
      assert.equal(limited.status, 429)
      assert.equal(limited.body.name, 'TooManyRequests')
      assert.ok(Number(limited.headers.get('retry-after')) >= 1)
      // Only failures are refused (CONTRACT §10.2): the address's valid key still works.
      assert.equal(
        (await http.get('/v1/customers', undefined, { headers: { authorization: `Bearer ${c.apiKey}` } })).status,
        200
      )
      await new Promise((r) => setTimeout(r, 2100))
      assert.equal((await wrong()).status, 401, 'the window has passed')
    } finally {
      await app.teardown()
    }
  })

  it('limits requests per API key when configured', async () => {
    const { app, http } = await strictServer({
      cors: { origins: [] },
      rateLimit: { authFailures: { points: 100, duration: 60 }, perKey: 5 }
    })
    try {
      const c = await suite.company()
      const other = await suite.company()
      const api = http.withKey(c.apiKey)
      for (let i = 0; i < 5; i++) assert.equal((await api.get('/v1/customers')).status, 200)
      const limited = await api.get('/v1/customers')
      assert.equal(limited.status, 429)
      assert.ok(Number(limited.headers.get('retry-after')) >= 1)
      assert.equal((await http.withKey(other.apiKey).get('/v1/customers')).status, 200, 'other keys are not affected')
    } finally {
      await app.teardown()
    }
  })

  it('answers CORS preflights only for configured origins', async () => {
    const { app, http } = await strictServer({
      cors: { origins: ['https://app.example.com'] },
      rateLimit: { authFailures: { points: 100, duration: 60 }, perKey: 0 }
    })
    try {
      // A preflight is not an API operation: plain fetch, outside the description check.
      const preflight = (origin: string) =>
        fetch(`${http.baseUrl}/v1/customers`, {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' }
        })
      const allowed = await preflight('https://app.example.com')
      assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://app.example.com')
      const denied = await preflight('https://evil.example.com')
      assert.equal(denied.headers.get('access-control-allow-origin'), null)
    } finally {
      await app.teardown()
    }
  })

  it('/health and /ready answer', async () => {
    assert.deepEqual((await suite.server().http.get('/health')).body, { status: 'ok' })
    assert.deepEqual((await suite.server().http.get('/ready')).body, { status: 'ready', realtime: 'ok' })
  })
})
