import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../support/harness'

const FIELDS = [
  'additionalProperties',
  'color',
  'createdAt',
  'deactivatedAt',
  'id',
  'name',
  'order',
  'roleIds',
  'updatedAt'
]

forEachDatabase('upload-categories', (suite) => {
  let de: TestCompany
  let it_: TestCompany
  let fr: TestCompany
  let rolesDe: Record<string, number>

  before(async () => {
    de = await suite.company({ country: 'DE' })
    it_ = await suite.company({ country: 'IT' })
    fr = await suite.company({ country: 'FR' })
    rolesDe = Object.fromEntries((await de.api.get('/v1/roles')).body.items.map((r: any) => [r.type, r.id]))
  })

  it('lists the seeded photo and document categories, named in the company language', async () => {
    const res = await de.api.get('/v1/upload-categories')
    assert.equal(res.status, 200)
    assert.deepEqual(Object.keys(res.body.items[0]).sort(), FIELDS)
    assert.deepEqual(
      res.body.items.map((c: any) => [c.name, c.order, c.roleIds, c.additionalProperties]),
      [
        ['Fotos', 0, [], null],
        ['Dokumente', 1, [], null]
      ]
    )
    assert.deepEqual(
      (await it_.api.get('/v1/upload-categories')).body.items.map((c: any) => c.name),
      ['Foto', 'Documenti']
    )
    assert.deepEqual(
      (await fr.api.get('/v1/upload-categories')).body.items.map((c: any) => c.name),
      ['Photos', 'Documents']
    )
  })

  it('creates a category (201) with role ids and a free additionalProperties string; order after the last one', async () => {
    const extra = JSON.stringify({ visibleInApp: true })
    const res = await de.api.post('/v1/upload-categories', {
      name: 'Pläne',
      color: '#00FF00',
      roleIds: [rolesDe.worker, rolesDe.office],
      additionalProperties: extra
    })
    assert.equal(res.status, 201)
    assert.deepEqual(Object.keys(res.body).sort(), FIELDS)
    assert.deepEqual(res.body.roleIds, [rolesDe.worker, rolesDe.office])
    assert.equal(res.body.additionalProperties, extra)
    assert.equal(res.body.order, 2)
    assert.deepEqual((await de.api.get(`/v1/upload-categories/${res.body.id}`)).body, res.body)
    const plain = await de.api.post('/v1/upload-categories', { name: 'Lieferscheine' })
    assert.deepEqual([plain.body.roleIds, plain.body.order, plain.body.additionalProperties], [[], 3, null])
  })

  it('validates bodies: name required, unknown or duplicate role ids, long additionalProperties, deactivatedAt only by PATCH', async () => {
    const bad = await de.api.post('/v1/upload-categories', {
      roleIds: [rolesDe.admin, rolesDe.admin],
      additionalProperties: 'x'.repeat(10001),
      deactivatedAt: '2026-01-01T00:00:00Z'
    })
    assert.equal(bad.status, 400)
    assert.deepEqual(bad.body.data.validationErrors, {
      name: 'is required',
      roleIds: 'must not contain duplicates',
      additionalProperties: 'must be at most 10000 characters long',
      deactivatedAt: 'can only be changed by PATCH'
    })
    const unknown = await de.api.post('/v1/upload-categories', { name: 'X', roleIds: [99999999] })
    assert.equal(unknown.status, 400)
    assert.match(unknown.body.data.validationErrors['roleIds.0'], /references no record/)
    assert.equal(
      (await de.api.post('/v1/upload-categories', { name: 'Long', additionalProperties: 'x'.repeat(10000) })).status,
      201
    )
  })

  it('PATCH replaces and clears roleIds and changes the other fields', async () => {
    const created = await de.api.post('/v1/upload-categories', { name: 'Rechte', roleIds: [rolesDe.admin] })
    const res = await de.api.patch(`/v1/upload-categories/${created.body.id}`, {
      roleIds: [rolesDe.office],
      name: 'Rechte 2',
      order: 50,
      color: '#010203'
    })
    assert.equal(res.status, 200)
    assert.deepEqual(
      [res.body.roleIds, res.body.name, res.body.order, res.body.color],
      [[rolesDe.office], 'Rechte 2', 50, '#010203']
    )
    assert.deepEqual(
      (await de.api.patch(`/v1/upload-categories/${created.body.id}`, { name: 'Rechte 3' })).body.roleIds,
      [rolesDe.office]
    )
    assert.deepEqual(
      (await de.api.patch(`/v1/upload-categories/${created.body.id}`, { roleIds: null })).body.roleIds,
      []
    )
    assert.equal((await de.api.patch(`/v1/upload-categories/${created.body.id}`, { order: null })).status, 400)
  })

  it('deactivates by PATCH; the category stays readable and filterable', async () => {
    const created = await fr.api.post('/v1/upload-categories', { name: 'Old' })
    const res = await fr.api.patch(`/v1/upload-categories/${created.body.id}`, {
      deactivatedAt: '2026-03-01T00:00:00Z'
    })
    assert.equal(res.status, 200)
    assert.equal(
      (await fr.api.get(`/v1/upload-categories/${created.body.id}`)).body.deactivatedAt,
      '2026-03-01T00:00:00.000Z'
    )
    assert.deepEqual(
      (await fr.api.get('/v1/upload-categories', { 'deactivatedAt[$ne]': 'null' })).body.items.map((c: any) => c.id),
      [created.body.id]
    )
    assert.equal((await fr.api.get('/v1/upload-categories', { deactivatedAt: 'null' })).body.total, 2)
    assert.equal((await fr.api.get('/v1/upload-categories', { 'id[$gt]': created.body.id })).body.total, 0)
    assert.equal((await fr.api.get('/v1/upload-categories', { name: 'Old' })).status, 400)
  })

  it('answers 405 for DELETE; the category stays', async () => {
    const [category] = (await de.api.get('/v1/upload-categories')).body.items
    assert.equal((await de.api.delete(`/v1/upload-categories/${category.id}`)).status, 405)
    assert.equal((await de.api.get(`/v1/upload-categories/${category.id}`)).status, 200)
  })

  it('is isolated: company B can neither see, change nor reference company A categories and roles', async () => {
    const created = await de.api.post('/v1/upload-categories', { name: 'Only DE' })
    const id = created.body.id
    assert.equal((await fr.api.get(`/v1/upload-categories/${id}`)).status, 404)
    assert.equal((await fr.api.patch(`/v1/upload-categories/${id}`, { name: 'Hacked' })).status, 404)
    assert.equal((await fr.api.get('/v1/upload-categories', { id })).body.total, 0)
    const foreign = await fr.api.post('/v1/upload-categories', { name: 'FR', roleIds: [rolesDe.worker] })
    assert.equal(foreign.status, 400)
    assert.match(foreign.body.data.validationErrors['roleIds.0'], /references no record/)
    assert.equal((await de.api.get(`/v1/upload-categories/${id}`)).body.name, 'Only DE')
  })
})
