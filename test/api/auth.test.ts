import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../support/harness'
import { socketClient } from '../support/socket'
import { revokeApiKey } from '../../src/auth/api-keys'

forEachDatabase('authentication', (suite) => {
  let a: TestCompany
  let b: TestCompany

  before(async () => {
    a = await suite.company({ adminPassword: 'correct horse' })
    b = await suite.company()
  })

  describe('REST', () => {
    it('401 NotAuthenticated with WWW-Authenticate: Bearer for a missing, malformed, unknown or revoked key', async () => {
      const http = suite.server().http
      const revoked = await suite.company()
      await revokeApiKey(suite.server().knex, revoked.apiKeyId)
      const cases: Record<string, string | undefined> = {
        missing: undefined,
        basic: 'Basic dXNlcjpwYXNz',
        'bearer without value': 'Bearer',
        'not a key': 'Bearer hello',
        'unknown key': `Bearer ck_${'A'.repeat(43)}`,
        'truncated key': `Bearer ${a.apiKey.slice(0, 20)}`,
        'revoked key': `Bearer ${revoked.apiKey}`
      }
      for (const [name, header] of Object.entries(cases)) {
        const res = await http.get('/v1/customers', undefined, { headers: header ? { authorization: header } : {} })
        assert.equal(res.status, 401, name)
        assert.equal(res.body.name, 'NotAuthenticated', name)
        assert.equal(res.headers.get('www-authenticate'), 'Bearer', name)
      }
    })

    it('authenticates every /v1 method, not only reads', async () => {
      const http = suite.server().http
      const created = await a.api.post('/v1/customers', { companyName: 'Auth target' })
      assert.equal((await http.post('/v1/customers', { companyName: 'x' })).status, 401)
      assert.equal((await http.patch(`/v1/customers/${created.body.id}`, { companyName: 'x' })).status, 401)
      assert.equal((await http.delete(`/v1/customers/${created.body.id}`)).status, 401)
      assert.equal((await a.api.get(`/v1/customers/${created.body.id}`)).body.companyName, 'Auth target')
    })

    it('an admin logs in with email and password for the settings page, but that token does not open /v1', async () => {
      const admin = await suite.server().knex('users').where({ id: a.adminUserId }).first()
      const login = await suite
        .server()
        .http.post('/authentication', { strategy: 'local', email: admin.email, password: 'correct horse' })
      assert.equal(login.status, 201)
      assert.ok(login.body.accessToken)
      const wrong = await suite
        .server()
        .http.post('/authentication', { strategy: 'local', email: admin.email, password: 'wrong horse' })
      assert.equal(wrong.status, 401)
      const res = await suite
        .server()
        .http.get('/v1/customers', undefined, { headers: { authorization: `Bearer ${login.body.accessToken}` } })
      assert.equal(res.status, 401)
    })
  })

  describe('socket.io', () => {
    it('authenticates with { strategy: apiKey } and calls services scoped to the company', async () => {
      const created = await a.api.post('/v1/customers', { companyName: 'Socket visible' })
      const other = await b.api.post('/v1/customers', { companyName: 'Socket invisible' })
      const { client, close } = socketClient(suite.server().url)
      try {
        const auth = await client.authenticate({ strategy: 'apiKey', apiKey: a.apiKey })
        assert.ok(auth.accessToken)
        const found = await client.service('v1/customers').get(created.body.id)
        assert.equal(found.companyName, 'Socket visible')
        await assert.rejects(client.service('v1/customers').get(other.body.id), (e: any) => e.code === 404)
        const made = await client.service('v1/customers').create({ companyName: 'Made over socket' })
        assert.equal((await a.api.get(`/v1/customers/${made.id}`)).body.companyName, 'Made over socket')
        await assert.rejects(
          client.service('v1/customers').create({ companyName: 'x', id: 5 }),
          (e: any) => e.code === 400 && e.data.validationErrors.id === 'is read-only'
        )
      } finally {
        close()
      }
    })

    it('refuses an invalid key, and unauthenticated calls', async () => {
      const { client, close } = socketClient(suite.server().url)
      try {
        await assert.rejects(
          client.authenticate({ strategy: 'apiKey', apiKey: `ck_${'B'.repeat(43)}` }),
          (e: any) => e.code === 401
        )
        await assert.rejects(client.service('v1/customers').find({}), (e: any) => e.code === 401)
      } finally {
        close()
      }
    })

    it('stops answering on an open socket once its key is revoked', async () => {
      const c = await suite.company()
      const { client, close } = socketClient(suite.server().url)
      try {
        await client.authenticate({ strategy: 'apiKey', apiKey: c.apiKey })
        assert.equal((await client.service('v1/customers').find({})).total, 0)
        await revokeApiKey(suite.server().knex, c.apiKeyId)
        await assert.rejects(client.service('v1/customers').find({}), (e: any) => e.code === 401)
      } finally {
        close()
      }
    })
  })
})
