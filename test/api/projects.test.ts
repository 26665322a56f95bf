import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../support/harness'

forEachDatabase('projects', (suite) => {
  let a: TestCompany
  let b: TestCompany

  before(async () => {
    a = await suite.company()
    b = await suite.company()
  })

  it('creates a project (201, full shape) and reads it back', async () => {
    const res = await a.api.post('/v1/projects', { number: 'P-2026-001', externalId: 'erp-1' })
    assert.equal(res.status, 201)
    assert.deepEqual(Object.keys(res.body).sort(), ['createdAt', 'externalId', 'id', 'number', 'updatedAt'])
    assert.equal(res.body.number, 'P-2026-001')
    assert.equal(res.body.externalId, 'erp-1')
    assert.match(res.body.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    const got = await a.api.get(`/v1/projects/${res.body.id}`)
    assert.equal(got.status, 200)
    assert.deepEqual(got.body, res.body)
  })

  it('requires a non-empty number on create and never clears it', async () => {
    const missing = await a.api.post('/v1/projects', { externalId: 'x' })
    assert.equal(missing.status, 400)
    assert.equal(missing.body.data.validationErrors.number, 'is required')
    const empty = await a.api.post('/v1/projects', { number: '' })
    assert.equal(empty.status, 400)
    assert.equal(empty.body.data.validationErrors.number, 'must not be empty')
    const created = await a.api.post('/v1/projects', { number: 'P-keep' })
    const cleared = await a.api.patch(`/v1/projects/${created.body.id}`, { number: null })
    assert.equal(cleared.status, 400)
    assert.ok(cleared.body.data.validationErrors.number)
    assert.equal((await a.api.get(`/v1/projects/${created.body.id}`)).body.number, 'P-keep')
  })

  it('409 naming number for a duplicate in the company, on create and on PATCH; other companies may reuse it', async () => {
    await a.api.post('/v1/projects', { number: 'DUP-1' })
    const dup = await a.api.post('/v1/projects', { number: 'DUP-1' })
    assert.equal(dup.status, 409)
    assert.equal(dup.body.name, 'Conflict')
    assert.deepEqual(dup.body.data.validationErrors, { number: 'already exists' })
    assert.doesNotMatch(dup.text, /UNIQUE|constraint|insert into/i)
    const other = await a.api.post('/v1/projects', { number: 'DUP-2' })
    const renamed = await a.api.patch(`/v1/projects/${other.body.id}`, { number: 'DUP-1' })
    assert.equal(renamed.status, 409)
    assert.equal((await a.api.get(`/v1/projects/${other.body.id}`)).body.number, 'DUP-2')
    assert.equal((await b.api.post('/v1/projects', { number: 'DUP-1' })).status, 201)
  })

  it('patches externalId, clears it with null and refuses unknown or read-only fields', async () => {
    const created = await a.api.post('/v1/projects', { number: 'P-patch', externalId: 'old' })
    const res = await a.api.patch(`/v1/projects/${created.body.id}`, { externalId: null })
    assert.equal(res.status, 200)
    assert.equal(res.body.externalId, null)
    assert.equal(res.body.number, 'P-patch')
    const bad = await a.api.patch(`/v1/projects/${created.body.id}`, { id: 5, name: 'x' })
    assert.equal(bad.status, 400)
    assert.deepEqual(bad.body.data.validationErrors, { id: 'is read-only', name: 'is not a field of Project' })
  })

  it('deletes with 204 and no body; the project is gone', async () => {
    const created = await a.api.post('/v1/projects', { number: 'P-delete' })
    const res = await a.api.delete(`/v1/projects/${created.body.id}`)
    assert.equal(res.status, 204)
    assert.equal(res.text, '')
    assert.equal((await a.api.get(`/v1/projects/${created.body.id}`)).status, 404)
    assert.equal((await a.api.delete(`/v1/projects/${created.body.id}`)).status, 404)
  })

  it('filters by id, number, externalId and timestamps, and sorts', async () => {
    const tag = `F${Date.now()}`
    const ids: number[] = []
    for (const i of [0, 1, 2])
      ids.push((await a.api.post('/v1/projects', { number: `${tag}-${i}`, externalId: `${tag}-ext-${i}` })).body.id)
    const like = await a.api.get('/v1/projects', { 'number[$like]': `${tag.toLowerCase()}-%`, '$sort[number]': -1 })
    assert.equal(like.status, 200)
    assert.deepEqual(
      like.body.items.map((p: any) => p.number),
      [`${tag}-2`, `${tag}-1`, `${tag}-0`]
    )
    assert.equal((await a.api.get('/v1/projects', { externalId: `${tag}-ext-1` })).body.items[0].id, ids[1])
    assert.equal((await a.api.get('/v1/projects', { 'id[$in]': [ids[0], ids[2]] })).body.total, 2)
    const created = (await a.api.get(`/v1/projects/${ids[0]}`)).body.createdAt
    assert.equal(
      (await a.api.get('/v1/projects', { 'number[$like]': `${tag}%`, 'createdAt[$gte]': created })).body.total,
      3
    )
    assert.equal((await a.api.get('/v1/projects', { 'updatedAt[$lt]': 'not a date' })).status, 400)
    const unknown = await a.api.get('/v1/projects', { name: 'x' })
    assert.equal(unknown.status, 400)
    assert.ok(unknown.body.data.validationErrors.name)
  })

  it('answers 405 for PUT', async () => {
    const created = await a.api.post('/v1/projects', { number: 'P-put' })
    assert.equal((await a.api.put(`/v1/projects/${created.body.id}`, { number: 'x' })).status, 405)
  })

  it('is isolated: company B can neither see nor change company A projects', async () => {
    const created = await a.api.post('/v1/projects', { number: 'ONLY-A' })
    const id = created.body.id
    assert.equal((await b.api.get(`/v1/projects/${id}`)).status, 404)
    assert.equal((await b.api.patch(`/v1/projects/${id}`, { number: 'Hacked' })).status, 404)
    assert.equal((await b.api.delete(`/v1/projects/${id}`)).status, 404)
    assert.equal((await b.api.get('/v1/projects', { id })).body.total, 0)
    assert.equal((await b.api.get('/v1/projects', { number: 'ONLY-A' })).body.total, 0)
    assert.equal((await a.api.get(`/v1/projects/${id}`)).body.number, 'ONLY-A')
  })
})
