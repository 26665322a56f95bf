import assert from 'node:assert/strict'
import { forEachDatabase, languageCompanies } from '../support/harness'

forEachDatabase('assignment-event-types', (suite) => {
  const lang = languageCompanies(suite)

  it('lists the seeded work and travel types with short names, named in the company language', async () => {
    const res = await lang.de.api.get('/v1/assignment-event-types')
    assert.equal(res.status, 200)
    assert.deepEqual(Object.keys(res.body.items[0]).sort(), [
      'color',
      'createdAt',
      'deactivatedAt',
      'id',
      'name',
      'order',
      'shortName',
      'updatedAt'
    ])
    assert.deepEqual(
      res.body.items.map((t: any) => [t.name, t.shortName, t.order]),
      [
        ['Arbeit', 'AR', 0],
        ['Fahrt', 'FA', 1]
      ]
    )
    assert.deepEqual(
      (await lang.it.api.get('/v1/assignment-event-types')).body.items.map((t: any) => [t.name, t.shortName]),
      [
        ['Lavoro', 'LA'],
        ['Viaggio', 'VI']
      ]
    )
    assert.deepEqual(
      (await lang.fr.api.get('/v1/assignment-event-types')).body.items.map((t: any) => [t.name, t.shortName]),
      [
        ['Work', 'WO'],
        ['Travel', 'TR']
      ]
    )
  })

  it('gets one type and filters by id, name and timestamps', async () => {
    const all = (await lang.de.api.get('/v1/assignment-event-types')).body.items
    assert.deepEqual((await lang.de.api.get(`/v1/assignment-event-types/${all[1].id}`)).body, all[1])
    assert.deepEqual((await lang.de.api.get('/v1/assignment-event-types', { name: 'Fahrt' })).body.items, [all[1]])
    assert.deepEqual((await lang.de.api.get('/v1/assignment-event-types', { 'name[$like]': 'arb%' })).body.items, [
      all[0]
    ])
    assert.deepEqual(
      (await lang.de.api.get('/v1/assignment-event-types', { '$sort[name]': -1 })).body.items.map((t: any) => t.name),
      ['Fahrt', 'Arbeit']
    )
    assert.equal(
      (
        await lang.de.api.get('/v1/assignment-event-types', {
          'id[$in]': all.map((t: any) => t.id),
          'updatedAt[$lte]': all[1].updatedAt
        })
      ).body.total,
      2
    )
    assert.equal((await lang.de.api.get('/v1/assignment-event-types', { shortName: 'AR' })).status, 400)
  })

  it('a deactivated type stays readable and is found by the deactivatedAt filter', async () => {
    const [work] = (await lang.it.api.get('/v1/assignment-event-types')).body.items
    await suite
      .server()
      .knex('assignmentEventTypes')
      .where({ id: work.id })
      .update({ deactivatedAt: '2026-01-31T23:00:00.000Z' })
    assert.equal(
      (await lang.it.api.get(`/v1/assignment-event-types/${work.id}`)).body.deactivatedAt,
      '2026-01-31T23:00:00.000Z'
    )
    assert.deepEqual(
      (
        await lang.it.api.get('/v1/assignment-event-types', { 'deactivatedAt[$gte]': '2026-02-01T00:00:00+01:00' })
      ).body.items.map((t: any) => t.id),
      [work.id]
    )
    assert.equal((await lang.it.api.get('/v1/assignment-event-types', { deactivatedAt: 'null' })).body.total, 1)
  })

  it('is read-only: POST, PATCH and DELETE answer 405', async () => {
    const [type] = (await lang.de.api.get('/v1/assignment-event-types')).body.items
    assert.equal((await lang.de.api.post('/v1/assignment-event-types', { name: 'Pause' })).status, 405)
    assert.equal((await lang.de.api.patch(`/v1/assignment-event-types/${type.id}`, { name: 'Pause' })).status, 405)
    assert.equal((await lang.de.api.delete(`/v1/assignment-event-types/${type.id}`)).status, 405)
    assert.equal((await lang.de.api.get('/v1/assignment-event-types')).body.total, 2)
  })

  it('is isolated: a company sees only its own types', async () => {
    const [type] = (await lang.de.api.get('/v1/assignment-event-types')).body.items
    assert.equal((await lang.fr.api.get(`/v1/assignment-event-types/${type.id}`)).status, 404)
    assert.equal((await lang.fr.api.get('/v1/assignment-event-types', { id: type.id })).body.total, 0)
    assert.equal((await lang.fr.api.get('/v1/assignment-event-types', { name: 'Arbeit' })).body.total, 0)
  })
})
