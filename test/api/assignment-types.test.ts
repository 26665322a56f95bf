import assert from 'node:assert/strict'
import { forEachDatabase, languageCompanies } from '../support/harness'

forEachDatabase('assignment-types', (suite) => {
  const lang = languageCompanies(suite)

  it('lists the seeded types in order with the full shape, named in the company language', async () => {
    const res = await lang.de.api.get('/v1/assignment-types')
    assert.equal(res.status, 200)
    assert.deepEqual(Object.keys(res.body.items[0]).sort(), [
      'color',
      'createdAt',
      'deactivatedAt',
      'id',
      'name',
      'order',
      'updatedAt'
    ])
    assert.deepEqual(
      res.body.items.map((t: any) => [t.name, t.order, t.deactivatedAt]),
      [
        ['Auftrag', 0, null],
        ['Wartung', 1, null],
        ['Reparatur', 2, null]
      ]
    )
    assert.ok(res.body.items.every((t: any) => /^#[0-9A-F]{6}$/i.test(t.color)))
    assert.deepEqual(
      (await lang.it.api.get('/v1/assignment-types')).body.items.map((t: any) => t.name),
      ['Ordine', 'Manutenzione', 'Riparazione']
    )
    assert.deepEqual(
      (await lang.fr.api.get('/v1/assignment-types')).body.items.map((t: any) => t.name),
      ['Order', 'Maintenance', 'Repair']
    )
  })

  it('gets one type and filters by id and timestamps; other fields are not filters', async () => {
    const all = (await lang.de.api.get('/v1/assignment-types')).body.items
    assert.deepEqual((await lang.de.api.get(`/v1/assignment-types/${all[2].id}`)).body, all[2])
    assert.deepEqual(
      (await lang.de.api.get('/v1/assignment-types', { 'id[$in]': [all[0].id, all[2].id], '$sort[id]': -1 })).body
        .items,
      [all[2], all[0]]
    )
    assert.equal((await lang.de.api.get('/v1/assignment-types', { 'createdAt[$lte]': all[0].createdAt })).body.total, 3)
    assert.equal((await lang.de.api.get('/v1/assignment-types', { 'updatedAt[$gt]': all[0].updatedAt })).body.total, 0)
    assert.equal((await lang.de.api.get('/v1/assignment-types', { 'createdAt[$gt]': 'today' })).status, 400)
    const notFilter = await lang.de.api.get('/v1/assignment-types', { name: 'Auftrag' })
    assert.equal(notFilter.status, 400)
    assert.ok(notFilter.body.data.validationErrors.name)
  })

  it('a deactivated type stays readable and is found by the deactivatedAt filter', async () => {
    const [first] = (await lang.de.api.get('/v1/assignment-types')).body.items
    await suite
      .server()
      .knex('assignmentTypes')
      .where({ id: first.id })
      .update({ deactivatedAt: new Date('2026-05-01T10:00:00Z').toISOString() })
    const got = await lang.de.api.get(`/v1/assignment-types/${first.id}`)
    assert.equal(got.status, 200)
    assert.equal(got.body.deactivatedAt, '2026-05-01T10:00:00.000Z')
    assert.deepEqual(
      (await lang.de.api.get('/v1/assignment-types', { 'deactivatedAt[$ne]': 'null' })).body.items.map(
        (t: any) => t.id
      ),
      [first.id]
    )
    assert.equal((await lang.de.api.get('/v1/assignment-types', { deactivatedAt: 'null' })).body.total, 2)
    assert.equal(
      (await lang.de.api.get('/v1/assignment-types', { 'deactivatedAt[$lte]': '2026-05-01T12:00:00+02:00' })).body
        .total,
      1
    )
  })

  it('is read-only: POST, PATCH and DELETE answer 405 and change nothing', async () => {
    const [type] = (await lang.it.api.get('/v1/assignment-types')).body.items
    for (const res of [
      await lang.it.api.post('/v1/assignment-types', { name: 'Nuovo' }),
      await lang.it.api.patch(`/v1/assignment-types/${type.id}`, { name: 'Nuovo' }),
      await lang.it.api.delete(`/v1/assignment-types/${type.id}`)
    ]) {
      assert.equal(res.status, 405)
      assert.equal(res.body.name, 'MethodNotAllowed')
    }
    assert.deepEqual((await lang.it.api.get(`/v1/assignment-types/${type.id}`)).body, type)
    assert.equal((await lang.it.api.get('/v1/assignment-types')).body.total, 3)
  })

  it('is isolated: a company sees only its own types', async () => {
    const [type] = (await lang.de.api.get('/v1/assignment-types')).body.items
    assert.equal((await lang.fr.api.get(`/v1/assignment-types/${type.id}`)).status, 404)
    assert.equal((await lang.fr.api.get('/v1/assignment-types', { id: type.id })).body.total, 0)
  })
})
