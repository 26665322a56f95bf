import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../support/harness'
import { newUser } from '../support/users'

const FIELDS = [
  'address',
  'color',
  'comment',
  'createdAt',
  'customerId',
  'externalId',
  'id',
  'name',
  'notesBackOffice',
  'number',
  'projectId',
  'responsibleUserId',
  'statusId',
  'typeId',
  'updatedAt'
]

forEachDatabase('assignments', (suite) => {
  let a: TestCompany
  let b: TestCompany
  let customerA: number
  let n = 0
  const ids = async (company: TestCompany, path: string) =>
    ((await company.api.get(path)).body.items as { id: number }[]).map((i) => i.id)
  const newCustomer = async (company: TestCompany) =>
    (await company.api.post('/v1/customers', { companyName: `Kunde ${++n}` })).body.id as number
  /** A time entry booked on the assignment (and event), as the time-tracking service stores it. */
  const bookTime = async (company: TestCompany, assignmentId: number, eventId: number | null) => {
    const knex = suite.server().knex
    const type = await knex('timeEntryTypes').where({ companyId: company.id, isUnassigned: false }).first('id')
    const now = new Date().toISOString()
    const [row] = await knex('timeEntries').insert(
      {
        companyId: company.id,
        userId: company.adminUserId,
        typeId: type.id,
        assignmentId,
        eventId,
        startsAt: '2026-11-02T08:00:00.000Z',
        endsAt: '2026-11-02T09:00:00.000Z',
        createdAt: now,
        updatedAt: now
      },
      ['id']
    )
    return Number(row.id)
  }

  before(async () => {
    a = await suite.company()
    b = await suite.company()
    customerA = await newCustomer(a)
  })

  it('creates an assignment with defaults: next number, first active type and status (201, full shape)', async () => {
    const fresh = await suite.company({ country: 'IT' })
    const customerId = await newCustomer(fresh)
    const [typeIds, statusIds] = [
      await ids(fresh, '/v1/assignment-types'),
      await ids(fresh, '/v1/assignment-status-types')
    ]
    const res = await fresh.api.post('/v1/assignments', { name: 'Bagno nuovo', customerId })
    assert.equal(res.status, 201)
    assert.deepEqual(Object.keys(res.body).sort(), FIELDS)
    assert.equal(res.body.number, '1')
    assert.equal(res.body.typeId, typeIds[0])
    assert.equal(res.body.statusId, statusIds[0])
    assert.equal(res.body.address, null)
    assert.match(res.body.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    assert.deepEqual((await fresh.api.get(`/v1/assignments/${res.body.id}`)).body, res.body)
    assert.equal((await fresh.api.post('/v1/assignments', { name: 'Second', customerId })).body.number, '2')
    // The sample bodies send null for optional fields: it means "use the default" for these.
    const nulls = await fresh.api.post('/v1/assignments', {
      name: 'Third',
      customerId,
      number: null,
      typeId: null,
      statusId: null
    })
    assert.deepEqual(
      [nulls.status, nulls.body.number, nulls.body.typeId, nulls.body.statusId],
      [201, '3', typeIds[0], statusIds[0]]
    )
  })

  it('numbers per company and skips numbers already given by hand', async () => {
    const fresh = await suite.company()
    const customerId = await newCustomer(fresh)
    assert.equal(
      (await fresh.api.post('/v1/assignments', { name: 'Manual', customerId, number: '2' })).body.number,
      '2'
    )
    const numbers = []
    for (const name of ['x', 'y'])
      numbers.push((await fresh.api.post('/v1/assignments', { name, customerId })).body.number)
    assert.deepEqual(numbers, ['1', '3'])
    const other = await suite.company()
    assert.equal(
      (await other.api.post('/v1/assignments', { name: 'B1', customerId: await newCustomer(other) })).body.number,
      '1'
    )
  })

  it('defaults to the first active type and status by order, skipping deactivated ones', async () => {
    const fresh = await suite.company()
    const customerId = await newCustomer(fresh)
    const knex = suite.server().knex
    const [firstType, secondType, thirdType] = await ids(fresh, '/v1/assignment-types')
    await knex('assignmentTypes').where({ id: firstType }).update({ deactivatedAt: '2026-01-01T00:00:00.000Z' })
    await knex('assignmentTypes').where({ id: thirdType }).update({ order: -5 })
    const statuses = await ids(fresh, '/v1/assignment-status-types')
    await knex('assignmentStatusTypes').where({ id: statuses[0] }).update({ deactivatedAt: '2026-01-01T00:00:00.000Z' })
    const res = await fresh.api.post('/v1/assignments', { name: 'Defaults', customerId })
    assert.equal(res.body.typeId, thirdType)
    assert.equal(res.body.statusId, statuses[1])
    const deactivated = await fresh.api.post('/v1/assignments', { name: 'Old type', customerId, typeId: firstType })
    assert.equal(deactivated.status, 400)
    assert.match(deactivated.body.data.validationErrors.typeId, /deactivated/)
    assert.equal(
      (await fresh.api.post('/v1/assignments', { name: 'Explicit', customerId, typeId: secondType })).body.typeId,
      secondType
    )
    await knex('assignmentStatusTypes')
      .where({ companyId: fresh.id })
      .update({ deactivatedAt: '2026-01-01T00:00:00.000Z' })
    const none = await fresh.api.post('/v1/assignments', { name: 'No status left', customerId })
    assert.equal(none.status, 400)
    assert.match(none.body.data.validationErrors.statusId, /no active/)
  })

  it('requires name and customerId and validates every field, naming it', async () => {
    const missing = await a.api.post('/v1/assignments', { comment: 'no name' })
    assert.equal(missing.status, 400)
    assert.deepEqual(Object.keys(missing.body.data.validationErrors).sort(), ['customerId', 'name'])
    const bad = await a.api.post('/v1/assignments', {
      name: 'x'.repeat(256),
      customerId: '5',
      color: 'red',
      comment: 'x'.repeat(10001),
      address: { street: 'A', latitude: 1 },
      id: 9,
      companyId: 1
    })
    assert.equal(bad.status, 400)
    const errors = bad.body.data.validationErrors
    assert.equal(errors.name, 'must be at most 255 characters long')
    assert.equal(errors.customerId, 'must be an integer')
    assert.equal(errors.color, 'must be a hex colour in the form #RRGGBB')
    assert.equal(errors.comment, 'must be at most 10000 characters long')
    assert.equal(errors['address.latitude'], 'is read-only')
    assert.equal(errors.id, 'is read-only')
    assert.equal(errors.companyId, 'is not a field of Assignment')
  })

  it('checks references within the company: customer, project, type, status, responsible user', async () => {
    const [customerB, projectB] = [
      await newCustomer(b),
      (await b.api.post('/v1/projects', { number: `P-${Date.now()}` })).body.id
    ]
    const [typeB, statusB] = [
      (await ids(b, '/v1/assignment-types'))[0],
      (await ids(b, '/v1/assignment-status-types'))[0]
    ]
    const res = await a.api.post('/v1/assignments', {
      name: 'Foreign refs',
      customerId: customerB,
      projectId: projectB,
      typeId: typeB,
      statusId: statusB,
      responsibleUserId: b.adminUserId
    })
    assert.equal(res.status, 400)
    assert.deepEqual(Object.keys(res.body.data.validationErrors).sort(), [
      'customerId',
      'projectId',
      'responsibleUserId',
      'statusId',
      'typeId'
    ])
    const leaving = await newUser(a)
    await a.api.patch(`/v1/users/${leaving}`, { deactivatedAt: '2026-01-01T00:00:00Z' })
    const deactivated = await a.api.post('/v1/assignments', {
      name: 'x',
      customerId: customerA,
      responsibleUserId: leaving
    })
    assert.match(deactivated.body.data.validationErrors.responsibleUserId, /deactivated/)
  })

  it('patches fields, clears optional ones with null and refuses to clear type, status, name or customer', async () => {
    const projectId = (await a.api.post('/v1/projects', { number: `P-${Date.now()}` })).body.id
    const responsibleUserId = await newUser(a)
    const created = await a.api.post('/v1/assignments', {
      name: 'Dachsanierung',
      customerId: customerA,
      projectId,
      responsibleUserId,
      comment: 'Gerüst stellen',
      color: '#FF0000',
      address: { street: 'Lindenweg 4', zip: '50667', city: 'Köln', country: 'DE' },
      externalId: 'erp-1'
    })
    assert.equal(created.status, 201)
    assert.deepEqual(created.body.address, {
      supplement: null,
      street: 'Lindenweg 4',
      clarification: null,
      zip: '50667',
      city: 'Köln',
      state: null,
      country: 'DE',
      externalId: null,
      latitude: null,
      longitude: null
    })
    const statuses = await ids(a, '/v1/assignment-status-types')
    const res = await a.api.patch(`/v1/assignments/${created.body.id}`, {
      statusId: statuses[1],
      projectId: null,
      comment: null,
      notesBackOffice: 'Rechnung offen'
    })
    assert.equal(res.status, 200)
    assert.deepEqual(
      [res.body.statusId, res.body.projectId, res.body.comment, res.body.notesBackOffice],
      [statuses[1], null, null, 'Rechnung offen']
    )
    assert.equal(res.body.responsibleUserId, responsibleUserId)
    assert.equal(res.body.number, created.body.number)
    for (const field of ['typeId', 'statusId', 'name', 'customerId']) {
      const refused = await a.api.patch(`/v1/assignments/${created.body.id}`, { [field]: null })
      assert.equal(refused.status, 400, field)
      assert.ok(refused.body.data.validationErrors[field], field)
    }
    assert.equal((await a.api.get(`/v1/assignments/${created.body.id}`)).body.statusId, statuses[1])
  })

  it('filters by every listed field with operators and sorts', async () => {
    const tag = `F${Date.now()}`
    const otherCustomer = await newCustomer(a)
    const made = []
    for (const [i, name] of ['Alpha', 'beta', 'Gamma'].entries()) {
      const res = await a.api.post('/v1/assignments', {
        name: `${tag} ${name}`,
        number: `${tag}-${i}`,
        externalId: `${tag}-x${i}`,
        customerId: i === 2 ? otherCustomer : customerA
      })
      made.push(res.body)
    }
    const like = await a.api.get('/v1/assignments', { 'name[$like]': `%${tag} B%` })
    assert.deepEqual(
      like.body.items.map((x: any) => x.name),
      [`${tag} beta`]
    )
    const byCustomer = await a.api.get('/v1/assignments', { customerId: otherCustomer })
    assert.deepEqual(
      byCustomer.body.items.map((x: any) => x.id),
      [made[2].id]
    )
    const sorted = await a.api.get('/v1/assignments', { 'number[$in]': [`${tag}-0`, `${tag}-2`], '$sort[number]': -1 })
    assert.deepEqual(
      sorted.body.items.map((x: any) => x.number),
      [`${tag}-2`, `${tag}-0`]
    )
    assert.equal((await a.api.get('/v1/assignments', { externalId: `${tag}-x1` })).body.total, 1)
    assert.equal(
      (
        await a.api.get('/v1/assignments', {
          'name[$like]': `${tag}%`,
          'createdAt[$gte]': made[0].createdAt,
          projectId: 'null'
        })
      ).body.total,
      3
    )
    for (const query of [{ color: '#FF0000' }, { 'createdAt[$gt]': 'yesterday' }, { typeId: 'one' }] as Record<
      string,
      string
    >[]) {
      const res = await a.api.get('/v1/assignments', query)
      assert.equal(res.status, 400, JSON.stringify(query))
      assert.equal(Object.keys(res.body.data.validationErrors).length, 1)
    }
  })

  it('deletes with its events and groups (204); customer and project deletes are refused while referenced (409)', async () => {
    const customerId = await newCustomer(a)
    const projectId = (await a.api.post('/v1/projects', { number: `P-${Date.now()}` })).body.id
    const assignment = await a.api.post('/v1/assignments', { name: 'Delete me', customerId, projectId })
    const group = await a.api.post('/v1/assignment-event-groups', { assignmentId: assignment.body.id })
    const typeId = (await ids(a, '/v1/assignment-event-types'))[0]
    const event = await a.api.post('/v1/assignment-events', {
      assignmentId: assignment.body.id,
      typeId,
      groupId: group.body.id,
      assignedUsers: [a.adminUserId]
    })
    assert.equal(event.status, 201)
    for (const path of [`/v1/customers/${customerId}`, `/v1/projects/${projectId}`]) {
      const refused = await a.api.delete(path)
      assert.equal(refused.status, 409, path)
      assert.equal(refused.body.name, 'Conflict')
    }
    const res = await a.api.delete(`/v1/assignments/${assignment.body.id}`)
    assert.equal(res.status, 204)
    assert.equal(res.text, '')
    assert.equal((await a.api.get(`/v1/assignments/${assignment.body.id}`)).status, 404)
    assert.equal((await a.api.get(`/v1/assignment-events/${event.body.id}`)).status, 404)
    assert.equal((await a.api.get(`/v1/assignment-event-groups/${group.body.id}`)).status, 404)
    assert.equal((await suite.server().knex('assignmentEventUsers').where({ eventId: event.body.id })).length, 0)
    assert.equal((await a.api.delete(`/v1/customers/${customerId}`)).status, 204)
    assert.equal((await a.api.delete(`/v1/projects/${projectId}`)).status, 204)
  })

  it('refuses to delete an assignment that time entries reference, directly or through an event (409), keeping everything', async () => {
    const typeId = (await ids(a, '/v1/assignment-event-types'))[0]
    const direct = await a.api.post('/v1/assignments', { name: 'Booked', customerId: customerA })
    await bookTime(a, direct.body.id, null)
    const viaEvent = await a.api.post('/v1/assignments', { name: 'Booked on a step', customerId: customerA })
    const event = await a.api.post('/v1/assignment-events', { assignmentId: viaEvent.body.id, typeId })
    const entryId = await bookTime(a, viaEvent.body.id, event.body.id)
    for (const id of [direct.body.id, viaEvent.body.id]) {
      const res = await a.api.delete(`/v1/assignments/${id}`)
      assert.equal(res.status, 409)
      assert.equal(res.body.message, 'The assignment is still referenced by 1 time entry')
      assert.deepEqual(res.body.data, { reason: 'still-referenced', references: { 'time-entries': 1 } })
      assert.equal((await a.api.get(`/v1/assignments/${id}`)).status, 200)
    }
    assert.equal((await a.api.get(`/v1/assignment-events/${event.body.id}`)).status, 200)
    await suite.server().knex('timeEntries').where({ id: entryId }).delete()
    assert.equal((await a.api.delete(`/v1/assignments/${viaEvent.body.id}`)).status, 204)
  })

  it('is isolated: company B can neither see, change, delete nor reference company A assignments', async () => {
    const created = await a.api.post('/v1/assignments', { name: 'Only A', customerId: customerA })
    const id = created.body.id
    assert.equal((await b.api.get(`/v1/assignments/${id}`)).status, 404)
    assert.equal((await b.api.patch(`/v1/assignments/${id}`, { name: 'Hacked' })).status, 404)
    assert.equal((await b.api.delete(`/v1/assignments/${id}`)).status, 404)
    assert.equal((await b.api.get('/v1/assignments', { id })).body.total, 0)
    const typeB = (await ids(b, '/v1/assignment-event-types'))[0]
    const event = await b.api.post('/v1/assignment-events', { assignmentId: id, typeId: typeB })
    assert.equal(event.status, 400)
    assert.ok(event.body.data.validationErrors.assignmentId)
    const group = await b.api.post('/v1/assignment-event-groups', { assignmentId: id })
    assert.equal(group.status, 400)
    assert.ok(group.body.data.validationErrors.assignmentId)
    assert.equal((await a.api.get(`/v1/assignments/${id}`)).body.name, 'Only A')
    assert.equal((await b.api.get('/v1/assignments/abc')).status, 400)
  })
})
