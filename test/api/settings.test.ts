import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../support/harness'
import { HttpClient } from '../support/http'
import { socketClient } from '../support/socket'
import { sheetFixtures } from '../support/timesheets/fixtures'
import { until } from '../support/wait'
import { addDays, today } from '../../src/timesheets/periods'

const PASSWORD = 'settings secret'

forEachDatabase('settings endpoints', (suite) => {
  const f = sheetFixtures(suite)
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
      for (const path of ['/settings/api-keys', '/settings/company', '/settings/working-times', '/settings/usage']) {
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
      const worker = await a.api.post('/v1/users', {
        fullName: 'Wanda Worker',
        email: `wanda-${Date.now()}@example.test`,
        password: 'worker password'
      })
      assert.equal(worker.status, 201)
      const res = await suite
        .server()
        .http.post('/authentication', { strategy: 'local', email: worker.body.email, password: 'worker password' })
      assert.equal(res.status, 401)
      assert.equal(res.body.accessToken, undefined)
    })

    it('the settings token stops working when the admin is deactivated', async () => {
      const c = await suite.company({ adminPassword: PASSWORD })
      const admin = await settingsLogin(c)
      assert.equal((await admin.get('/settings/company')).status, 200)
      await suite
        .server()
        .knex('users')
        .where({ id: c.adminUserId })
        .update({ deactivatedAt: new Date().toISOString() })
      assert.equal((await admin.get('/settings/company')).status, 401)
    })
  })

  describe('settings/api-keys', () => {
    it('lists the company keys masked, never the key, its hash or its ciphertext', async () => {
      const res = await adminA.get('/settings/api-keys')
      assert.equal(res.status, 200)
      assert.equal(res.body.length, 1)
      const [key] = res.body
      assert.deepEqual(Object.keys(key).sort(), [
        'createdAt',
        'id',
        'maskedKey',
        'name',
        'revokedAt',
        'scopes',
        'userId'
      ])
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
    const FIRST = {
      validFrom: '1970-01-01',
      targetMinutes: { monday: 480, tuesday: 480, wednesday: 480, thursday: 480, friday: 480, saturday: 0, sunday: 0 },
      breakRules: [
        { afterMinutes: 360, minBreakMinutes: 30 },
        { afterMinutes: 540, minBreakMinutes: 45 }
      ],
      maxDailyMinutes: 600,
      carryOverCapMinutes: null
    }

    it("reads the company's country, timezone, the working-time version in effect today and every version", async () => {
      const res = await adminA.get('/settings/company')
      assert.equal(res.status, 200)
      assert.deepEqual(Object.keys(res.body).sort(), [
        'country',
        'id',
        'name',
        'timezone',
        'workingTime',
        'workingTimeVersions'
      ])
      assert.equal(res.body.id, a.id)
      assert.equal(res.body.country, 'DE')
      assert.equal(res.body.timezone, 'Europe/Berlin')
      const [first] = res.body.workingTimeVersions
      assert.deepEqual(res.body.workingTimeVersions, [{ id: first.id, ...FIRST }])
      assert.deepEqual(res.body.workingTime, res.body.workingTimeVersions[0])
    })

    it('changes country and timezone; a workingTime key is 400 pointing to settings/working-times', async () => {
      const c = await suite.company({ adminPassword: PASSWORD })
      const admin = await settingsLogin(c)
      const res = await admin.patch('/settings/company', { country: 'AT', timezone: 'Europe/Vienna' })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.country, 'AT')
      assert.equal(res.body.timezone, 'Europe/Vienna')
      assert.deepEqual((await admin.get('/settings/company')).body, res.body)
      const row = await suite.server().knex('companies').where({ id: c.id }).first()
      assert.equal(row.timezone, 'Europe/Vienna')
      const refused = await admin.patch('/settings/company', {
        timezone: 'Europe/Berlin',
        workingTime: { maxDailyMinutes: 720 }
      })
      assert.equal(refused.status, 400)
      assert.match(refused.body.data.validationErrors.workingTime, /settings\/working-times/)
      assert.deepEqual((await admin.get('/settings/company')).body, res.body, 'nothing changed')
    })

    it('recomputes in the same request when the timezone changes and the company has recorded time', async () => {
      const c = await suite.company({ adminPassword: PASSWORD })
      const admin = await settingsLogin(c)
      const type = (await c.api.get('/v1/time-entry-types', { isUnassigned: true })).body.items[0]
      const userId = await f.newUser(c, { employedFrom: '2025-01-01' })
      // 23:30–01:30 UTC: the night of the 4th in New York, the early morning of the 5th in Berlin.
      const entry = await c.api.post('/v1/time-entries', {
        userId,
        typeId: type.id,
        startsAt: '2025-03-05T03:30:00Z',
        endsAt: '2025-03-05T05:30:00Z'
      })
      assert.equal(entry.status, 201, entry.text)
      assert.equal((await f.day(c, userId, '2025-03-05')).duration, 120)
      assert.equal((await f.day(c, userId, '2025-03-04')).duration, 0)
      const res = await admin.patch('/settings/company', { timezone: 'America/New_York' })
      assert.equal(res.status, 200, res.text)
      assert.equal((await f.day(c, userId, '2025-03-05')).duration, 0)
      assert.equal((await f.day(c, userId, '2025-03-04')).duration, 120)
    })

    it('rejects invalid values naming each field, and changes nothing', async () => {
      const before = (await adminA.get('/settings/company')).body
      const cases: [unknown, string][] = [
        [{ country: 'XX' }, 'country'],
        [{ country: 'de' }, 'country'],
        [{ country: 'DEU' }, 'country'],
        [{ country: 'UK' }, 'country'], // reserved, not assigned: the United Kingdom is GB
        [{ timezone: 'Mars/Olympus' }, 'timezone'],
        [{ timezone: 'europe/berlin' }, 'timezone'],
        [{ timezone: '+01:00' }, 'timezone'],
        [{ name: 'Renamed' }, 'name'],
        [{ workingTimeVersions: [] }, 'workingTimeVersions'],
        [{ workingTime: 'standard' }, 'workingTime']
      ]
      for (const [body, field] of cases) {
        const res = await adminA.patch('/settings/company', body)
        assert.equal(res.status, 400, JSON.stringify(body))
        assert.ok(
          res.body.data.validationErrors[field],
          `${JSON.stringify(body)} → ${JSON.stringify(res.body.data.validationErrors)}`
        )
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

  describe('settings/working-times', () => {
    const WEEK = (minutes: number) => ({
      monday: minutes,
      tuesday: minutes,
      wednesday: minutes,
      thursday: minutes,
      friday: minutes,
      saturday: 0,
      sunday: 0
    })
    const list = async (admin: HttpClient) => {
      const res = await admin.get('/settings/working-times')
      assert.equal(res.status, 200, res.text)
      return res.body as any[]
    }
    /** A company of its own (DE, Europe/Berlin, Mon–Fri 480), its settings session and one worker employed since 2025-01-01. */
    async function freshCompany(options: { timezone?: string } = {}) {
      const company = await suite.company({ adminPassword: PASSWORD, ...options })
      const admin = await settingsLogin(company)
      const userId = await f.newUser(company, { employedFrom: '2025-01-01' })
      return { company, admin, userId }
    }
    const figures = (m: any) => ({
      sumTarget: m.sumTarget,
      sumActual: m.sumActual,
      carryIn: m.carryIn,
      carryOut: m.carryOut
    })

    it('lists the versions; create defaults validFrom to tomorrow (company timezone) and copies the parts left out from the version in effect then', async () => {
      const { admin } = await freshCompany({ timezone: 'Pacific/Kiritimati' })
      const [first] = await list(admin)
      assert.deepEqual(Object.keys(first).sort(), [
        'breakRules',
        'carryOverCapMinutes',
        'id',
        'maxDailyMinutes',
        'targetMinutes',
        'validFrom'
      ])
      assert.equal(first.validFrom, '1970-01-01')

      const tomorrowBefore = addDays(today('Pacific/Kiritimati'), 1)
      const created = await admin.post('/settings/working-times', { maxDailyMinutes: 660 })
      const tomorrowAfter = addDays(today('Pacific/Kiritimati'), 1)
      assert.equal(created.status, 201, created.text)
      assert.ok(
        [tomorrowBefore, tomorrowAfter].includes(created.body.validFrom),
        `${created.body.validFrom} is tomorrow in the company's timezone`
      )
      assert.deepEqual(created.body, {
        ...first,
        id: created.body.id,
        validFrom: created.body.validFrom,
        maxDailyMinutes: 660
      })

      // Parts left out come from the version in effect on validFrom: before tomorrow the first, after it the new one.
      const later = await admin.post('/settings/working-times', {
        validFrom: addDays(created.body.validFrom, 10),
        carryOverCapMinutes: 600
      })
      assert.equal(later.status, 201, later.text)
      assert.deepEqual(
        [later.body.maxDailyMinutes, later.body.carryOverCapMinutes, later.body.targetMinutes],
        [660, 600, first.targetMinutes]
      )
      // The days targetMinutes leaves out stay too: "Fridays 300" changes only Fridays (docs/decisions.md).
      const fridays = await admin.post('/settings/working-times', {
        validFrom: addDays(created.body.validFrom, 20),
        targetMinutes: { friday: 300 }
      })
      assert.equal(fridays.status, 201, fridays.text)
      assert.deepEqual(fridays.body.targetMinutes, { ...first.targetMinutes, friday: 300 })
      const tuesdays = await admin.patch(`/settings/working-times/${fridays.body.id}`, {
        targetMinutes: { tuesday: 0 }
      })
      assert.deepEqual(tuesdays.body.targetMinutes, { ...first.targetMinutes, friday: 300, tuesday: 0 })
      const unknownDay = await admin.patch(`/settings/working-times/${fridays.body.id}`, {
        targetMinutes: { funday: 1 }
      })
      assert.equal(unknownDay.status, 400)
      assert.equal((await admin.delete(`/settings/working-times/${fridays.body.id}`)).status, 204)
      const past = await admin.post('/settings/working-times', {
        validFrom: '2025-01-06',
        targetMinutes: WEEK(240),
        breakRules: []
      })
      assert.equal(past.status, 201, past.text)
      assert.deepEqual(
        [past.body.maxDailyMinutes, past.body.carryOverCapMinutes, past.body.breakRules],
        [600, null, []]
      )

      const versions = await list(admin)
      assert.deepEqual(
        versions.map((v) => v.id),
        [first.id, past.body.id, created.body.id, later.body.id],
        'ascending by validFrom'
      )
      const company = (await admin.get('/settings/company')).body
      assert.deepEqual(company.workingTimeVersions, versions)
      assert.deepEqual(company.workingTime, versions[1], 'in effect today: the version from 2025-01-06')
    })

    it('a version from a past date changes the figures from that day on only', async () => {
      const { company, admin, userId } = await freshCompany()
      const types = await f.typesOf(company)
      await f.entry(company, types, userId, '2025-03-11T08:00:00+01:00', '2025-03-11T12:00:00+01:00')
      await f.entry(company, types, userId, '2025-03-12T08:00:00+01:00', '2025-03-12T12:00:00+01:00')
      const tuesday = await f.day(company, userId, '2025-03-11')
      const wednesday = await f.day(company, userId, '2025-03-12')
      const week = await f.week(company, userId, '2025-03-10')
      const february = await f.month(company, userId, '2025-02-01')
      const march = await f.month(company, userId, '2025-03-01')
      await f.month(company, userId, '2025-04-01')
      assert.deepEqual(
        [tuesday.expectedDuration, tuesday.duration, wednesday.expectedDuration, wednesday.duration],
        [480, 240, 480, 240]
      )
      assert.deepEqual([week.sumTarget, week.sumActual], [2400, 480])
      // January 23 and February 20 working days of 480; March 21.
      assert.deepEqual(figures(february), { sumTarget: 9600, sumActual: 0, carryIn: -11040, carryOut: -20640 })
      assert.deepEqual(figures(march), { sumTarget: 10080, sumActual: 480, carryIn: -20640, carryOut: -30240 })

      const created = await admin.post('/settings/working-times', { validFrom: '2025-03-12', targetMinutes: WEEK(240) })
      assert.equal(created.status, 201, created.text)
      assert.deepEqual(await f.day(company, userId, '2025-03-11'), tuesday, 'the day before validFrom is untouched')
      assert.deepEqual(await f.month(company, userId, '2025-02-01'), february, 'the month before is untouched')
      const wednesdayAfter = await f.day(company, userId, '2025-03-12')
      assert.deepEqual([wednesdayAfter.expectedDuration, wednesdayAfter.duration], [240, 240])
      const weekAfter = await f.week(company, userId, '2025-03-10')
      assert.deepEqual([weekAfter.sumTarget, weekAfter.sumActual], [2 * 480 + 3 * 240, 480])
      // March: 7 working days before the 12th at 480, 14 from it at 240; April: 22 at 240.
      assert.deepEqual(figures(await f.month(company, userId, '2025-03-01')), {
        sumTarget: 7 * 480 + 14 * 240,
        sumActual: 480,
        carryIn: -20640,
        carryOut: -26880
      })
      assert.deepEqual(figures(await f.month(company, userId, '2025-04-01')), {
        sumTarget: 22 * 240,
        sumActual: 0,
        carryIn: -26880,
        carryOut: -26880 - 5280
      })
    })

    it('moving validFrom recomputes the old and the new range; a PATCH of parts recomputes its range; remove restores the figures', async () => {
      const { company, admin, userId } = await freshCompany()
      const types = await f.typesOf(company)
      await f.entry(company, types, userId, '2025-03-12T08:00:00+01:00', '2025-03-12T12:00:00+01:00')
      const originalMarch = await f.month(company, userId, '2025-03-01')
      const originalApril = await f.month(company, userId, '2025-04-01')
      const target = async (day: string) => (await f.day(company, userId, day)).expectedDuration
      const targets = async (days: string[]) => Promise.all(days.map(target))

      const april = await admin.post('/settings/working-times', { validFrom: '2025-04-01', targetMinutes: WEEK(300) })
      assert.equal(april.status, 201, april.text)
      const created = await admin.post('/settings/working-times', { validFrom: '2025-03-12', targetMinutes: WEEK(240) })
      assert.equal(created.status, 201, created.text)
      assert.deepEqual(
        await targets(['2025-03-04', '2025-03-11', '2025-03-12', '2025-03-31', '2025-04-01']),
        [480, 480, 240, 240, 300]
      )

      // Earlier: the days from the 5th to the 11th join the version.
      const earlier = await admin.patch(`/settings/working-times/${created.body.id}`, { validFrom: '2025-03-05' })
      assert.equal(earlier.status, 200, earlier.text)
      assert.deepEqual(earlier.body, { ...created.body, validFrom: '2025-03-05' })
      assert.deepEqual(
        await targets(['2025-03-04', '2025-03-05', '2025-03-11', '2025-03-12', '2025-04-01']),
        [480, 240, 240, 240, 300]
      )
      assert.equal((await f.week(company, userId, '2025-03-03')).sumTarget, 2 * 480 + 3 * 240)
      assert.equal((await f.month(company, userId, '2025-03-01')).sumTarget, 2 * 480 + 19 * 240)

      // Later: the days from the 5th to the 18th go back to the first version.
      const later = await admin.patch(`/settings/working-times/${created.body.id}`, { validFrom: '2025-03-19' })
      assert.equal(later.status, 200, later.text)
      assert.deepEqual(
        await targets(['2025-03-05', '2025-03-12', '2025-03-18', '2025-03-19', '2025-04-01']),
        [480, 480, 480, 240, 300]
      )
      assert.equal((await f.week(company, userId, '2025-03-03')).sumTarget, 5 * 480)
      assert.equal((await f.month(company, userId, '2025-03-01')).sumTarget, 12 * 480 + 9 * 240)

      // Parts: the version's range up to the next version changes, nothing after it.
      const parts = await admin.patch(`/settings/working-times/${created.body.id}`, {
        targetMinutes: { ...WEEK(360), friday: 120 }
      })
      assert.equal(parts.status, 200, parts.text)
      assert.deepEqual(
        [parts.body.validFrom, parts.body.maxDailyMinutes, parts.body.targetMinutes.friday],
        ['2025-03-19', 600, 120]
      )
      assert.deepEqual(await targets(['2025-03-18', '2025-03-19', '2025-03-21', '2025-04-01']), [480, 360, 120, 300])
      // From the 19th: Wed, Thu, Mon–Thu (24–27), Mon 31 at 360, Fri 21 and 28 at 120.
      assert.equal((await f.month(company, userId, '2025-03-01')).sumTarget, 12 * 480 + 7 * 360 + 2 * 120)

      assert.equal((await admin.delete(`/settings/working-times/${created.body.id}`)).status, 204)
      assert.equal((await admin.delete(`/settings/working-times/${april.body.id}`)).status, 204)
      assert.deepEqual(figures(await f.month(company, userId, '2025-03-01')), figures(originalMarch))
      assert.deepEqual(figures(await f.month(company, userId, '2025-04-01')), figures(originalApril))
      assert.deepEqual(await targets(['2025-03-19', '2025-04-01']), [480, 480])
      assert.equal((await list(admin)).length, 1)
      assert.equal((await admin.delete(`/settings/working-times/${created.body.id}`)).status, 404, 'gone')
    })

    it('409 for a second version from the same day, on create and on a move; nothing changed', async () => {
      const { admin } = await freshCompany()
      const one = await admin.post('/settings/working-times', { validFrom: '2025-05-01', maxDailyMinutes: 540 })
      const two = await admin.post('/settings/working-times', { validFrom: '2025-06-01' })
      assert.deepEqual([one.status, two.status], [201, 201])
      const before = await list(admin)
      const duplicate = await admin.post('/settings/working-times', { validFrom: '2025-05-01', maxDailyMinutes: 720 })
      assert.equal(duplicate.status, 409)
      assert.equal(duplicate.body.name, 'Conflict')
      assert.ok(duplicate.body.data.validationErrors.validFrom)
      const moved = await admin.patch(`/settings/working-times/${two.body.id}`, { validFrom: '2025-05-01' })
      assert.equal(moved.status, 409)
      assert.ok(moved.body.data.validationErrors.validFrom)
      assert.deepEqual(await list(admin), before)
    })

    it("409 when a version's range overlaps a locked month of any user, on create, PATCH and delete; nothing changed", async () => {
      const { company, admin, userId } = await freshCompany()
      const other = await f.newUser(company, { employedFrom: '2025-01-01' })
      const february = await f.month(company, userId, '2025-02-01')
      assert.equal(
        (await company.api.patch(`/v1/time-sheet-months/${february.id}`, { status: 'submitted' })).status,
        200
      )
      const approved = await company.api.patch(`/v1/time-sheet-months/${february.id}`, { status: 'approved' })
      assert.equal(approved.status, 200, approved.text)
      assert.ok(approved.body.lockedAt)
      let othersMarch = await f.month(company, other, '2025-03-01')
      const [first] = await list(admin)
      const unchanged = async () => {
        assert.deepEqual(await list(admin), versions)
        assert.deepEqual(figures(await f.month(company, other, '2025-03-01')), figures(othersMarch))
      }
      let versions = await list(admin)

      const refusals = [
        await admin.post('/settings/working-times', { validFrom: '2025-02-15', targetMinutes: WEEK(240) }),
        await admin.post('/settings/working-times', { validFrom: '2025-01-10', targetMinutes: WEEK(240) }),
        await admin.patch(`/settings/working-times/${first.id}`, { maxDailyMinutes: 660 })
      ]
      for (const res of refusals) {
        assert.equal(res.status, 409, res.text)
        assert.deepEqual(res.body.data.months, ['2025-02-01'])
        assert.deepEqual(res.body.data.userIds, [userId])
        assert.equal(res.body.data.validationErrors.validFrom, 'would change a locked month')
        assert.match(res.body.message, /2025-02-01/)
      }
      await unchanged()

      // From March on the locked February is out of range.
      const march = await admin.post('/settings/working-times', { validFrom: '2025-03-01', targetMinutes: WEEK(240) })
      assert.equal(march.status, 201, march.text)
      assert.equal((await f.month(company, other, '2025-03-01')).sumTarget, 21 * 240)
      assert.equal((await f.month(company, userId, '2025-02-01')).sumTarget, 9600)
      versions = await list(admin)
      othersMarch = await f.month(company, other, '2025-03-01')
      // Bounded by the March version, a version from 10 January still reaches February; so does moving March's into it.
      const bounded = await admin.post('/settings/working-times', { validFrom: '2025-01-10' })
      assert.equal(bounded.status, 409)
      const moved = await admin.patch(`/settings/working-times/${march.body.id}`, { validFrom: '2025-02-20' })
      assert.equal(moved.status, 409)
      assert.deepEqual(moved.body.data.months, ['2025-02-01'])
      await unchanged()
      // Writing a version back as it is changes no day: not refused.
      assert.equal(
        (await admin.patch(`/settings/working-times/${first.id}`, { maxDailyMinutes: first.maxDailyMinutes })).status,
        200
      )

      // Reopening February lets the change through.
      assert.equal((await company.api.patch(`/v1/time-sheet-months/${february.id}`, { status: 'draft' })).status, 200)
      const now = await admin.patch(`/settings/working-times/${march.body.id}`, { validFrom: '2025-02-20' })
      assert.equal(now.status, 200, now.text)
      assert.equal((await f.month(company, userId, '2025-02-01')).sumTarget, 13 * 480 + 7 * 240)
      assert.equal((await admin.delete(`/settings/working-times/${march.body.id}`)).status, 204)
      assert.equal((await f.month(company, userId, '2025-02-01')).sumTarget, 9600)
    })

    it('a delete whose range overlaps a locked month is 409 and keeps the version', async () => {
      const { company, admin, userId } = await freshCompany()
      const created = await admin.post('/settings/working-times', { validFrom: '2025-02-10', targetMinutes: WEEK(240) })
      assert.equal(created.status, 201, created.text)
      const february = await f.month(company, userId, '2025-02-01')
      await company.api.patch(`/v1/time-sheet-months/${february.id}`, { status: 'submitted' })
      assert.equal(
        (await company.api.patch(`/v1/time-sheet-months/${february.id}`, { status: 'approved' })).status,
        200
      )
      const res = await admin.delete(`/settings/working-times/${created.body.id}`)
      assert.equal(res.status, 409)
      assert.deepEqual([res.body.data.months, res.body.data.userIds], [['2025-02-01'], [userId]])
      assert.equal((await list(admin)).length, 2)
      assert.equal((await f.month(company, userId, '2025-02-01')).sumTarget, 5 * 480 + 15 * 240)
    })

    it('the first version is never removed (409) nor moved (400); its parts change', async () => {
      const { company, admin, userId } = await freshCompany()
      const [first] = await list(admin)
      const removed = await admin.delete(`/settings/working-times/${first.id}`)
      assert.equal(removed.status, 409)
      assert.equal(removed.body.name, 'Conflict')
      for (const validFrom of ['2025-01-01', '1970-01-02']) {
        const moved = await admin.patch(`/settings/working-times/${first.id}`, { validFrom })
        assert.equal(moved.status, 400)
        assert.match(moved.body.data.validationErrors.validFrom, /first version/)
      }
      assert.deepEqual(await list(admin), [first])
      const same = await admin.patch(`/settings/working-times/${first.id}`, {
        validFrom: '1970-01-01',
        targetMinutes: WEEK(420)
      })
      assert.equal(same.status, 200, same.text)
      assert.deepEqual(same.body, { ...first, targetMinutes: WEEK(420) })
      assert.equal((await f.month(company, userId, '2025-01-01')).sumTarget, 23 * 420)
    })

    it('400 naming each field, on create and on PATCH; nothing changed', async () => {
      const { admin } = await freshCompany()
      const [first] = await list(admin)
      const week = WEEK(480)
      const cases: [unknown, string][] = [
        [{ targetMinutes: { ...week, monday: 1441 } }, 'targetMinutes.monday'],
        [{ targetMinutes: { ...week, tuesday: -1 } }, 'targetMinutes.tuesday'],
        [{ targetMinutes: { ...week, friday: 7.5 } }, 'targetMinutes.friday'],
        [{ targetMinutes: { monday: null } }, 'targetMinutes.monday'],
        [{ targetMinutes: { saturday: 700 } }, 'targetMinutes.saturday'],
        [{ targetMinutes: { ...week, funday: 60 } }, 'targetMinutes.funday'],
        [{ targetMinutes: { ...week, wednesday: 700 } }, 'targetMinutes.wednesday'],
        [{ maxDailyMinutes: 0 }, 'maxDailyMinutes'],
        [{ maxDailyMinutes: 420 }, 'targetMinutes.monday'],
        [{ carryOverCapMinutes: -5 }, 'carryOverCapMinutes'],
        [
          {
            breakRules: [
              { afterMinutes: 540, minBreakMinutes: 45 },
              { afterMinutes: 360, minBreakMinutes: 30 }
            ]
          },
          'breakRules.1.afterMinutes'
        ],
        [{ breakRules: [{ afterMinutes: 360, minBreakMinutes: 0 }] }, 'breakRules.0.minBreakMinutes'],
        [{ breakRules: [{ afterMinutes: 360 }] }, 'breakRules.0.minBreakMinutes'],
        [{ breakRules: [{ afterMinutes: 360, minBreakMinutes: 30, note: 'x' }] }, 'breakRules.0.note'],
        [{ validFrom: '2025-13-01' }, 'validFrom'],
        [{ validFrom: '2025-02-30' }, 'validFrom'],
        [{ validFrom: 'tomorrow' }, 'validFrom'],
        [{ validFrom: null }, 'validFrom'],
        [{ validFrom: '1999-12-31' }, 'validFrom'],
        [{ validFrom: '1970-01-01' }, 'validFrom'],
        [{ weekStartsOn: 'monday' }, 'weekStartsOn'],
        [{ id: 5 }, 'id']
      ]
      const created = await admin.post('/settings/working-times', { validFrom: '2025-05-01' })
      assert.equal(created.status, 201)
      const before = await list(admin)
      for (const [body, field] of cases) {
        const where = JSON.stringify(body)
        const onCreate = await admin.post('/settings/working-times', { validFrom: '2025-07-01', ...(body as object) })
        assert.equal(onCreate.status, 400, `POST ${where}`)
        assert.ok(
          onCreate.body.data.validationErrors[field],
          `POST ${where} → ${JSON.stringify(onCreate.body.data.validationErrors)}`
        )
        const onPatch = await admin.patch(`/settings/working-times/${created.body.id}`, body)
        assert.equal(onPatch.status, 400, `PATCH ${where}`)
        assert.ok(
          onPatch.body.data.validationErrors[field],
          `PATCH ${where} → ${JSON.stringify(onPatch.body.data.validationErrors)}`
        )
      }
      assert.match(
        (await admin.post('/settings/working-times', { validFrom: '1999-12-31' })).body.data.validationErrors.validFrom,
        /2000-01-01/
      )
      assert.equal((await admin.post('/settings/working-times', [{ validFrom: '2025-07-01' }])).status, 400)
      assert.equal((await admin.patch(`/settings/working-times/${first.id}`, 'x')).status, 400)
      assert.deepEqual(await list(admin), before)
    })

    it('ids: 400 malformed, 404 missing or of another company; 405 for methods it does not offer; 400 for query parameters', async () => {
      const { admin } = await freshCompany()
      const theirs = await adminB.post('/settings/working-times', { validFrom: '2025-05-01' })
      assert.equal(theirs.status, 201, theirs.text)
      const [theirFirst] = await list(adminB)
      for (const id of [theirs.body.id, theirFirst.id, 99999999]) {
        assert.equal((await admin.patch(`/settings/working-times/${id}`, { maxDailyMinutes: 540 })).status, 404)
        assert.equal((await admin.delete(`/settings/working-times/${id}`)).status, 404)
      }
      assert.deepEqual(
        (await list(adminB)).map((v) => v.maxDailyMinutes),
        [600, 600],
        "B's versions are untouched"
      )
      assert.equal(
        (await list(admin)).some((v) => v.id === theirs.body.id),
        false
      )
      const bad = await admin.patch('/settings/working-times/abc', { maxDailyMinutes: 540 })
      assert.equal(bad.status, 400)
      assert.ok(bad.body.data.validationErrors.workingTimeId)
      assert.equal((await admin.get(`/settings/working-times/${theirFirst.id}`)).status, 405)
      assert.equal((await admin.put(`/settings/working-times/${theirFirst.id}`, {})).status, 405)
      const onCollection = [
        await admin.patch('/settings/working-times', { maxDailyMinutes: 540 }),
        await admin.delete('/settings/working-times')
      ]
      assert.deepEqual(
        onCollection.map((res) => res.status),
        [405, 405]
      )
      const query = await admin.get('/settings/working-times', { validFrom: '2025-05-01' })
      assert.equal(query.status, 400)
      assert.ok(query.body.data.validationErrors.validFrom)
      assert.equal((await adminB.delete(`/settings/working-times/${theirs.body.id}`)).status, 204)
    })

    it('answers 401 to an API key on every method, and changes nothing', async () => {
      const { company, admin } = await freshCompany()
      const [first] = await list(admin)
      const refused = [
        await company.api.get('/settings/working-times'),
        await company.api.post('/settings/working-times', { validFrom: '2025-05-01' }),
        await company.api.patch(`/settings/working-times/${first.id}`, { maxDailyMinutes: 540 }),
        await company.api.delete(`/settings/working-times/${first.id}`)
      ]
      assert.deepEqual(
        refused.map((res) => res.status),
        [401, 401, 401, 401]
      )
      assert.deepEqual(
        refused.map((res) => res.body.name),
        ['NotAuthenticated', 'NotAuthenticated', 'NotAuthenticated', 'NotAuthenticated']
      )
      assert.deepEqual(await list(admin), [first])
    })
  })

  describe('isolation', () => {
    it("an admin of company B can neither see, copy, revoke nor count company A's keys, nor read A's settings", async () => {
      const listB = await adminB.get('/settings/api-keys')
      assert.deepEqual(
        listB.body.map((k: any) => k.id),
        [b.apiKeyId]
      )
      const copy = await adminB.get(`/settings/api-keys/${a.apiKeyId}`)
      assert.equal(copy.status, 404)
      assert.equal(copy.text.includes(a.apiKey), false)
      assert.equal((await adminB.delete(`/settings/api-keys/${a.apiKeyId}`)).status, 404)
      assert.equal((await a.api.get('/v1/customers')).status, 200, "A's key still works")
      await a.api.get('/v1/roles')
      const usageB = await adminB.get('/settings/usage')
      assert.equal(
        usageB.body.some((u: any) => u.apiKeyId === a.apiKeyId),
        false
      )
      const companyB = await adminB.get('/settings/company')
      assert.equal(companyB.body.id, b.id)
      const patched = await adminB.patch('/settings/company', { timezone: 'Europe/Rome' })
      assert.equal(patched.body.id, b.id)
      assert.equal((await adminA.get('/settings/company')).body.timezone, 'Europe/Berlin')
    })
  })
})
