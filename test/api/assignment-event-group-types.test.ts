import assert from 'node:assert/strict'
import { forEachDatabase, languageCompanies } from '../support/harness'

forEachDatabase('assignment-event-group-types', (suite) => {
  const lang = languageCompanies(suite)

  it('lists the seeded group types in order, named in the company language', async () => {
    const res = await lang.de.api.get('/v1/assignment-event-group-types')
    assert.equal(res.status, 200)
    assert.deepEqual(Object.keys(res.body.items[0]).sort(), [
      'createdAt',
      'deactivatedAt',
      'id',
      'name',
      'order',
      'updatedAt'
    ])
    assert.deepEqual(
      res.body.items.map((t: any) => [t.name, t.order]),
      [
        ['Bauabschnitt', 0],
        ['Gewerk', 1]
      ]
    )
    assert.deepEqual(
      (await lang.it.api.get('/v1/assignment-event-group-types')).body.items.map((t: any) => t.name),
      ['Lotto', 'Lavorazione']
    )
    assert.deepEqual(
      (await lang.fr.api.get('/v1/assignment-event-group-types')).body.items.map((t: any) => t.name),
      ['Construction phase', 'Trade']
    )
  })

  it('gets one group type and filters by id and timestamps; name is not a filter', async () => {
    const all = (await lang.de.api.get('/v1/assignment-event-group-types')).body.items
    assert.deepEqual((await lang.de.api.get(`/v1/assignment-event-group-types/${all[0].id}`)).body, all[0])
    assert.deepEqual(
      (await lang.de.api.get('/v1/assignment-event-group-types', { 'id[$nin]': all[0].id })).body.items,
      [all[1]]
    )
    assert.equal(
      (await lang.de.api.get('/v1/assignment-event-group-types', { 'createdAt[$lt]': '2000-01-01T00:00:00Z' })).body
        .total,
      0
    )
    assert.equal((await lang.de.api.get('/v1/assignment-event-group-types', { name: 'Gewerk' })).status, 400)
    assert.equal((await lang.de.api.get('/v1/assignment-event-group-types/0')).status, 400)
    assert.equal((await lang.de.api.get('/v1/assignment-event-group-types/2147483647')).status, 404)
  })

  it('a deactivated group type stays readable and is found by the deactivatedAt filter', async () => {
    const [first] = (await lang.fr.api.get('/v1/assignment-event-group-types')).body.items
    await suite
      .server()
      .knex('assignmentEventGroupTypes')
      .where({ id: first.id })
      .update({ deactivatedAt: new Date().toISOString() })
    assert.equal((await lang.fr.api.get(`/v1/assignment-event-group-types/${first.id}`)).status, 200)
    assert.deepEqual(
      (await lang.fr.api.get('/v1/assignment-event-group-types', { 'deactivatedAt[$ne]': 'null' })).body.items.map(
        (t: any) => t.id
      ),
      [first.id]
    )
  })

  it('is read-only: POST, PATCH and DELETE answer 405', async () => {
    const [type] = (await lang.de.api.get('/v1/assignment-event-group-types')).body.items
    assert.equal((await lang.de.api.post('/v1/assignment-event-group-types', { name: 'Etage' })).status, 405)
    assert.equal(
      (await lang.de.api.patch(`/v1/assignment-event-group-types/${type.id}`, { name: 'Etage' })).status,
      405
    )
    assert.equal((await lang.de.api.delete(`/v1/assignment-event-group-types/${type.id}`)).status, 405)
    assert.equal((await lang.de.api.get('/v1/assignment-event-group-types')).body.total, 2)
  })

  it('is isolated: a company sees only its own group types', async () => {
    const [type] = (await lang.de.api.get('/v1/assignment-event-group-types')).body.items
    assert.equal((await lang.it.api.get(`/v1/assignment-event-group-types/${type.id}`)).status, 404)
    assert.equal((await lang.it.api.get('/v1/assignment-event-group-types', { id: type.id })).body.total, 0)
  })
})
