import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../support/harness'
import { newUser } from '../support/users'

forEachDatabase('gangs', (suite) => {
  let a: TestCompany
  let b: TestCompany
  const memberships = (gangId: number) => suite.server().knex('gangUsers').where({ gangId })

  before(async () => {
    a = await suite.company()
    b = await suite.company()
  })

  it('creates a gang with members (201, full shape, userIds ascending) and reads it back', async () => {
    const [u1, u2] = [await newUser(a), await newUser(a)]
    const res = await a.api.post('/v1/gangs', { name: 'Kolonne Nord', userIds: [u2, u1], externalId: 'g-1' })
    assert.equal(res.status, 201)
    assert.deepEqual(Object.keys(res.body).sort(), [
      'createdAt',
      'deactivatedAt',
      'externalId',
      'id',
      'name',
      'order',
      'updatedAt',
      'userIds'
    ])
    assert.deepEqual(res.body.userIds, [u1, u2])
    assert.deepEqual((await a.api.get(`/v1/gangs/${res.body.id}`)).body, res.body)
    const listed = await a.api.get('/v1/gangs', { id: res.body.id })
    assert.deepEqual(listed.body.items, [res.body])
  })

  it('defaults order to last + 1 in the company and keeps an explicit order', async () => {
    const fresh = await suite.company()
    const first = await fresh.api.post('/v1/gangs', { name: 'First' })
    assert.equal(first.body.order, 0)
    assert.deepEqual(first.body.userIds, [])
    assert.equal((await fresh.api.post('/v1/gangs', { name: 'Explicit', order: 10 })).body.order, 10)
    assert.equal((await fresh.api.post('/v1/gangs', { name: 'Next' })).body.order, 11)
    const cleared = await fresh.api.patch(`/v1/gangs/${first.body.id}`, { order: null })
    assert.equal(cleared.status, 400)
    assert.ok(cleared.body.data.validationErrors.order)
    assert.equal((await fresh.api.post('/v1/gangs', { name: 'Big', order: 2147483648 })).status, 400)
  })

  it('replaces members on PATCH, keeps them when userIds is absent, clears them with [] or null', async () => {
    const [u1, u2, u3] = [await newUser(a), await newUser(a), await newUser(a)]
    const gang = await a.api.post('/v1/gangs', { name: 'Changing', userIds: [u1, u2] })
    const renamed = await a.api.patch(`/v1/gangs/${gang.body.id}`, { name: 'Renamed' })
    assert.deepEqual(renamed.body.userIds, [u1, u2])
    const replaced = await a.api.patch(`/v1/gangs/${gang.body.id}`, { userIds: [u3, u1] })
    assert.equal(replaced.status, 200)
    assert.deepEqual(replaced.body.userIds, [u1, u3])
    assert.equal((await memberships(gang.body.id)).length, 2)
    assert.deepEqual((await a.api.patch(`/v1/gangs/${gang.body.id}`, { userIds: [] })).body.userIds, [])
    await a.api.patch(`/v1/gangs/${gang.body.id}`, { userIds: [u2] })
    assert.deepEqual((await a.api.patch(`/v1/gangs/${gang.body.id}`, { userIds: null })).body.userIds, [])
    assert.equal((await memberships(gang.body.id)).length, 0)
  })

  it('rejects unknown, duplicate and newly added deactivated members; a member deactivated later may stay', async () => {
    const [active, leaving, inactive] = [await newUser(a), await newUser(a), await newUser(a)]
    await a.api.patch(`/v1/users/${inactive}`, { deactivatedAt: '2026-01-01T00:00:00Z' })
    const unknown = await a.api.post('/v1/gangs', { name: 'Bad', userIds: [active, 99999999] })
    assert.equal(unknown.status, 400)
    assert.deepEqual(unknown.body.data.validationErrors, {
      'userIds.1': 'references no record of this company (id 99999999)'
    })
    const duplicate = await a.api.post('/v1/gangs', { name: 'Bad', userIds: [active, active] })
    assert.equal(duplicate.status, 400)
    assert.equal(duplicate.body.data.validationErrors.userIds, 'must not contain duplicates')
    const deactivated = await a.api.post('/v1/gangs', { name: 'Bad', userIds: [active, inactive] })
    assert.equal(deactivated.status, 400)
    assert.deepEqual(Object.keys(deactivated.body.data.validationErrors), ['userIds.1'])
    assert.match(deactivated.body.data.validationErrors['userIds.1'], /deactivated/)
    assert.equal((await a.api.get('/v1/gangs', { name: 'Bad' })).body.total, 0)

    const gang = await a.api.post('/v1/gangs', { name: 'Kept', userIds: [active, leaving] })
    await a.api.patch(`/v1/users/${leaving}`, { deactivatedAt: '2026-01-01T00:00:00Z' })
    const kept = await a.api.patch(`/v1/gangs/${gang.body.id}`, { userIds: [leaving, active], name: 'Kept 2' })
    assert.equal(kept.status, 200)
    assert.deepEqual(kept.body.userIds, [active, leaving])
    const added = await a.api.patch(`/v1/gangs/${gang.body.id}`, { userIds: [active, leaving, inactive] })
    assert.equal(added.status, 400)
    assert.deepEqual(added.body.data.validationErrors, {
      'userIds.2': `references a deactivated record (id ${inactive})`
    })
    assert.deepEqual((await a.api.get(`/v1/gangs/${gang.body.id}`)).body.userIds, [active, leaving])
  })

  it('requires a non-empty name; deactivatedAt is writable', async () => {
    assert.deepEqual((await a.api.post('/v1/gangs', { order: 1 })).body.data.validationErrors, { name: 'is required' })
    assert.equal((await a.api.post('/v1/gangs', { name: '' })).status, 400)
    const gang = await a.api.post('/v1/gangs', { name: 'Retired', deactivatedAt: '2026-03-01T12:00:00Z' })
    assert.equal(gang.status, 201)
    assert.equal(gang.body.deactivatedAt, '2026-03-01T12:00:00.000Z')
    assert.equal((await a.api.patch(`/v1/gangs/${gang.body.id}`, { deactivatedAt: null })).body.deactivatedAt, null)
  })

  it('deletes with 204 and removes the memberships, not the users', async () => {
    const member = await newUser(a)
    const gang = await a.api.post('/v1/gangs', { name: 'Short-lived', userIds: [member] })
    assert.equal((await memberships(gang.body.id)).length, 1)
    const res = await a.api.delete(`/v1/gangs/${gang.body.id}`)
    assert.equal(res.status, 204)
    assert.equal(res.text, '')
    assert.equal((await a.api.get(`/v1/gangs/${gang.body.id}`)).status, 404)
    assert.equal((await memberships(gang.body.id)).length, 0)
    assert.equal((await a.api.get(`/v1/users/${member}`)).status, 200)
  })

  it('filters by id, name, externalId and timestamps, and sorts', async () => {
    const tag = `G${Date.now()}`
    const ids: number[] = []
    for (const name of ['alpha', 'beta', 'gamma'])
      ids.push((await a.api.post('/v1/gangs', { name: `${tag} ${name}`, externalId: `${tag}-${name}` })).body.id)
    const like = await a.api.get('/v1/gangs', { 'name[$like]': `${tag} B%` })
    assert.deepEqual(
      like.body.items.map((g: any) => g.id),
      [ids[1]]
    )
    const sorted = await a.api.get('/v1/gangs', { 'name[$like]': `${tag}%`, '$sort[name]': -1 })
    assert.deepEqual(
      sorted.body.items.map((g: any) => g.id),
      [ids[2], ids[1], ids[0]]
    )
    assert.equal((await a.api.get('/v1/gangs', { externalId: `${tag}-gamma` })).body.items[0].id, ids[2])
    assert.equal((await a.api.get('/v1/gangs', { 'id[$nin]': ids, 'name[$like]': `${tag}%` })).body.total, 0)
    assert.equal(
      (
        await a.api.get('/v1/gangs', {
          'name[$like]': `${tag}%`,
          'updatedAt[$lte]': new Date(Date.now() + 60000).toISOString()
        })
      ).body.total,
      3
    )
    assert.equal((await a.api.get('/v1/gangs', { order: 1 })).status, 400)
  })

  it('is isolated: company B can neither see, change nor reference company A gangs and users', async () => {
    const userA = await newUser(a)
    const gang = await a.api.post('/v1/gangs', { name: 'Only A', userIds: [userA] })
    const id = gang.body.id
    assert.equal((await b.api.get(`/v1/gangs/${id}`)).status, 404)
    assert.equal((await b.api.patch(`/v1/gangs/${id}`, { name: 'Hacked' })).status, 404)
    assert.equal((await b.api.delete(`/v1/gangs/${id}`)).status, 404)
    assert.equal((await b.api.get('/v1/gangs', { id })).body.total, 0)
    const foreign = await b.api.post('/v1/gangs', { name: 'B gang', userIds: [userA] })
    assert.equal(foreign.status, 400)
    assert.match(foreign.body.data.validationErrors['userIds.0'], /references no record/)
    const own = await b.api.post('/v1/gangs', { name: 'B gang', userIds: [await newUser(b)] })
    assert.equal((await b.api.patch(`/v1/gangs/${own.body.id}`, { userIds: [userA] })).status, 400)
    assert.deepEqual((await a.api.get(`/v1/gangs/${id}`)).body.userIds, [userA])
    assert.equal((await a.api.get(`/v1/gangs/${id}`)).body.name, 'Only A')
  })
})
