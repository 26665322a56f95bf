import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../support/harness'

forEachDatabase('time-entry-types', (suite) => {
  let de: TestCompany
  let it_: TestCompany
  let fr: TestCompany
  let eventTypes: { work: number; travel: number }

  before(async () => {
    de = await suite.company({ country: 'DE' })
    it_ = await suite.company({ country: 'IT' })
    fr = await suite.company({ country: 'FR' })
    const [work, travel] = (await de.api.get('/v1/assignment-event-types')).body.items
    eventTypes = { work: work.id, travel: travel.id }
  })

  it('lists the seeded types: work and travel linked to their event types, one unassigned type, localized', async () => {
    const res = await de.api.get('/v1/time-entry-types')
    assert.equal(res.status, 200)
    assert.deepEqual(Object.keys(res.body.items[0]).sort(), [
      'createdAt',
      'deactivatedAt',
      'eventTypeId',
      'externalId',
      'id',
      'isUnassigned',
      'name',
      'order',
      'updatedAt'
    ])
    assert.deepEqual(
      res.body.items.map((t: any) => [t.name, t.eventTypeId, t.isUnassigned, t.order]),
      [
        ['Arbeitszeit', eventTypes.work, false, 0],
        ['Fahrzeit', eventTypes.travel, false, 1],
        ['Allgemeine Tätigkeit', null, true, 2]
      ]
    )
    assert.deepEqual(
      (await it_.api.get('/v1/time-entry-types')).body.items.map((t: any) => t.name),
      ['Orario di lavoro', 'Tempo di viaggio', 'Attività generale']
    )
    assert.deepEqual(
      (await fr.api.get('/v1/time-entry-types')).body.items.map((t: any) => t.name),
      ['Working time', 'Travel time', 'General activity']
    )
  })

  it('creates a type (201) with order after the last one and isUnassigned false by default', async () => {
    const res = await de.api.post('/v1/time-entry-types', {
      name: 'Montage',
      eventTypeId: eventTypes.work,
      externalId: 'lohnart-10'
    })
    assert.equal(res.status, 201)
    assert.equal(res.body.order, 3)
    assert.equal(res.body.isUnassigned, false)
    assert.equal(res.body.eventTypeId, eventTypes.work)
    assert.equal(res.body.deactivatedAt, null)
    assert.deepEqual((await de.api.get(`/v1/time-entry-types/${res.body.id}`)).body, res.body)
    assert.equal((await de.api.post('/v1/time-entry-types', { name: 'Lager' })).body.order, 4)
    assert.equal((await de.api.post('/v1/time-entry-types', { name: 'Sorted', order: -5 })).body.order, -5)
  })

  it('validates create bodies: name required, deactivatedAt only by PATCH, unassigned types without an event type', async () => {
    const missing = await de.api.post('/v1/time-entry-types', { isUnassigned: false })
    assert.equal(missing.status, 400)
    assert.deepEqual(missing.body.data.validationErrors, { name: 'is required' })
    const deactivated = await de.api.post('/v1/time-entry-types', { name: 'X', deactivatedAt: '2026-01-01T00:00:00Z' })
    assert.equal(deactivated.status, 400)
    assert.equal(deactivated.body.data.validationErrors.deactivatedAt, 'can only be changed by PATCH')
    const both = await de.api.post('/v1/time-entry-types', {
      name: 'X',
      isUnassigned: true,
      eventTypeId: eventTypes.work
    })
    assert.equal(both.status, 400)
    assert.ok(both.body.data.validationErrors.eventTypeId)
    const unassigned = await de.api.post('/v1/time-entry-types', { name: 'Werkstatt', isUnassigned: true })
    assert.equal(unassigned.status, 201)
    assert.equal(unassigned.body.isUnassigned, true)
    assert.equal((await de.api.post('/v1/time-entry-types', { name: 'X', eventTypeId: 99999999 })).status, 400)
    assert.equal((await de.api.post('/v1/time-entry-types', { name: 'X', isUnassigned: null })).status, 400)
    assert.equal((await de.api.get('/v1/time-entry-types', { name: 'X' })).body.total, 0)
  })

  it('refuses a deactivated event type for new types; existing types keep theirs', async () => {
    const company = await suite.company()
    const [work, travel] = (await company.api.get('/v1/assignment-event-types')).body.items
    await suite
      .server()
      .knex('assignmentEventTypes')
      .where({ id: travel.id })
      .update({ deactivatedAt: new Date().toISOString() })
    const res = await company.api.post('/v1/time-entry-types', { name: 'Anfahrt', eventTypeId: travel.id })
    assert.equal(res.status, 400)
    assert.match(res.body.data.validationErrors.eventTypeId, /deactivated/)
    const seededTravel = (await company.api.get('/v1/time-entry-types', { eventTypeId: travel.id })).body.items[0]
    const renamed = await company.api.patch(`/v1/time-entry-types/${seededTravel.id}`, { name: 'Fahrt (alt)' })
    assert.equal(renamed.status, 200)
    assert.equal(renamed.body.eventTypeId, travel.id)
    assert.equal(
      (await company.api.post('/v1/time-entry-types', { name: 'Arbeit 2', eventTypeId: work.id })).status,
      201
    )
  })

  it('PATCH changes name, order and externalId; isUnassigned and eventTypeId are create-only', async () => {
    const created = await de.api.post('/v1/time-entry-types', { name: 'Patch me', eventTypeId: eventTypes.travel })
    const res = await de.api.patch(`/v1/time-entry-types/${created.body.id}`, {
      name: 'Patched',
      order: 99,
      externalId: 'e-1'
    })
    assert.equal(res.status, 200)
    assert.deepEqual([res.body.name, res.body.order, res.body.externalId], ['Patched', 99, 'e-1'])
    const createOnly = await de.api.patch(`/v1/time-entry-types/${created.body.id}`, {
      isUnassigned: true,
      eventTypeId: eventTypes.work
    })
    assert.equal(createOnly.status, 400)
    assert.deepEqual(createOnly.body.data.validationErrors, {
      isUnassigned: 'can only be set on create',
      eventTypeId: 'can only be set on create'
    })
    const cleared = await de.api.patch(`/v1/time-entry-types/${created.body.id}`, { name: null })
    assert.equal(cleared.status, 400)
    assert.equal((await de.api.get(`/v1/time-entry-types/${created.body.id}`)).body.name, 'Patched')
  })

  it('deactivates by PATCH; the type stays readable, filterable and can be reactivated', async () => {
    const created = await de.api.post('/v1/time-entry-types', { name: 'Retiring' })
    const res = await de.api.patch(`/v1/time-entry-types/${created.body.id}`, { deactivatedAt: '2026-06-30T22:00:00Z' })
    assert.equal(res.status, 200)
    assert.equal(res.body.deactivatedAt, '2026-06-30T22:00:00.000Z')
    assert.equal((await de.api.get(`/v1/time-entry-types/${created.body.id}`)).status, 200)
    assert.deepEqual(
      (await de.api.get('/v1/time-entry-types', { 'deactivatedAt[$ne]': 'null' })).body.items.map((t: any) => t.id),
      [created.body.id]
    )
    assert.equal(
      (await de.api.get('/v1/time-entry-types', { id: created.body.id, deactivatedAt: 'null' })).body.total,
      0
    )
    assert.equal(
      (await de.api.patch(`/v1/time-entry-types/${created.body.id}`, { deactivatedAt: null })).body.deactivatedAt,
      null
    )
  })

  it('filters by every listed field', async () => {
    const tag = `T${Date.now()}`
    const a = await de.api.post('/v1/time-entry-types', {
      name: `${tag} a`,
      eventTypeId: eventTypes.travel,
      order: 1000,
      externalId: `${tag}-a`
    })
    const b = await de.api.post('/v1/time-entry-types', { name: `${tag} b`, isUnassigned: true, order: 1001 })
    const ids = (query: Record<string, any>) =>
      de.api
        .get('/v1/time-entry-types', { 'name[$like]': `${tag}%`, ...query })
        .then((r) => r.body.items.map((t: any) => t.id))
    assert.deepEqual(await ids({ eventTypeId: eventTypes.travel }), [a.body.id])
    assert.deepEqual(await ids({ isUnassigned: true }), [b.body.id])
    assert.deepEqual(await ids({ isUnassigned: false }), [a.body.id])
    assert.deepEqual(await ids({ eventTypeId: 'null' }), [b.body.id])
    assert.deepEqual(await ids({ 'order[$gte]': 1001 }), [b.body.id])
    assert.deepEqual(await ids({ '$sort[order]': -1 }), [b.body.id, a.body.id])
    assert.deepEqual(await ids({ externalId: `${tag}-a` }), [a.body.id])
    assert.deepEqual(
      (await de.api.get('/v1/time-entry-types', { name: `${tag} b` })).body.items.map((t: any) => t.id),
      [b.body.id]
    )
    assert.deepEqual(
      await ids({
        'id[$in]': [a.body.id],
        'createdAt[$lte]': new Date(Date.now() + 60000).toISOString(),
        'updatedAt[$gt]': '2020-01-01T00:00:00Z'
      }),
      [a.body.id]
    )
    assert.equal((await de.api.get('/v1/time-entry-types', { isUnassigned: 'maybe' })).status, 400)
  })

  it('answers 405 for DELETE; the type stays', async () => {
    const [type] = (await de.api.get('/v1/time-entry-types')).body.items
    const res = await de.api.delete(`/v1/time-entry-types/${type.id}`)
    assert.equal(res.status, 405)
    assert.equal(res.body.name, 'MethodNotAllowed')
    assert.equal((await de.api.get(`/v1/time-entry-types/${type.id}`)).status, 200)
  })

  it('is isolated: company B can neither see, change nor reference company A types', async () => {
    const created = await de.api.post('/v1/time-entry-types', { name: 'Only DE' })
    const id = created.body.id
    assert.equal((await fr.api.get(`/v1/time-entry-types/${id}`)).status, 404)
    assert.equal((await fr.api.patch(`/v1/time-entry-types/${id}`, { name: 'Hacked' })).status, 404)
    assert.equal((await fr.api.get('/v1/time-entry-types', { id })).body.total, 0)
    const foreign = await fr.api.post('/v1/time-entry-types', { name: 'FR', eventTypeId: eventTypes.work })
    assert.equal(foreign.status, 400)
    assert.match(foreign.body.data.validationErrors.eventTypeId, /references no record/)
    assert.equal((await de.api.get(`/v1/time-entry-types/${id}`)).body.name, 'Only DE')
  })
})
