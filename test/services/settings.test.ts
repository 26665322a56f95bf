import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../support/harness'
import { HttpClient } from '../support/http'
import { socketClient } from '../support/socket'

const PASSWORD = 'settings secret'

const until = async (check: () => boolean, ms = 5000) => {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 25))
  }
}

forEachDatabase('settings endpoints', (suite) => {
  let a: TestCompany
  let b: TestCompany
  let adminA: HttpClient
  let adminB: HttpClient

  /** Logs the company's admin in as the settings page does and returns a client sending the token. */
  async function settingsLogin(company: TestCompany) {
    const { email } = await suite.server().knex('users').where({ id: company.adminUserId }).first()
    const res = await suite.server().http.post('/authentication', { strategy: 'local', email, password: PASSWORD })
    assert.equal(res.status, 201, res.text)
    return suite.server().http.withKey(res.body.accessToken)
  }

  before(async () => {
    a = await suite.company({ adminPassword: PASSWORD })
    b = await suite.company({ adminPassword: PASSWORD })
    adminA = await settingsLogin(a)
    adminB = await settingsLogin(b)
  })

  describe('authentication', () => {
    it('401 without a token, with an API key and with a forged token', async () => {
      for (const path of ['/settings/api-keys', '/settings/company', '/settings/usage']) {
        for (const client of [suite.server().http, a.api, suite.server().http.withKey('eyJhbGciOiJIUzI1NiJ9.e30.x')]) {
          const res = await client.get(path)
          assert.equal(res.status, 401, `${path} ${client.apiKey}`)
          assert.equal(res.body.name, 'NotAuthenticated')
        }
      }
      assert.equal((await a.api.post('/settings/api-keys', { name: 'by key' })).status, 401)
      assert.equal((await a.api.delete(`/settings/api-keys/${a.apiKeyId}`)).status, 401)
      assert.equal((await a.api.patch('/settings/company', { timezone: 'Europe/Rome' })).status, 401)
    })

    it('only admins with a password log in; a worker with a password is refused', async () => {
      const worker = await a.api.post('/v1/users', { fullName: 'Wanda Worker', email: `wanda-${Date.now()}@example.test`, password: 'worker password' })
      assert.equal(worker.status, 201)
      const res = await suite.server().http.post('/authentication', { strategy: 'local', email: worker.body.email, password: 'worker password' })
      assert.equal(res.status, 401)
      assert.equal(res.body.accessToken, undefined)
    })

    it('the settings token stops working when the admin is deactivated', async () => {
      const c = await suite.company({ adminPassword: PASSWORD })
      const admin = await settingsLogin(c)
      assert.equal((await admin.get('/settings/company')).status, 200)
      await suite.server().knex('users').where({ id: c.adminUserId }).update({ deactivatedAt: new Date().toISOString() })
      assert.equal((await admin.get('/settings/company')).status, 401)
    })
  })

  describe('settings/api-keys', () => {
    it('lists the company keys masked, never the key, its hash or its ciphertext', async () => {
      const res = await adminA.get('/settings/api-keys')
      assert.equal(res.status, 200)
      assert.equal(res.body.length, 1)
      const [key] = res.body
      assert.deepEqual(Object.keys(key).sort(), ['createdAt', 'id', 'maskedKey', 'name', 'revokedAt', 'scopes', 'userId'])
      assert.deepEqual(key.scopes, ['*:write'])
      assert.equal(key.id, a.apiKeyId)
      assert.equal(key.maskedKey, `ck_…${a.apiKey.slice(-4)}`)
      assert.equal(key.userId, a.adminUserId)
      assert.equal(res.text.includes(a.apiKey), false)
    })

    it('creates a key for the logged-in admin (201, plain key once), which works on /v1 and can be copied again', async () => {
      const created = await adminA.post('/settings/api-keys', { name: 'Dispatch board' })
      assert.equal(created.status, 201)
      assert.match(created.body.key, /^ck_[A-Za-z0-9_-]{43}$/)
      assert.equal(created.body.name, 'Dispatch board')
      assert.equal(created.body.userId, a.adminUserId)
      assert.equal(created.body.revokedAt, null)
      assert.equal(created.body.maskedKey, `ck_…${created.body.key.slice(-4)}`)
      const used = await a.api.withKey(created.body.key).get('/v1/customers')
      assert.equal(used.status, 200)
      const copied = await adminA.get(`/settings/api-keys/${created.body.id}`)
      assert.equal(copied.status, 200)
      assert.equal(copied.body.key, created.body.key)
      assert.equal((await adminA.get(`/settings/api-keys/${a.apiKeyId}`)).body.key, a.apiKey)
      const unnamed = await adminA.post('/settings/api-keys', {})
      assert.equal(unnamed.status, 201)
      assert.equal(unnamed.body.name, null)
    })

    it('rejects bad create bodies naming the field, and creates nothing', async () => {
      const before = (await adminA.get('/settings/api-keys')).body.length
      const cases: [unknown, string, string][] = [
        [{ name: '' }, 'name', 'must not be empty'],
        [{ name: 'x'.repeat(256) }, 'name', 'must be at most 255 characters long'],
        [{ name: 5 }, 'name', 'must be a string or null'],
        [{ name: 'ok', userId: 1 }, 'userId', 'is not a field of ApiKey'],
        [{ key: 'ck_mine' }, 'key', 'is not a field of ApiKey']
      ]
      for (const [body, field, message] of cases) {
        const res = await adminA.post('/settings/api-keys', body)
        assert.equal(res.status, 400, JSON.stringify(body))
        assert.equal(res.body.data.validationErrors[field], message, JSON.stringify(body))
      }
      const notObject = await adminA.post('/settings/api-keys', [{ name: 'x' }])
      assert.equal(notObject.status, 400)
      assert.equal((await adminA.get('/settings/api-keys')).body.length, before)
    })

    it('revokes a key (204): it answers 401 at once, its open sockets are closed, a second revoke is 409', async () => {
      const created = await adminA.post('/settings/api-keys', { name: 'To revoke' })
      const socket = socketClient(suite.server().url)
      try {
        await socket.client.authenticate({ strategy: 'apiKey', apiKey: created.body.key })
        assert.equal(socket.socket.connected, true)
        const res = await adminA.delete(`/settings/api-keys/${created.body.id}`)
        assert.equal(res.status, 204)
        assert.equal(res.text, '')
        await until(() => !socket.socket.connected)
      } finally {
        socket.close()
      }
      assert.equal((await a.api.withKey(created.body.key).get('/v1/customers')).status, 401)
      const after = await adminA.get(`/settings/api-keys/${created.body.id}`)
      assert.match(after.body.revokedAt, /^\d{4}-\d\d-\d\dT/)
      assert.equal(after.body.key, null)
      const again = await adminA.delete(`/settings/api-keys/${created.body.id}`)
      assert.equal(again.status, 409)
      assert.equal(again.body.name, 'Conflict')
      assert.equal((await a.api.get('/v1/customers')).status, 200, 'the other keys still work')
    })

    it('400 for a malformed id, 404 for a missing one, 405 for methods it does not offer, 400 for query parameters', async () => {
      const bad = await adminA.get('/settings/api-keys/abc')
      assert.equal(bad.status, 400)
      assert.ok(bad.body.data.validationErrors.apiKeyId)
      assert.equal((await adminA.get('/settings/api-keys/99999999')).status, 404)
      assert.equal((await adminA.delete('/settings/api-keys/99999999')).status, 404)
      assert.equal((await adminA.patch(`/settings/api-keys/${a.apiKeyId}`, { name: 'x' })).status, 405)
      assert.equal((await adminA.put(`/settings/api-keys/${a.apiKeyId}`, { name: 'x' })).status, 405)
      const query = await adminA.get('/settings/api-keys', { companyId: b.id })
      assert.equal(query.status, 400)
      assert.ok(query.body.data.validationErrors.companyId)
    })

    it('sends no realtime event for key writes (they carry the plain key)', async () => {
      const socket = socketClient(suite.server().url)
      try {
        await socket.client.authenticate({ strategy: 'apiKey', apiKey: a.apiKey })
        const seen: string[] = []
        socket.client.service('settings/api-keys').on('created', () => seen.push('key created'))
        socket.client.service('settings/api-keys').on('removed', () => seen.push('key removed'))
        socket.client.service('v1/customers').on('created', () => seen.push('customer created'))
        const created = await adminA.post('/settings/api-keys', { name: 'Quiet' })
        await adminA.delete(`/settings/api-keys/${created.body.id}`)
        await a.api.post('/v1/customers', { companyName: 'After the keys' })
        await until(() => seen.includes('customer created'))
        assert.deepEqual(seen, ['customer created'])
      } finally {
        socket.close()
      }
    })
  })

  describe('settings/usage', () => {
    it('counts requests per key and version, including the last use', async () => {
      const created = await adminA.post('/settings/api-keys', { name: 'Counted' })
      const started = Date.now()
      for (let i = 0; i < 3; i++) assert.equal((await a.api.withKey(created.body.key).get('/v1/roles')).status, 200)
      const res = await adminA.get('/settings/usage')
      assert.equal(res.status, 200)
      const usage = res.body.filter((u: any) => u.apiKeyId === created.body.id)
      assert.equal(usage.length, 1)
      assert.equal(usage[0].version, 'v1')
      assert.equal(usage[0].requestCount, 3)
      assert.ok(Date.parse(usage[0].lastUsedAt) >= started - 1000)
      assert.equal((await adminA.get('/settings/usage', { page: 1 })).status, 400)
    })
  })

  describe('settings/company', () => {
    it("reads the company's country, timezone and working-time model", async () => {
      const res = await adminA.get('/settings/company')
      assert.equal(res.status, 200)
      assert.equal(res.body.id, a.id)
      assert.equal(res.body.country, 'DE')
      assert.equal(res.body.timezone, 'Europe/Berlin')
      assert.deepEqual(res.body.workingTime, {
        targetMinutes: { monday: 480, tuesday: 480, wednesday: 480, thursday: 480, friday: 480, saturday: 0, sunday: 0 },
        breakRules: [
          { afterMinutes: 360, minBreakMinutes: 30 },
          { afterMinutes: 540, minBreakMinutes: 45 }
        ],
        maxDailyMinutes: 600,
        carryOverCapMinutes: null
      })
    })

    it('changes country, timezone and parts of the model; the parts left out stay', async () => {
      const c = await suite.company({ adminPassword: PASSWORD })
      const admin = await settingsLogin(c)
      const week = { monday: 420, tuesday: 420, wednesday: 420, thursday: 420, friday: 300, saturday: 0, sunday: 0 }
      const res = await admin.patch('/settings/company', { country: 'AT', timezone: 'Europe/Vienna', workingTime: { targetMinutes: week, carryOverCapMinutes: 1200 } })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.country, 'AT')
      assert.equal(res.body.timezone, 'Europe/Vienna')
      assert.deepEqual(res.body.workingTime.targetMinutes, week)
      assert.equal(res.body.workingTime.carryOverCapMinutes, 1200)
      assert.equal(res.body.workingTime.maxDailyMinutes, 600)
      assert.equal(res.body.workingTime.breakRules.length, 2)
      assert.deepEqual((await admin.get('/settings/company')).body, res.body)
      const row = await suite.server().knex('companies').where({ id: c.id }).first()
      assert.equal(row.timezone, 'Europe/Vienna')
      const cleared = await admin.patch('/settings/company', { workingTime: { carryOverCapMinutes: null, breakRules: [] } })
      assert.equal(cleared.status, 200)
      assert.equal(cleared.body.workingTime.carryOverCapMinutes, null)
      assert.deepEqual(cleared.body.workingTime.breakRules, [])
    })

    it('recomputes in the same request when the company already has recorded time', async () => {
      const c = await suite.company({ adminPassword: PASSWORD })
      const admin = await settingsLogin(c)
      const type = (await c.api.get('/v1/time-entry-types', { isUnassigned: true })).body.items[0]
      const entry = await c.api.post('/v1/time-entries', { userId: c.adminUserId, typeId: type.id, startsAt: '2026-11-02T07:00:00Z', endsAt: '2026-11-02T15:00:00Z' })
      assert.equal(entry.status, 201)
      const res = await admin.patch('/settings/company', { timezone: 'America/New_York', workingTime: { maxDailyMinutes: 720 } })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.workingTime.maxDailyMinutes, 720)
    })

    it('rejects invalid values naming each field, and changes nothing', async () => {
      const before = (await adminA.get('/settings/company')).body
      const fullWeek = before.workingTime.targetMinutes
      const cases: [unknown, string][] = [
        [{ country: 'XX' }, 'country'],
        [{ country: 'de' }, 'country'],
        [{ country: 'DEU' }, 'country'],
        [{ country: 'UK' }, 'country'], // reserved, not assigned: the United Kingdom is GB
        [{ timezone: 'Mars/Olympus' }, 'timezone'],
        [{ timezone: 'europe/berlin' }, 'timezone'],
        [{ timezone: '+01:00' }, 'timezone'],
        [{ name: 'Renamed' }, 'name'],
        [{ workingTime: { targetMinutes: { ...fullWeek, monday: 1441 } } }, 'workingTime.targetMinutes.monday'],
        [{ workingTime: { targetMinutes: { ...fullWeek, tuesday: -1 } } }, 'workingTime.targetMinutes.tuesday'],
        [{ workingTime: { targetMinutes: { ...fullWeek, friday: 7.5 } } }, 'workingTime.targetMinutes.friday'],
        [{ workingTime: { targetMinutes: { monday: 480 } } }, 'workingTime.targetMinutes.tuesday'],
        [{ workingTime: { targetMinutes: { ...fullWeek, funday: 60 } } }, 'workingTime.targetMinutes.funday'],
        [{ workingTime: { targetMinutes: { ...fullWeek, wednesday: 700 } } }, 'workingTime.targetMinutes.wednesday'],
        [{ workingTime: { maxDailyMinutes: 0 } }, 'workingTime.maxDailyMinutes'],
        [{ workingTime: { maxDailyMinutes: 420 } }, 'workingTime.targetMinutes.monday'],
        [{ workingTime: { carryOverCapMinutes: -5 } }, 'workingTime.carryOverCapMinutes'],
        [{ workingTime: { breakRules: [{ afterMinutes: 540, minBreakMinutes: 45 }, { afterMinutes: 360, minBreakMinutes: 30 }] } }, 'workingTime.breakRules.1.afterMinutes'],
        [{ workingTime: { breakRules: [{ afterMinutes: 360, minBreakMinutes: 0 }] } }, 'workingTime.breakRules.0.minBreakMinutes'],
        [{ workingTime: { breakRules: [{ afterMinutes: 360 }] } }, 'workingTime.breakRules.0.minBreakMinutes'],
        [{ workingTime: { breakRules: [{ afterMinutes: 360, minBreakMinutes: 30, note: 'x' }] } }, 'workingTime.breakRules.0.note'],
        [{ workingTime: { weekStartsOn: 'monday' } }, 'workingTime.weekStartsOn'],
        [{ workingTime: 'standard' }, 'workingTime']
      ]
      for (const [body, field] of cases) {
        const res = await adminA.patch('/settings/company', body)
        assert.equal(res.status, 400, JSON.stringify(body))
        assert.ok(res.body.data.validationErrors[field], `${JSON.stringify(body)} → ${JSON.stringify(res.body.data.validationErrors)}`)
      }
      assert.deepEqual((await adminA.get('/settings/company')).body, before)
    })

    it('has no item paths and no create', async () => {
      assert.equal((await adminA.patch(`/settings/company/${a.id}`, { timezone: 'Europe/Rome' })).status, 404)
      assert.equal((await adminA.get(`/settings/company/${a.id}`)).status, 405)
      assert.equal((await adminA.post('/settings/company', { timezone: 'Europe/Rome' })).status, 405)
      assert.equal((await adminA.get('/settings/company')).body.timezone, 'Europe/Berlin')
    })
  })

  describe('isolation', () => {
    it("an admin of company B can neither see, copy, revoke nor count company A's keys, nor read A's settings", async () => {
      const listB = await adminB.get('/settings/api-keys')
      assert.deepEqual(listB.body.map((k: any) => k.id), [b.apiKeyId])
      const copy = await adminB.get(`/settings/api-keys/${a.apiKeyId}`)
      assert.equal(copy.status, 404)
      assert.equal(copy.text.includes(a.apiKey), false)
      assert.equal((await adminB.delete(`/settings/api-keys/${a.apiKeyId}`)).status, 404)
      assert.equal((await a.api.get('/v1/customers')).status, 200, "A's key still works")
      await a.api.get('/v1/roles')
      const usageB = await adminB.get('/settings/usage')
      assert.equal(usageB.body.some((u: any) => u.apiKeyId === a.apiKeyId), false)
      const companyB = await adminB.get('/settings/company')
      assert.equal(companyB.body.id, b.id)
      const patched = await adminB.patch('/settings/company', { timezone: 'Europe/Rome' })
      assert.equal(patched.body.id, b.id)
      assert.equal((await adminA.get('/settings/company')).body.timezone, 'Europe/Berlin')
    })
  })
})
