import assert from 'node:assert/strict'
import { forEachDatabase, languageCompanies } from '../support/harness'

const FIELDS = [
  'color',
  'countAsWorkingTime',
  'createdAt',
  'deactivatedAt',
  'id',
  'isAbsenceHourly',
  'name',
  'needApproval',
  'needCompensation',
  'order',
  'updatedAt'
]

forEachDatabase('user-absence-types', (suite) => {
  const lang = languageCompanies(suite)

  it('lists the seeded types with their rules, named in the company language', async () => {
    const res = await lang.de.api.get('/v1/user-absence-types')
    assert.equal(res.status, 200)
    assert.deepEqual(Object.keys(res.body.items[0]).sort(), FIELDS)
    assert.deepEqual(
      res.body.items.map((t: any) => [
        t.name,
        t.needApproval,
        t.needCompensation,
        t.countAsWorkingTime,
        t.isAbsenceHourly,
        t.order
      ]),
      [
        ['Urlaub', true, false, false, false, 0],
        ['Krankheit', false, false, false, false, 1],
        ['Fortbildung', true, false, true, false, 2],
        ['Überstundenabbau', true, true, false, false, 3]
      ]
    )
    assert.deepEqual(
      (await lang.it.api.get('/v1/user-absence-types')).body.items.map((t: any) => t.name),
      ['Ferie', 'Malattia', 'Formazione', 'Recupero ore']
    )
    assert.deepEqual(
      (await lang.fr.api.get('/v1/user-absence-types')).body.items.map((t: any) => t.name),
      ['Vacation', 'Sick leave', 'Further training', 'Overtime compensation']
    )
  })

  it('creates a type (201): flags default to false, order after the last one', async () => {
    const res = await lang.de.api.post('/v1/user-absence-types', { name: 'Elternzeit', color: '#AABBCC' })
    assert.equal(res.status, 201)
    assert.deepEqual(Object.keys(res.body).sort(), FIELDS)
    assert.deepEqual(
      [res.body.needApproval, res.body.needCompensation, res.body.countAsWorkingTime, res.body.isAbsenceHourly],
      [false, false, false, false]
    )
    assert.equal(res.body.order, 4)
    assert.deepEqual((await lang.de.api.get(`/v1/user-absence-types/${res.body.id}`)).body, res.body)
    const hourly = await lang.de.api.post('/v1/user-absence-types', {
      name: 'Arzttermin',
      needApproval: true,
      countAsWorkingTime: true,
      isAbsenceHourly: true,
      order: 1
    })
    assert.equal(hourly.status, 201)
    assert.deepEqual(
      [hourly.body.needApproval, hourly.body.countAsWorkingTime, hourly.body.isAbsenceHourly, hourly.body.order],
      [true, true, true, 1]
    )
  })

  it('validates bodies: name required, colour format, flags not null, deactivatedAt only by PATCH, create-only flags', async () => {
    const bad = await lang.de.api.post('/v1/user-absence-types', {
      color: '#12345',
      needApproval: null,
      deactivatedAt: '2026-01-01T00:00:00Z'
    })
    assert.equal(bad.status, 400)
    assert.deepEqual(Object.keys(bad.body.data.validationErrors).sort(), [
      'color',
      'deactivatedAt',
      'name',
      'needApproval'
    ])
    assert.equal(bad.body.data.validationErrors.deactivatedAt, 'can only be changed by PATCH')
    const created = await lang.de.api.post('/v1/user-absence-types', { name: 'Sonderurlaub' })
    const patch = await lang.de.api.patch(`/v1/user-absence-types/${created.body.id}`, {
      countAsWorkingTime: true,
      isAbsenceHourly: true
    })
    assert.equal(patch.status, 400)
    assert.deepEqual(patch.body.data.validationErrors, {
      countAsWorkingTime: 'can only be set on create',
      isAbsenceHourly: 'can only be set on create'
    })
    const ok = await lang.de.api.patch(`/v1/user-absence-types/${created.body.id}`, {
      name: 'Sonderurlaub (bezahlt)',
      needApproval: true,
      needCompensation: true,
      color: null,
      order: 7
    })
    assert.equal(ok.status, 200)
    assert.deepEqual(
      [ok.body.name, ok.body.needApproval, ok.body.needCompensation, ok.body.color, ok.body.order],
      ['Sonderurlaub (bezahlt)', true, true, null, 7]
    )
  })

  it('deactivates by PATCH; the type stays readable and filterable', async () => {
    const created = await lang.it.api.post('/v1/user-absence-types', { name: 'Permesso' })
    const res = await lang.it.api.patch(`/v1/user-absence-types/${created.body.id}`, {
      deactivatedAt: '2026-02-01T00:00:00+01:00'
    })
    assert.equal(res.status, 200)
    assert.equal(res.body.deactivatedAt, '2026-01-31T23:00:00.000Z')
    assert.equal(
      (await lang.it.api.get(`/v1/user-absence-types/${created.body.id}`)).body.deactivatedAt,
      '2026-01-31T23:00:00.000Z'
    )
    assert.deepEqual(
      (await lang.it.api.get('/v1/user-absence-types', { 'deactivatedAt[$ne]': 'null' })).body.items.map(
        (t: any) => t.id
      ),
      [created.body.id]
    )
    assert.equal((await lang.it.api.get('/v1/user-absence-types', { deactivatedAt: 'null' })).body.total, 4)
    assert.equal(
      (
        await lang.it.api.get('/v1/user-absence-types', {
          'deactivatedAt[$gte]': '2026-01-31T23:00:00Z',
          'id[$in]': [created.body.id]
        })
      ).body.total,
      1
    )
  })

  it('filters by id and deactivatedAt only', async () => {
    const all = (await lang.fr.api.get('/v1/user-absence-types')).body.items
    assert.deepEqual(
      (
        await lang.fr.api.get('/v1/user-absence-types', { 'id[$in]': [all[0].id, all[3].id], '$sort[id]': -1 })
      ).body.items.map((t: any) => t.id),
      [all[3].id, all[0].id]
    )
    for (const name of ['name', 'needApproval', 'order', 'createdAt']) {
      const res = await lang.fr.api.get('/v1/user-absence-types', { [name]: '1' })
      assert.equal(res.status, 400, name)
      assert.ok(res.body.data.validationErrors[name], name)
    }
  })

  it('answers 405 for DELETE; the type stays', async () => {
    const [type] = (await lang.de.api.get('/v1/user-absence-types')).body.items
    assert.equal((await lang.de.api.delete(`/v1/user-absence-types/${type.id}`)).status, 405)
    assert.equal((await lang.de.api.get(`/v1/user-absence-types/${type.id}`)).status, 200)
  })

  it('is isolated: company B can neither see nor change company A types', async () => {
    const created = await lang.de.api.post('/v1/user-absence-types', { name: 'Only DE' })
    const id = created.body.id
    assert.equal((await lang.fr.api.get(`/v1/user-absence-types/${id}`)).status, 404)
    assert.equal((await lang.fr.api.patch(`/v1/user-absence-types/${id}`, { name: 'Hacked' })).status, 404)
    assert.equal((await lang.fr.api.get('/v1/user-absence-types', { id })).body.total, 0)
    assert.equal((await lang.de.api.get(`/v1/user-absence-types/${id}`)).body.name, 'Only DE')
  })
})
