import assert from 'node:assert/strict'
import type { Server } from 'node:http'
import { forEachDatabase } from '../support/harness'
import { HttpClient } from '../support/http'
import { liveSocket } from '../support/live-socket'
import { settingsSession } from '../support/settings-session'
import { until } from '../support/wait'
import { createApp } from '../../src/app'
import { createApiKey } from '../../src/auth/api-keys'
import type { Application } from '../../src/declarations'

/** The `exp` (seconds) of a JWT, read without verifying it. */
const expiryOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).exp as number

/** CONTRACT §12, Lifetime and Channel hygiene. */
forEachDatabase('realtime: socket lifetime and channels', (suite) => {
  describe('tokens that expire after 2 s', () => {
    let app: Application
    let url: string

    before(async () => {
      const authentication = suite.server().app.get('authentication')
      app = createApp({
        redisUrl: '',
        database: { url: suite.db.url },
        dataDir: suite.server().app.get('dataDir'),
        authentication: { ...authentication, jwtOptions: { ...authentication.jwtOptions, expiresIn: '2s' } }
      })
      const server: Server = await app.listen(0)
      url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
    })

    after(() => app.teardown())

    it('a socket authenticated with a key outlives the token minted at its login; one that logged in with that token ends with it', async () => {
      const c = await suite.company()
      const withKey = liveSocket(url, c.apiKey)
      let withToken: ReturnType<typeof liveSocket> | undefined
      try {
        await withKey.loggedIn()
        const token = withKey.lastAuthResult.accessToken as string
        assert.ok(expiryOf(token) - Math.floor(Date.now() / 1000) <= 2, 'the token expires within 2 s')
        withToken = liveSocket(url, { strategy: 'jwt', accessToken: token })
        await withToken.loggedIn()

        // Feathers disconnects a token's socket when the token expires: the shortened expiry is in force.
        await until(() => withToken!.disconnects.length === 1)
        assert.deepEqual(withToken.disconnects, ['io server disconnect'])
        // Both expiry timers would have fired by now; a call answered on the key socket proves it has none.
        const listed = await withKey.call('find', 'v1/customers', {})
        assert.equal(listed.error, null)
        assert.equal(listed.result.total, 0)
        assert.deepEqual(withKey.disconnects, [])

        const created = await new HttpClient(url, c.apiKey).post('/v1/customers', { companyName: 'After expiry' })
        assert.equal(created.status, 201)
        await until(() => withKey.of('v1/customers', 'created').length === 1)
        assert.deepEqual(withKey.of('v1/customers', 'created')[0].data, created.body)
      } finally {
        withKey.close()
        withToken?.close()
      }
    })
  })

  it("authenticating again with another company's key leaves the first company's channel; the second key's scopes apply", async () => {
    const a = await suite.company()
    const b = await suite.company()
    // B's second key reads customers only.
    const { key: customersReader } = await createApiKey(suite.server().knex, suite.server().app.get('appSecret'), {
      companyId: b.id,
      userId: b.adminUserId,
      scopes: ['customers:read']
    })
    const live = liveSocket(suite.server().url, a.apiKey)
    try {
      await live.loggedIn()
      assert.equal((await a.api.post('/v1/customers', { companyName: 'A while A' })).status, 201)
      await until(() => live.events.length === 1)

      const again = await live.call('create', 'authentication', { strategy: 'apiKey', apiKey: customersReader })
      assert.equal(again.error, null)
      // In write order on one instance: had A's or an unreadable event been sent, it would come first.
      assert.equal((await a.api.post('/v1/customers', { companyName: 'A after B' })).status, 201)
      assert.equal((await b.api.post('/v1/projects', { number: 'Not readable' })).status, 201)
      assert.equal((await b.api.post('/v1/customers', { companyName: 'B' })).status, 201)
      await until(() => live.events.length === 2)
      assert.deepEqual(
        live.events.map((e) => `${e.path} ${e.data.companyName}`),
        ['v1/customers A while A', 'v1/customers B']
      )
    } finally {
      live.close()
    }
  })

  it('after re-authenticating, revoking the first key leaves the socket alone; revoking the second disconnects it', async () => {
    const a = await suite.company()
    const b = await suite.company()
    const [adminA, adminB] = [await settingsSession(suite.server(), a), await settingsSession(suite.server(), b)]
    const live = liveSocket(suite.server().url, a.apiKey)
    try {
      await live.loggedIn()
      assert.equal((await live.call('create', 'authentication', { strategy: 'apiKey', apiKey: b.apiKey })).error, null)

      assert.equal((await adminA.delete(`/settings/api-keys/${a.apiKeyId}`)).status, 204)
      // The revocation is handled before the settings page's answer; a call answered after it shows the socket open.
      assert.equal((await live.call('find', 'v1/customers', {})).error, null)
      assert.deepEqual(live.disconnects, [])
      assert.equal((await b.api.post('/v1/customers', { companyName: 'Still B' })).status, 201)
      await until(() => live.events.length === 1)

      assert.equal((await adminB.delete(`/settings/api-keys/${b.apiKeyId}`)).status, 204)
      await until(() => live.disconnects.length === 1)
      assert.deepEqual(live.disconnects, ['io server disconnect'], 'a revoked key is not reconnected')
    } finally {
      live.close()
    }
  })

  it('logging out leaves the channel: no event reaches the socket afterwards, and its calls need a login again', async () => {
    const a = await suite.company()
    const live = liveSocket(suite.server().url, a.apiKey)
    try {
      await live.loggedIn()
      assert.equal((await live.call('remove', 'authentication', null)).error, null)
      assert.equal((await a.api.post('/v1/customers', { companyName: 'After logout' })).status, 201)
      const listed = await live.call('find', 'v1/customers', {})
      assert.equal(listed.error?.code, 401)
      assert.deepEqual(live.events, [])
    } finally {
      live.close()
    }
  })
})
