import assert from 'node:assert/strict'
import jwt from 'jsonwebtoken'
import { forEachDatabase, TestCompany } from '../support/harness'
import { socketClient } from '../support/socket'

/** Issue #17: error bodies an integrator can act on (CONTRACT §2, §3, §3.2). */
forEachDatabase('error bodies', (suite) => {
  let a: TestCompany

  before(async () => {
    a = await suite.company({ adminPassword: 'correct horse' })
  })

  describe('401 for every bearer value that is not a key', () => {
    it('answers a JWT-looking, a malformed and a settings token like an unknown key, without token internals', async () => {
      const http = suite.server().http
      const admin = await suite.server().knex('users').where({ id: a.adminUserId }).first()
      const login = await http.post('/authentication', {
        strategy: 'local',
        email: admin.email,
        password: 'correct horse'
      })
      assert.equal(login.status, 201)
      const unknown = await http.get('/v1/customers', undefined, {
        headers: { authorization: `Bearer ck_${'A'.repeat(43)}` }
      })
      const forged = jwt.sign({ sub: String(a.adminUserId), apiKeyId: a.apiKeyId }, 'not the secret')
      for (const value of ['hello', 'a.b.c', forged, login.body.accessToken]) {
        const res = await http.get('/v1/customers', undefined, { headers: { authorization: `Bearer ${value}` } })
        assert.equal(res.status, 401, value)
        assert.equal(res.headers.get('www-authenticate'), 'Bearer')
        assert.deepEqual(res.body, unknown.body, value)
        assert.doesNotMatch(res.text, /jwt|JsonWebToken|malformed|signature/i)
      }
      assert.equal(unknown.body.message, 'Invalid or revoked API key')
    })

    it('the token a socket got for its key keeps working on that socket, and is not a key on REST', async () => {
      const { client, close } = socketClient(suite.server().url)
      try {
        const auth = await client.authenticate({ strategy: 'apiKey', apiKey: a.apiKey })
        assert.equal((await client.service('v1/customers').find()).page, 0)
        const res = await suite
          .server()
          .http.get('/v1/customers', undefined, { headers: { authorization: `Bearer ${auth.accessToken}` } })
        assert.equal(res.status, 401)
        assert.equal(res.body.message, 'Invalid or revoked API key')
      } finally {
        close()
      }
    })

    it('a socket authenticating with a malformed token learns nothing of the token library', async () => {
      const { client, close } = socketClient(suite.server().url)
      try {
        await assert.rejects(client.authenticate({ strategy: 'jwt', accessToken: 'a.b.c' }), (error: any) => {
          assert.equal(error.code, 401)
          assert.doesNotMatch(JSON.stringify(error), /jwt malformed|JsonWebTokenError/)
          return true
        })
      } finally {
        close()
      }
    })
  })

  describe('405 names the HTTP method and sends Allow', () => {
    it('on items, collections and read-only lookups', async () => {
      const created = await a.api.post('/v1/customers', { companyName: 'Allow target' })
      const cases: [method: string, path: string, allow: string][] = [
        ['PUT', `/v1/customers/${created.body.id}`, 'GET, PATCH, DELETE'],
        ['POST', `/v1/customers/${created.body.id}`, 'GET, PATCH, DELETE'],
        ['PUT', '/v1/customers', 'GET, POST'],
        ['PATCH', '/v1/customers', 'GET, POST'],
        ['DELETE', '/v1/customers', 'GET, POST'],
        ['POST', '/v1/roles', 'GET'],
        ['DELETE', `/v1/roles/${created.body.id}`, 'GET'],
        ['DELETE', '/v1/users/1', 'GET, PATCH'],
        ['PUT', '/v1/assignments/1/uploads', 'GET, POST'],
        ['POST', '/v1/assignments/1/uploads/2', 'GET, PATCH, DELETE']
      ]
      for (const [method, path, allow] of cases) {
        const res = await a.api.request(method, path, method === 'DELETE' ? undefined : { companyName: 'x' })
        assert.equal(res.status, 405, `${method} ${path}`)
        assert.equal(res.body.name, 'MethodNotAllowed')
        assert.equal(res.headers.get('allow'), allow, `${method} ${path}`)
        assert.match(res.body.message, new RegExp(`^${method} is not allowed on ${path}`))
        assert.doesNotMatch(res.body.message, /update|create|remove|`/)
      }
      const post = await a.api.post(`/v1/customers/${created.body.id}`, { companyName: 'x' })
      assert.match(post.body.message, /use PATCH to change a record/)
      const download = await fetch(`${suite.server().url}/v1/assignments/1/uploads/2/download`, { method: 'DELETE' })
      assert.equal(download.status, 405)
      assert.equal(download.headers.get('allow'), 'GET')
    })

    it('on a socket, names the Feathers method and what the path offers', async () => {
      const { client, close } = socketClient(suite.server().url)
      try {
        await client.authenticate({ strategy: 'apiKey', apiKey: a.apiKey })
        await assert.rejects(client.service('v1/roles').remove(1), (error: any) => {
          assert.equal(error.code, 405)
          assert.equal(error.message, 'The method remove is not offered by v1/roles (it offers find, get)')
          return true
        })
      } finally {
        close()
      }
    })
  })

  describe('a JSON value that is not an object', () => {
    it('400 "The body must be a JSON object" for null, arrays, numbers and strings; malformed JSON stays malformed', async () => {
      const created = await a.api.post('/v1/customers', { companyName: 'Body target' })
      for (const raw of ['null', ' null ', '[]', '[{"companyName":"x"}]', '5', '"text"', 'true']) {
        for (const [method, path] of [
          ['POST', '/v1/customers'],
          ['PATCH', `/v1/customers/${created.body.id}`]
        ]) {
          const res = await a.api.request(method, path, undefined, {
            raw,
            headers: { 'content-type': 'application/json' }
          })
          assert.equal(res.status, 400, `${method} ${raw}`)
          assert.equal(res.body.message, 'The body must be a JSON object', `${method} ${raw}`)
        }
      }
      const malformed = await a.api.post('/v1/customers', undefined, {
        raw: '{"companyName": ',
        headers: { 'content-type': 'application/json' }
      })
      assert.equal(malformed.body.message, 'Malformed JSON body')
    })

    it('parses every JSON media type it accepts (merge-patch+json, problem+json, charset)', async () => {
      for (const type of [
        'application/merge-patch+json',
        'application/problem+json',
        'application/json; charset=utf-8',
        'application/vnd.api+json'
      ]) {
        const created = await a.api.post('/v1/customers', undefined, {
          raw: JSON.stringify({ companyName: `Typed ${type}` }),
          headers: { 'content-type': type }
        })
        assert.equal(created.status, 201, `${type}: ${created.text}`)
        const patched = await a.api.patch(`/v1/customers/${created.body.id}`, undefined, {
          raw: '{"number":"CT-1"}',
          headers: { 'content-type': type }
        })
        assert.equal(patched.status, 200, `${type}: ${patched.text}`)
        assert.equal(patched.body.number, 'CT-1')
      }
    })

    it('refuses a merge patch with a nested object (RFC 7396 would merge it, a PATCH replaces it) and changes nothing', async () => {
      const billingAddress = { street: 'Hauptstraße 1', zip: '10115', city: 'Berlin' }
      const created = await a.api.post('/v1/customers', { companyName: 'Merge GmbH', billingAddress })
      assert.equal(created.status, 201, created.text)
      const merge = await a.api.patch(`/v1/customers/${created.body.id}`, undefined, {
        raw: JSON.stringify({ number: 'MP-1', billingAddress: { city: 'Hamburg' } }),
        headers: { 'content-type': 'application/merge-patch+json' }
      })
      assert.equal(merge.status, 400, merge.text)
      assert.deepEqual(Object.keys(merge.body.data.validationErrors), ['billingAddress'])
      const after = (await a.api.get(`/v1/customers/${created.body.id}`)).body
      assert.equal(after.number, null)
      assert.deepEqual(
        [after.billingAddress.street, after.billingAddress.zip, after.billingAddress.city],
        ['Hauptstraße 1', '10115', 'Berlin']
      )
      // As application/json the object is replaced whole, as documented; a null clears it under either type.
      const replaced = await a.api.patch(`/v1/customers/${created.body.id}`, { billingAddress: { city: 'Hamburg' } })
      assert.equal(replaced.status, 200, replaced.text)
      assert.equal(replaced.body.billingAddress.street, null)
      const cleared = await a.api.patch(`/v1/customers/${created.body.id}`, undefined, {
        raw: '{"billingAddress":null}',
        headers: { 'content-type': 'application/merge-patch+json' }
      })
      assert.equal(cleared.status, 200, cleared.text)
      assert.equal(cleared.body.billingAddress, null)
    })
  })
})
