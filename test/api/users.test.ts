import assert from 'node:assert/strict'
import bcrypt from 'bcryptjs'
import { forEachDatabase, TestCompany } from '../support/harness'

const USER_FIELDS = [
  'color',
  'createdAt',
  'deactivatedAt',
  'email',
  'employedFrom',
  'externalId',
  'fullName',
  'id',
  'openingBalance',
  'roleId',
  'roleType',
  'shortName',
  'staffNumber',
  'updatedAt'
]

forEachDatabase('users', (suite) => {
  let a: TestCompany
  let b: TestCompany
  let rolesA: Record<string, number>
  let rolesB: Record<string, number>
  let n = 0
  /** A fresh address per call: emails are unique across all companies of the run. */
  const email = (name = 'user') => `${name}-${process.pid}-${Date.now()}-${++n}@crew.test`

  const rolesOf = async (company: TestCompany) =>
    Object.fromEntries((await company.api.get('/v1/roles')).body.items.map((r: any) => [r.type, r.id]))

  before(async () => {
    a = await suite.company()
    b = await suite.company()
    rolesA = await rolesOf(a)
    rolesB = await rolesOf(b)
  })

  it('creates a user with fullName and email; roleId defaults to the worker role (201, full shape)', async () => {
    const address = email('anna')
    const res = await a.api.post('/v1/users', { fullName: 'Anna Schmidt', email: address })
    assert.equal(res.status, 201)
    assert.deepEqual(Object.keys(res.body).sort(), USER_FIELDS)
    assert.equal(res.body.roleId, rolesA.worker)
    assert.equal(res.body.roleType, 'worker')
    assert.equal(res.body.email, address)
    assert.equal(res.body.deactivatedAt, null)
    assert.deepEqual((await a.api.get(`/v1/users/${res.body.id}`)).body, res.body)
  })

  it('writes every field, and PATCH changes the role and its roleType', async () => {
    const res = await a.api.post('/v1/users', {
      fullName: 'Luca Bianchi',
      email: email('luca'),
      roleId: rolesA.office,
      shortName: 'LB',
      staffNumber: '0042',
      color: '#12abEF',
      externalId: 'hr-42'
    })
    assert.equal(res.status, 201)
    assert.equal(res.body.roleType, 'office')
    assert.equal(res.body.color, '#12abEF')
    assert.equal(res.body.staffNumber, '0042')
    const patched = await a.api.patch(`/v1/users/${res.body.id}`, { roleId: rolesA.worker, shortName: null })
    assert.equal(patched.status, 200)
    assert.equal(patched.body.roleId, rolesA.worker)
    assert.equal(patched.body.roleType, 'worker')
    assert.equal(patched.body.shortName, null)
    assert.equal(patched.body.externalId, 'hr-42')
  })

  it('requires fullName and a valid email; rejects bad colours, roleType in a body and null roleId', async () => {
    const missing = await a.api.post('/v1/users', {})
    assert.equal(missing.status, 400)
    assert.deepEqual(missing.body.data.validationErrors, { fullName: 'is required', email: 'is required' })
    const bad = await a.api.post('/v1/users', {
      fullName: 'X',
      email: 'not-an-email',
      color: 'red',
      roleType: 'admin',
      roleId: null
    })
    assert.equal(bad.status, 400)
    assert.deepEqual(Object.keys(bad.body.data.validationErrors).sort(), ['color', 'email', 'roleId', 'roleType'])
    assert.equal(bad.body.data.validationErrors.email, 'must be an email address')
    assert.equal(bad.body.data.validationErrors.color, 'must be a hex colour in the form #RRGGBB')
    assert.equal(bad.body.data.validationErrors.roleType, 'is read-only')
  })

  it('409 for an email that exists in another company, in any letter case', async () => {
    const address = email('shared')
    assert.equal((await a.api.post('/v1/users', { fullName: 'First', email: address })).status, 201)
    const other = await b.api.post('/v1/users', { fullName: 'Second', email: address.toUpperCase() })
    assert.equal(other.status, 409)
    assert.equal(other.body.name, 'Conflict')
    assert.deepEqual(other.body.data.validationErrors, { email: 'already exists' })
    assert.doesNotMatch(other.text, /email_normalized|UNIQUE|constraint/i)
    assert.equal((await b.api.get('/v1/users', { 'email[$like]': address })).body.total, 0)
  })

  it('409 for an email taken in the same company, on create and on PATCH (case-insensitive)', async () => {
    const address = email('Mixed.Case')
    await a.api.post('/v1/users', { fullName: 'Owner', email: address })
    assert.equal((await a.api.post('/v1/users', { fullName: 'Copy', email: address.toLowerCase() })).status, 409)
    const other = await a.api.post('/v1/users', { fullName: 'Other', email: email('other') })
    const res = await a.api.patch(`/v1/users/${other.body.id}`, { email: address.toUpperCase() })
    assert.equal(res.status, 409)
    assert.deepEqual(res.body.data.validationErrors, { email: 'already exists' })
    // Changing only the case of one's own address is not a conflict.
    const own = await a.api.patch(`/v1/users/${other.body.id}`, { email: other.body.email.toUpperCase() })
    assert.equal(own.status, 200)
    assert.equal(own.body.email, other.body.email.toUpperCase())
  })

  it('stores the password as a bcrypt hash and never returns it', async () => {
    const password = 'correct horse battery'
    const created = await a.api.post('/v1/users', { fullName: 'Secret', email: email('secret'), password })
    assert.equal(created.status, 201)
    const id = created.body.id
    const row = await suite.server().knex('users').where({ id }).first()
    assert.match(row.passwordHash, /^\$2[aby]\$/)
    assert.ok(await bcrypt.compare(password, row.passwordHash))
    const patched = await a.api.patch(`/v1/users/${id}`, { password: 'another secret 2' })
    assert.equal(patched.status, 200)
    const rowAfter = await suite.server().knex('users').where({ id }).first()
    assert.ok(await bcrypt.compare('another secret 2', rowAfter.passwordHash))
    const responses = [created, patched, await a.api.get(`/v1/users/${id}`), await a.api.get('/v1/users', { id })]
    for (const res of responses) {
      assert.doesNotMatch(res.text, /password|\$2[aby]\$|correct horse|another secret/i)
    }
    const cleared = await a.api.patch(`/v1/users/${id}`, { password: null })
    assert.equal(cleared.status, 200)
    assert.equal((await suite.server().knex('users').where({ id }).first()).passwordHash, null)
  })

  it('rejects passwords shorter than 8 characters or longer than 72 bytes', async () => {
    const short = await a.api.post('/v1/users', { fullName: 'Short', email: email(), password: '1234567' })
    assert.equal(short.status, 400)
    assert.equal(short.body.data.validationErrors.password, 'must be at least 8 characters long')
    const long = await a.api.post('/v1/users', { fullName: 'Long', email: email(), password: 'ä'.repeat(40) })
    assert.equal(long.status, 400)
    assert.match(long.body.data.validationErrors.password, /72 bytes/)
    assert.doesNotMatch(long.text, /ääää/)
  })

  it('filters by roleType, roleId and the other listed fields', async () => {
    const tag = `T${Date.now()}`
    const office = await a.api.post('/v1/users', {
      fullName: `${tag} Office`,
      email: email(),
      roleId: rolesA.office,
      shortName: `${tag}-o`,
      staffNumber: `${tag}-1`,
      externalId: `${tag}-x`
    })
    const worker = await a.api.post('/v1/users', { fullName: `${tag} Worker`, email: email(), staffNumber: `${tag}-2` })
    const byType = await a.api.get('/v1/users', { roleType: 'office', 'fullName[$like]': `${tag}%` })
    assert.equal(byType.status, 200)
    assert.deepEqual(
      byType.body.items.map((u: any) => u.id),
      [office.body.id]
    )
    const admins = await a.api.get('/v1/users', { roleType: 'admin' })
    assert.ok(admins.body.items.some((u: any) => u.id === a.adminUserId))
    assert.ok(admins.body.items.every((u: any) => u.roleType === 'admin'))
    const notAdmin = await a.api.get('/v1/users', {
      'roleType[$ne]': 'admin',
      'fullName[$like]': `${tag}%`,
      '$sort[roleType]': 1
    })
    assert.deepEqual(
      notAdmin.body.items.map((u: any) => u.roleType),
      ['office', 'worker']
    )
    assert.equal(
      (await a.api.get('/v1/users', { roleId: rolesA.worker, 'fullName[$like]': `${tag}%` })).body.items[0].id,
      worker.body.id
    )
    assert.equal((await a.api.get('/v1/users', { shortName: `${tag}-o` })).body.total, 1)
    assert.equal((await a.api.get('/v1/users', { 'staffNumber[$in]': [`${tag}-1`, `${tag}-2`] })).body.total, 2)
    assert.equal((await a.api.get('/v1/users', { externalId: `${tag}-x` })).body.total, 1)
    assert.equal((await a.api.get('/v1/users', { email: worker.body.email })).body.items[0].id, worker.body.id)
    const wrongType = await a.api.get('/v1/users', { roleType: 'boss' })
    assert.equal(wrongType.status, 400)
    assert.ok(wrongType.body.data.validationErrors.roleType)
    assert.equal((await a.api.get('/v1/users', { 'createdAt[$gt]': '2026-02-30T00:00:00Z' })).status, 400)
  })

  it('deactivates and reactivates a user; deactivatedAt filters; the key user (an admin) cannot be deactivated with a key', async () => {
    const user = await a.api.post('/v1/users', { fullName: 'Leaving', email: email('leaving') })
    const at = '2026-11-22T08:00:00+01:00'
    const res = await a.api.patch(`/v1/users/${user.body.id}`, { deactivatedAt: at })
    assert.equal(res.status, 200)
    assert.equal(res.body.deactivatedAt, '2026-11-22T07:00:00.000Z')
    assert.equal((await a.api.get('/v1/users', { id: user.body.id, deactivatedAt: 'null' })).body.total, 0)
    assert.equal((await a.api.get('/v1/users', { id: user.body.id, 'deactivatedAt[$ne]': 'null' })).body.total, 1)
    assert.equal((await a.api.patch(`/v1/users/${user.body.id}`, { deactivatedAt: null })).body.deactivatedAt, null)
    const self = await a.api.patch(`/v1/users/${a.adminUserId}`, { deactivatedAt: '2026-11-22T08:00:00Z' })
    assert.equal(self.status, 403)
    assert.equal(self.body.name, 'Forbidden')
    assert.equal((await a.api.get(`/v1/users/${a.adminUserId}`)).body.deactivatedAt, null)
  })

  it('answers 405 for DELETE and PUT; the user stays', async () => {
    const user = await a.api.post('/v1/users', { fullName: 'Stays', email: email() })
    const res = await a.api.delete(`/v1/users/${user.body.id}`)
    assert.equal(res.status, 405)
    assert.equal(res.body.name, 'MethodNotAllowed')
    assert.equal((await a.api.put(`/v1/users/${user.body.id}`, { fullName: 'x' })).status, 405)
    assert.equal((await a.api.get(`/v1/users/${user.body.id}`)).status, 200)
  })

  it('is isolated: company B can neither see, change nor reference company A users and roles', async () => {
    const user = await a.api.post('/v1/users', { fullName: 'Only A', email: email('only-a') })
    const id = user.body.id
    assert.equal((await b.api.get(`/v1/users/${id}`)).status, 404)
    assert.equal((await b.api.patch(`/v1/users/${id}`, { fullName: 'Hacked' })).status, 404)
    assert.equal((await b.api.get('/v1/users', { id })).body.total, 0)
    assert.equal((await b.api.get('/v1/users', { 'fullName[$like]': 'Only A' })).body.total, 0)
    const foreignRole = await b.api.post('/v1/users', { fullName: 'B user', email: email(), roleId: rolesA.office })
    assert.equal(foreignRole.status, 400)
    assert.match(foreignRole.body.data.validationErrors.roleId, /references no record/)
    const mine = await b.api.post('/v1/users', { fullName: 'B user', email: email() })
    assert.equal(mine.body.roleId, rolesB.worker)
    // A role of another company is a 400 (CONTRACT §2) even where the role would also be refused as admin (403).
    assert.equal((await b.api.patch(`/v1/users/${mine.body.id}`, { roleId: rolesA.admin })).status, 400)
    assert.equal((await b.api.patch(`/v1/users/${mine.body.id}`, { roleId: rolesA.office })).status, 400)
    assert.equal((await a.api.get(`/v1/users/${id}`)).body.fullName, 'Only A')
  })
})
