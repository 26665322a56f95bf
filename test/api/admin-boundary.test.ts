import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../support/harness'
import { socketClient } from '../support/socket'

/**
 * CONTRACT §10.1: an API key never becomes an administrator; administrators are managed on the
 * settings page, whose sessions end at logout, password change and deactivation.
 */

const PASSWORD = 'admin secret 1'

forEachDatabase('admin boundary', (suite) => {
  let n = 0
  const email = (name = 'user') => `${name}-${process.pid}-${Date.now()}-${++n}@admins.test`

  const rolesOf = async (company: TestCompany): Promise<Record<string, number>> =>
    Object.fromEntries((await company.api.get('/v1/roles')).body.items.map((r: any) => [r.type, r.id]))

  const emailOf = async (userId: number) =>
    (await suite.server().knex('users').where({ id: userId }).first('email')).email as string

  const login = (address: string, password: string) =>
    suite.server().http.post('/authentication', { strategy: 'local', email: address, password })

  /** Signs in as the settings page does; the client sends the token. */
  async function settingsLogin(address: string, password = PASSWORD) {
    const res = await login(address, password)
    assert.equal(res.status, 201, res.text)
    return suite.server().http.withKey(res.body.accessToken)
  }

  const assertForbidden = (res: { status: number; body: any }, pattern: RegExp) => {
    assert.equal(res.status, 403, JSON.stringify(res.body))
    assert.equal(res.body.name, 'Forbidden')
    assert.equal(res.body.code, 403)
    assert.equal(res.body.className, 'forbidden')
    assert.match(res.body.message, pattern)
  }

  describe('an API key cannot make, unmake or take over an administrator', () => {
    let a: TestCompany
    let roles: Record<string, number>
    let adminEmail: string

    before(async () => {
      a = await suite.company({ adminPassword: PASSWORD })
      roles = await rolesOf(a)
      adminEmail = await emailOf(a.adminUserId)
    })

    it('POST /v1/users with the admin role → 403, and no user is created', async () => {
      const address = email('mallory')
      const res = await a.api.post('/v1/users', {
        fullName: 'Mallory',
        email: address,
        roleId: roles.admin,
        password: 'mallory password'
      })
      assertForbidden(res, /cannot create an administrator/)
      assert.deepEqual(res.body.data, { reason: 'admin-account', fields: ['roleId'] })
      assert.equal((await a.api.get('/v1/users', { email: address })).body.total, 0)
      assert.equal((await login(address, 'mallory password')).status, 401)
    })

    it("PATCH a worker's roleId to the admin role → 403; an admin's roleId to worker → 403; both unchanged", async () => {
      const worker = await a.api.post('/v1/users', {
        fullName: 'Will Worker',
        email: email('will'),
        password: 'worker password'
      })
      assert.equal(worker.status, 201)
      assertForbidden(
        await a.api.patch(`/v1/users/${worker.body.id}`, { roleId: roles.admin }),
        /cannot make a user an administrator/
      )
      assert.equal((await a.api.get(`/v1/users/${worker.body.id}`)).body.roleType, 'worker')
      assertForbidden(
        await a.api.patch(`/v1/users/${a.adminUserId}`, { roleId: roles.worker }),
        /cannot change the role of an administrator/
      )
      assertForbidden(
        await a.api.patch(`/v1/users/${a.adminUserId}`, { roleId: roles.office, fullName: 'Demoted' }),
        /role of an administrator/
      )
      const admin = (await a.api.get(`/v1/users/${a.adminUserId}`)).body
      assert.equal(admin.roleType, 'admin')
      assert.notEqual(admin.fullName, 'Demoted')
    })

    it("PATCH an admin's password, email or deactivatedAt → 403, nothing changed, the old password still signs in", async () => {
      const before = (await a.api.get(`/v1/users/${a.adminUserId}`)).body
      const attempts: [Record<string, unknown>, RegExp][] = [
        [{ password: 'taken over!' }, /password/],
        [{ password: null }, /password/],
        [{ email: email('attacker') }, /email/],
        [{ email: adminEmail.toUpperCase() }, /email/],
        [{ deactivatedAt: '2026-11-22T08:00:00Z' }, /deactivatedAt/],
        [{ fullName: 'Innocent', password: 'taken over!' }, /password/]
      ]
      for (const [body, pattern] of attempts)
        assertForbidden(await a.api.patch(`/v1/users/${a.adminUserId}`, body), pattern)
      const after = (await a.api.get(`/v1/users/${a.adminUserId}`)).body
      assert.deepEqual(after, before)
      assert.equal((await login(adminEmail, 'taken over!')).status, 401)
      assert.equal((await login(adminEmail, PASSWORD)).status, 201)
    })

    it('a key still edits what is not an admin account: an admin’s name, unchanged values, non-admins’ passwords', async () => {
      const renamed = await a.api.patch(`/v1/users/${a.adminUserId}`, {
        fullName: 'Renamed Admin',
        email: adminEmail,
        deactivatedAt: null,
        roleId: roles.admin
      })
      assert.equal(renamed.status, 200, renamed.text)
      assert.equal(renamed.body.fullName, 'Renamed Admin')
      const office = await a.api.post('/v1/users', {
        fullName: 'Olga Office',
        email: email('olga'),
        roleId: roles.office,
        password: 'office password'
      })
      assert.equal(office.status, 201)
      assert.equal(
        (
          await a.api.patch(`/v1/users/${office.body.id}`, {
            password: 'new office password',
            email: email('olga2'),
            deactivatedAt: '2026-11-22T08:00:00Z'
          })
        ).status,
        200
      )
      assert.equal((await a.api.patch(`/v1/users/${office.body.id}`, { roleId: roles.worker })).status, 200)
    })

    it('the same answers over a socket', async () => {
      const { client, close } = socketClient(suite.server().url)
      try {
        await client.authenticate({ strategy: 'apiKey', apiKey: a.apiKey })
        const users = client.service('v1/users')
        const address = email('socket-mallory')
        const attempts = [
          () =>
            users.create({
              fullName: 'Socket Mallory',
              email: address,
              roleId: roles.admin,
              password: 'mallory password'
            }),
          () => users.patch(a.adminUserId, { password: 'socket takeover' }),
          () => users.patch(a.adminUserId, { roleId: roles.worker })
        ]
        for (const attempt of attempts) {
          await assert.rejects(attempt(), (error: any) => {
            assert.equal(error.code, 403)
            assert.equal(error.name, 'Forbidden')
            return true
          })
        }
        assert.equal((await users.find({ query: { email: address } })).total, 0)
        assert.equal((await login(adminEmail, PASSWORD)).status, 201)
      } finally {
        close()
      }
    })

    it('a key reaches no settings endpoint: 401 on every method of settings/admins and settings/scopes', async () => {
      const attempts = [
        a.api.get('/settings/admins'),
        a.api.post('/settings/admins', { email: email('via-key'), fullName: 'Via Key', password: 'via key password' }),
        a.api.patch(`/settings/admins/${a.adminUserId}`, { currentPassword: PASSWORD, password: 'via key password' }),
        a.api.delete(`/settings/admins/${a.adminUserId}`),
        a.api.get('/settings/scopes')
      ]
      for (const res of await Promise.all(attempts)) assert.equal(res.status, 401, res.text)
      // A "logout" with the key is no settings logout: the admin's open session goes on.
      const session = await settingsLogin(adminEmail)
      await a.api.delete('/authentication')
      assert.equal((await session.get('/settings/admins')).status, 200)
      assert.equal((await suite.server().knex('users').where({ companyId: a.id, roleType: 'admin' })).length, 1)
    })
  })

  describe('settings/admins', () => {
    it('lists the company’s administrators without any password hash; another company’s admins are not listed', async () => {
      const a = await suite.company({ adminPassword: PASSWORD })
      const b = await suite.company({ adminPassword: PASSWORD })
      const admin = await settingsLogin(await emailOf(a.adminUserId))
      const res = await admin.get('/settings/admins')
      assert.equal(res.status, 200)
      assert.equal(res.body.length, 1)
      assert.deepEqual(Object.keys(res.body[0]).sort(), [
        'createdAt',
        'deactivatedAt',
        'email',
        'fullName',
        'id',
        'isCurrentUser'
      ])
      assert.equal(res.body[0].id, a.adminUserId)
      assert.equal(res.body[0].isCurrentUser, true)
      assert.doesNotMatch(res.text, /password|\$2[aby]\$/i)
      assert.ok(!res.body.some((u: any) => u.id === b.adminUserId))
      assert.equal((await admin.delete(`/settings/admins/${b.adminUserId}`)).status, 404)
      assert.equal(
        (
          await admin.patch(`/settings/admins/${b.adminUserId}`, {
            currentPassword: PASSWORD,
            password: 'b taken over'
          })
        ).status,
        404
      )
      assert.equal((await login(await emailOf(b.adminUserId), PASSWORD)).status, 201, "B's admin is untouched")
      assert.equal((await admin.get(`/settings/admins?page=1`)).status, 400)
    })

    it('adds an administrator who can sign in; bad bodies name the field; a taken email is 409', async () => {
      const a = await suite.company({ adminPassword: PASSWORD })
      const admin = await settingsLogin(await emailOf(a.adminUserId))
      const address = email('second-admin')
      const created = await admin.post('/settings/admins', {
        email: address,
        fullName: 'Second Admin',
        password: 'second password'
      })
      assert.equal(created.status, 201, created.text)
      assert.equal(created.body.email, address)
      assert.equal(created.body.isCurrentUser, false)
      assert.doesNotMatch(created.text, /password|\$2[aby]\$/i)
      const second = await settingsLogin(address, 'second password')
      assert.equal((await second.get('/settings/admins')).body.length, 2)
      assert.equal((await a.api.get(`/v1/users/${created.body.id}`)).body.roleType, 'admin')

      const cases: [unknown, string][] = [
        [{ email: email(), fullName: 'Short', password: '1234567' }, 'password'],
        [{ email: 'not-an-email', fullName: 'X', password: 'long enough' }, 'email'],
        [{ email: email(), fullName: '', password: 'long enough' }, 'fullName'],
        [{ email: email(), password: 'long enough' }, 'fullName'],
        [{ email: email(), fullName: 'X', password: 'long enough', roleId: 1 }, 'roleId']
      ]
      for (const [body, field] of cases) {
        const res = await admin.post('/settings/admins', body)
        assert.equal(res.status, 400, JSON.stringify(body))
        assert.ok(res.body.data.validationErrors[field], `${JSON.stringify(body)}: ${res.text}`)
      }
      const taken = await admin.post('/settings/admins', {
        email: address.toUpperCase(),
        fullName: 'Dup',
        password: 'long enough'
      })
      assert.equal(taken.status, 409)
      assert.deepEqual(taken.body.data.validationErrors, { email: 'already exists' })
      assert.equal((await admin.get('/settings/admins')).body.length, 2)
    })

    it('deactivates an administrator: 204, their token answers 401 at once, their keys stop; never the last active one (409)', async () => {
      const a = await suite.company({ adminPassword: PASSWORD })
      const first = await settingsLogin(await emailOf(a.adminUserId))
      const address = email('leaving-admin')
      const created = await first.post('/settings/admins', {
        email: address,
        fullName: 'Leaving Admin',
        password: 'leaving password'
      })
      const leaving = await settingsLogin(address, 'leaving password')
      const leavingKey = await leaving.post('/settings/api-keys', { name: 'of the leaving admin' })
      assert.equal(leavingKey.status, 201)
      assert.equal((await a.api.withKey(leavingKey.body.key).get('/v1/customers')).status, 200)

      const res = await first.delete(`/settings/admins/${created.body.id}`)
      assert.equal(res.status, 204)
      assert.equal((await leaving.get('/settings/company')).status, 401)
      assert.equal((await login(address, 'leaving password')).status, 401)
      assert.equal((await a.api.withKey(leavingKey.body.key).get('/v1/customers')).status, 401)
      const listed = (await first.get('/settings/admins')).body.find((u: any) => u.id === created.body.id)
      assert.match(listed.deactivatedAt, /^\d{4}-\d\d-\d\dT/)
      assert.equal((await first.delete(`/settings/admins/${created.body.id}`)).status, 409)
      // Reactivated by hand (nothing offers it): the session that deactivation ended stays ended.
      await suite.server().knex('users').where({ id: created.body.id }).update({ deactivatedAt: null })
      assert.equal((await leaving.get('/settings/company')).status, 401)
      await suite
        .server()
        .knex('users')
        .where({ id: created.body.id })
        .update({ deactivatedAt: new Date().toISOString() })

      const last = await first.delete(`/settings/admins/${a.adminUserId}`)
      assert.equal(last.status, 409)
      assert.equal(last.body.data.reason, 'last-admin')
      assert.match(last.body.message, /last active administrator/)
      assert.equal((await first.get('/settings/company')).status, 200, 'the refused deactivation ended nothing')
      assert.equal((await first.delete(`/settings/admins/${a.adminUserId + 100000}`)).status, 404)
    })

    it('two admins deactivating each other at the same moment: one succeeds, one active admin remains', async () => {
      const a = await suite.company({ adminPassword: PASSWORD })
      const first = await settingsLogin(await emailOf(a.adminUserId))
      const address = email('rival-admin')
      const rival = await first.post('/settings/admins', {
        email: address,
        fullName: 'Rival Admin',
        password: 'rival password'
      })
      const second = await settingsLogin(address, 'rival password')
      const results = await Promise.all([
        first.delete(`/settings/admins/${rival.body.id}`),
        second.delete(`/settings/admins/${a.adminUserId}`)
      ])
      // The loser answers 409 (last admin) or 401 (its session ended first), depending on the order.
      assert.equal(results.filter((res) => res.status === 204).length, 1, results.map((res) => res.text).join(' | '))
      const active = await suite
        .server()
        .knex('users')
        .where({ companyId: a.id, roleType: 'admin' })
        .whereNull('deactivatedAt')
      assert.equal(active.length, 1)
    })

    it("deactivating an admin does not wait for a write that references another admin (PostgreSQL: the admins' lock leaves key-share locks alone)", async function () {
      const a = await suite.company({ adminPassword: PASSWORD })
      const first = await settingsLogin(await emailOf(a.adminUserId))
      const created = await first.post('/settings/admins', {
        email: email('leaving-admin'),
        fullName: 'Leaving Admin',
        password: 'leaving password'
      })
      assert.equal(created.status, 201, created.text)
      // What a write that references the first admin holds until its commit: an absence naming
      // them as its approver, an entry of theirs. The foreign key check takes this lock.
      const knex = suite.server().knex
      const writer = await knex.transaction()
      try {
        if (suite.db.name === 'postgres')
          await knex.raw('select id from users where id = ? for key share', [a.adminUserId]).transacting(writer)
        let answered = false
        const deactivation = first.delete(`/settings/admins/${created.body.id}`).then((res) => {
          answered = true
          return res
        })
        // SQLite runs one write transaction at a time: there, the test's own would hold it up.
        if (suite.db.name === 'postgres') {
          for (let i = 0; i < 100 && !answered; i++) await new Promise((resolve) => setTimeout(resolve, 20))
          assert.ok(answered, 'the deactivation waited for the key-share lock on another admin')
        }
        await writer.commit()
        assert.equal((await deactivation).status, 204)
      } finally {
        if (!writer.isCompleted()) await writer.rollback()
      }
    })

    it('an admin may deactivate themself while another active admin remains; the session ends', async () => {
      const a = await suite.company({ adminPassword: PASSWORD })
      const first = await settingsLogin(await emailOf(a.adminUserId))
      const address = email('staying-admin')
      await first.post('/settings/admins', { email: address, fullName: 'Staying Admin', password: 'staying password' })
      assert.equal((await first.delete(`/settings/admins/${a.adminUserId}`)).status, 204)
      assert.equal((await first.get('/settings/admins')).status, 401)
      const staying = await settingsLogin(address, 'staying password')
      const listed = (await staying.get('/settings/admins')).body
      assert.equal(listed.filter((u: any) => !u.deactivatedAt).length, 1)
    })

    it('changes one’s own password with the current one: old token 401, old password refused, new one works', async () => {
      const a = await suite.company({ adminPassword: PASSWORD })
      const address = await emailOf(a.adminUserId)
      const admin = await settingsLogin(address)
      const otherTab = await settingsLogin(address)
      const other = await admin.post('/settings/admins', {
        email: email('other-admin'),
        fullName: 'Other Admin',
        password: 'other password'
      })
      const notOwn = await admin.patch(`/settings/admins/${other.body.id}`, {
        currentPassword: PASSWORD,
        password: 'new password 1'
      })
      assert.equal(notOwn.status, 403)
      assert.equal((await login(other.body.email, 'other password')).status, 201)

      const wrong = await admin.patch(`/settings/admins/${a.adminUserId}`, {
        currentPassword: 'not it at all',
        password: 'new password 1'
      })
      assert.equal(wrong.status, 400)
      assert.equal(wrong.body.data.validationErrors.currentPassword, 'is not your current password')
      const short = await admin.patch(`/settings/admins/${a.adminUserId}`, {
        currentPassword: PASSWORD,
        password: 'short'
      })
      assert.equal(short.status, 400)
      assert.ok(short.body.data.validationErrors.password)
      assert.equal((await admin.patch(`/settings/admins/${a.adminUserId}`, { password: 'new password 1' })).status, 400)

      const changed = await admin.patch(`/settings/admins/${a.adminUserId}`, {
        currentPassword: PASSWORD,
        password: 'new password 1'
      })
      assert.equal(changed.status, 200, changed.text)
      assert.doesNotMatch(changed.text, /new password|\$2[aby]\$/)
      assert.equal((await admin.get('/settings/company')).status, 401)
      assert.equal((await otherTab.get('/settings/company')).status, 401)
      assert.equal((await login(address, PASSWORD)).status, 401)
      const fresh = await settingsLogin(address, 'new password 1')
      assert.equal((await fresh.get('/settings/company')).status, 200)
    })
  })

  describe('settings sessions and the login', () => {
    it('logout (DELETE /authentication) ends the session: the token answers 401 afterwards', async () => {
      const a = await suite.company({ adminPassword: PASSWORD })
      const address = await emailOf(a.adminUserId)
      const admin = await settingsLogin(address)
      assert.equal((await admin.get('/settings/admins')).status, 200)
      const out = await admin.delete('/authentication')
      assert.ok(out.status === 200 || out.status === 204, out.text)
      assert.equal((await admin.get('/settings/admins')).status, 401)
      assert.equal((await admin.delete('/authentication')).status, 401)
      const again = await settingsLogin(address)
      assert.equal((await again.get('/settings/admins')).status, 200)
      assert.equal((await a.api.get('/v1/customers')).status, 200, 'the admin’s API key is not a session')
    })

    it('a token without a session version (minted by hand with the app secret) is refused', async () => {
      const a = await suite.company({ adminPassword: PASSWORD })
      const service = suite.server().app.service('authentication') as any
      const forged = await service.createAccessToken({ companyId: a.id }, { subject: String(a.adminUserId) })
      assert.equal((await suite.server().http.withKey(forged).get('/settings/admins')).status, 401)
      const versioned = await service.createAccessToken(
        { companyId: a.id, sessionVersion: 0 },
        { subject: String(a.adminUserId) }
      )
      assert.equal((await suite.server().http.withKey(versioned).get('/settings/admins')).status, 200)
    })

    it('every failed login runs exactly one password comparison and answers the same, whoever the email belongs to', async () => {
      const a = await suite.company({ adminPassword: PASSWORD })
      const adminEmail = await emailOf(a.adminUserId)
      const worker = await a.api.post('/v1/users', {
        fullName: 'Pw Worker',
        email: email('pw-worker'),
        password: 'worker password'
      })
      const settings = await settingsLogin(adminEmail)
      const gone = await settings.post('/settings/admins', {
        email: email('gone'),
        fullName: 'Gone',
        password: 'gone password'
      })
      await settings.delete(`/settings/admins/${gone.body.id}`)
      const noPassword = await a.api.post('/v1/users', { fullName: 'No Password', email: email('nopw') })
      await suite
        .server()
        .knex('users')
        .where({ id: noPassword.body.id })
        .update({ roleId: (await rolesOf(a)).admin, roleType: 'admin' })

      const strategy = (suite.server().app.service('authentication') as any).getStrategy('local')
      const original = strategy.verifyPassword
      let compares = 0
      strategy.verifyPassword = function (...args: unknown[]) {
        compares++
        return original.apply(this, args)
      }
      try {
        const attempts: [string, string][] = [
          [email('nobody'), 'worker password'],
          [worker.body.email, 'worker password'],
          [gone.body.email, 'gone password'],
          [noPassword.body.email, 'whatever pw'],
          [adminEmail, 'wrong password']
        ]
        const bodies = []
        for (const [address, password] of attempts) {
          const before = compares
          const res = await login(address, password)
          assert.equal(res.status, 401, address)
          assert.equal(compares - before, 1, `one comparison for ${address}`)
          bodies.push(res.text)
        }
        assert.equal(new Set(bodies).size, 1, `identical answers: ${[...new Set(bodies)].join(' | ')}`)
        const ok = await login(adminEmail, PASSWORD)
        assert.equal(ok.status, 201)
      } finally {
        strategy.verifyPassword = original
      }
    })
  })
})
