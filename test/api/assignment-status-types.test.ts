import assert from 'node:assert/strict'
import { forEachDatabase, languageCompanies } from '../support/harness'

forEachDatabase('assignment-status-types', (suite) => {
  const lang = languageCompanies(suite)

  it('lists one seeded status per category, in order, named in the company language', async () => {
    const res = await lang.de.api.get('/v1/assignment-status-types')
    assert.equal(res.status, 200)
    assert.deepEqual(Object.keys(res.body.items[0]).sort(), [
      'category',
      'createdAt',
      'deactivatedAt',
      'id',
      'name',
      'order',
      'updatedAt'
    ])
    assert.deepEqual(
      res.body.items.map((t: any) => [t.name, t.category, t.order]),
      [
        ['Offen', 'open', 0],
        ['In Arbeit', 'inProgress', 1],
        ['Erledigt', 'done', 2],
        ['Storniert', 'cancelled', 3]
      ]
    )
    assert.deepEqual(
      (await lang.it.api.get('/v1/assignment-status-types')).body.items.map((t: any) => t.name),
      ['Aperto', 'In corso', 'Completato', 'Annullato']
    )
    assert.deepEqual(
      (await lang.fr.api.get('/v1/assignment-status-types')).body.items.map((t: any) => t.name),
      ['Open', 'In progress', 'Done', 'Cancelled']
    )
  })

  it('gets one status and filters by id and timestamps; category is not a filter', async () => {
    const all = (await lang.de.api.get('/v1/assignment-status-types')).body.items
    assert.deepEqual((await lang.de.api.get(`/v1/assignment-status-types/${all[3].id}`)).body, all[3])
    assert.equal((await lang.de.api.get('/v1/assignment-status-types', { 'id[$ne]': all[0].id })).body.total, 3)
    assert.equal(
      (await lang.de.api.get('/v1/assignment-status-types', { 'createdAt[$gte]': all[0].createdAt, size: 2 })).body
        .pages,
      2
    )
    assert.equal((await lang.de.api.get('/v1/assignment-status-types', { category: 'done' })).status, 400)
  })

  it('a deactivated status stays readable and is found by the deactivatedAt filter', async () => {
    const all = (await lang.de.api.get('/v1/assignment-status-types')).body.items
    await suite
      .server()
      .knex('assignmentStatusTypes')
      .where({ id: all[3].id })
      .update({ deactivatedAt: new Date().toISOString() })
    const got = await lang.de.api.get(`/v1/assignment-status-types/${all[3].id}`)
    assert.equal(got.status, 200)
    assert.notEqual(got.body.deactivatedAt, null)
    assert.deepEqual(
      (await lang.de.api.get('/v1/assignment-status-types', { deactivatedAt: 'null' })).body.items.map(
        (t: any) => t.category
      ),
      ['open', 'inProgress', 'done']
    )
  })

  it('is read-only: POST, PATCH and DELETE answer 405', async () => {
    const [status] = (await lang.fr.api.get('/v1/assignment-status-types')).body.items
    assert.equal((await lang.fr.api.post('/v1/assignment-status-types', { name: 'New', category: 'open' })).status, 405)
    assert.equal((await lang.fr.api.patch(`/v1/assignment-status-types/${status.id}`, { name: 'New' })).status, 405)
    assert.equal((await lang.fr.api.delete(`/v1/assignment-status-types/${status.id}`)).status, 405)
    assert.deepEqual((await lang.fr.api.get(`/v1/assignment-status-types/${status.id}`)).body, status)
  })

  it('is isolated: a company sees only its own statuses', async () => {
    const [status] = (await lang.de.api.get('/v1/assignment-status-types')).body.items
    assert.equal((await lang.it.api.get(`/v1/assignment-status-types/${status.id}`)).status, 404)
    assert.equal((await lang.it.api.get('/v1/assignment-status-types', { id: status.id })).body.total, 0)
  })
})
