import assert from 'node:assert/strict'
import { forEachDatabase, languageCompanies } from '../support/harness'

forEachDatabase('roles', (suite) => {
  const lang = languageCompanies(suite)

  it('lists the seeded admin, office and worker roles in order, named in the company language', async () => {
    const res = await lang.de.api.get('/v1/roles')
    assert.equal(res.status, 200)
    assert.equal(res.body.total, 3)
    assert.deepEqual(Object.keys(res.body.items[0]).sort(), ['createdAt', 'id', 'name', 'order', 'type', 'updatedAt'])
    assert.deepEqual(
      res.body.items.map((r: any) => [r.type, r.name, r.order]),
      [
        ['admin', 'Administrator', 0],
        ['office', 'Büro', 1],
        ['worker', 'Mitarbeiter', 2]
      ]
    )
    assert.deepEqual(
      (await lang.it.api.get('/v1/roles')).body.items.map((r: any) => r.name),
      ['Amministratore', 'Ufficio', 'Operaio']
    )
    assert.deepEqual(
      (await lang.fr.api.get('/v1/roles')).body.items.map((r: any) => r.name),
      ['Administrator', 'Office', 'Worker']
    )
  })

  it('gets one role and filters by type and id', async () => {
    const all = (await lang.de.api.get('/v1/roles')).body.items
    const got = await lang.de.api.get(`/v1/roles/${all[1].id}`)
    assert.equal(got.status, 200)
    assert.deepEqual(got.body, all[1])
    assert.deepEqual((await lang.de.api.get('/v1/roles', { type: 'worker' })).body.items, [all[2]])
    assert.deepEqual(
      (await lang.de.api.get('/v1/roles', { 'type[$in]': ['admin', 'office'], '$sort[type]': -1 })).body.items.map(
        (r: any) => r.type
      ),
      ['office', 'admin']
    )
    assert.equal((await lang.de.api.get('/v1/roles', { 'id[$gt]': all[0].id })).body.total, 2)
    const bad = await lang.de.api.get('/v1/roles', { type: 'owner' })
    assert.equal(bad.status, 400)
    assert.ok(bad.body.data.validationErrors.type)
    assert.equal((await lang.de.api.get('/v1/roles', { name: 'Büro' })).status, 400)
  })

  it('is read-only: POST, PATCH, DELETE and PUT answer 405 and change nothing', async () => {
    const role = (await lang.de.api.get('/v1/roles')).body.items[0]
    for (const res of [
      await lang.de.api.post('/v1/roles', { name: 'Boss', type: 'admin' }),
      await lang.de.api.patch(`/v1/roles/${role.id}`, { name: 'Boss' }),
      await lang.de.api.delete(`/v1/roles/${role.id}`),
      await lang.de.api.put(`/v1/roles/${role.id}`, { name: 'Boss' })
    ]) {
      assert.equal(res.status, 405)
      assert.equal(res.body.name, 'MethodNotAllowed')
    }
    assert.deepEqual((await lang.de.api.get(`/v1/roles/${role.id}`)).body, role)
    assert.equal((await lang.de.api.get('/v1/roles')).body.total, 3)
  })

  it('is isolated: a company sees only its own roles', async () => {
    const roleOfDe = (await lang.de.api.get('/v1/roles')).body.items[0].id
    assert.equal((await lang.fr.api.get(`/v1/roles/${roleOfDe}`)).status, 404)
    assert.equal((await lang.fr.api.get('/v1/roles', { id: roleOfDe })).body.total, 0)
    const frIds = (await lang.fr.api.get('/v1/roles')).body.items.map((r: any) => r.id)
    assert.ok(!frIds.includes(roleOfDe))
  })
})
