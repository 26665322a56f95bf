import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../support/harness'

forEachDatabase('assignment-event-groups', (suite) => {
  let a: TestCompany
  let b: TestCompany
  let groupTypes: number[]
  let eventType: number
  let assignmentA: number

  const newAssignment = async (company: TestCompany) => {
    const customer = await company.api.post('/v1/customers', { companyName: 'Kunde' })
    const res = await company.api.post('/v1/assignments', { name: 'Rohbau', customerId: customer.body.id })
    assert.equal(res.status, 201)
    return res.body.id as number
  }
  const newGroup = async (company: TestCompany, body: object) => {
    const res = await company.api.post('/v1/assignment-event-groups', body)
    assert.equal(res.status, 201, JSON.stringify(res.body))
    return res.body
  }

  before(async () => {
    a = await suite.company()
    b = await suite.company()
    groupTypes = (await a.api.get('/v1/assignment-event-group-types')).body.items.map((t: any) => t.id)
    eventType = (await a.api.get('/v1/assignment-event-types')).body.items[0].id
    assignmentA = await newAssignment(a)
  })

  it("creates a group with defaults: first active group type, order after the assignment's last group (201, full shape)", async () => {
    const assignmentId = await newAssignment(a)
    const res = await a.api.post('/v1/assignment-event-groups', { assignmentId })
    assert.equal(res.status, 201)
    assert.deepEqual(Object.keys(res.body).sort(), [
      'assignmentId',
      'createdAt',
      'externalId',
      'id',
      'note',
      'order',
      'typeId',
      'updatedAt'
    ])
    assert.deepEqual(
      [res.body.assignmentId, res.body.typeId, res.body.order, res.body.note],
      [assignmentId, groupTypes[0], 0, null]
    )
    assert.deepEqual((await a.api.get(`/v1/assignment-event-groups/${res.body.id}`)).body, res.body)
    const second = await newGroup(a, {
      assignmentId,
      typeId: groupTypes[1],
      note: 'Obergeschoss',
      externalId: 'g-2',
      order: null
    })
    assert.deepEqual(
      [second.typeId, second.order, second.note, second.externalId],
      [groupTypes[1], 1, 'Obergeschoss', 'g-2']
    )
    assert.equal((await newGroup(a, { assignmentId: await newAssignment(a) })).order, 0)
    await suite
      .server()
      .knex('assignmentEventGroupTypes')
      .where({ id: groupTypes[0] })
      .update({ deactivatedAt: '2026-01-01T00:00:00.000Z' })
    try {
      assert.equal((await newGroup(a, { assignmentId })).typeId, groupTypes[1])
      const retired = await a.api.post('/v1/assignment-event-groups', { assignmentId, typeId: groupTypes[0] })
      assert.equal(retired.status, 400)
      assert.match(retired.body.data.validationErrors.typeId, /deactivated/)
    } finally {
      await suite
        .server()
        .knex('assignmentEventGroupTypes')
        .where({ id: groupTypes[0] })
        .update({ deactivatedAt: null })
    }
  })

  it('requires assignmentId (create-only) and refuses to clear type or order', async () => {
    const missing = await a.api.post('/v1/assignment-event-groups', { note: 'x' })
    assert.equal(missing.status, 400)
    assert.deepEqual(Object.keys(missing.body.data.validationErrors), ['assignmentId'])
    const group = await newGroup(a, { assignmentId: assignmentA })
    const url = `/v1/assignment-event-groups/${group.id}`
    const moved = await a.api.patch(url, { assignmentId: await newAssignment(a) })
    assert.equal(moved.body.data.validationErrors.assignmentId, 'can only be set on create')
    for (const field of ['typeId', 'order']) {
      const res = await a.api.patch(url, { [field]: null })
      assert.equal(res.status, 400, field)
      assert.ok(res.body.data.validationErrors[field])
    }
    const res = await a.api.patch(url, { typeId: groupTypes[1], order: 7, note: 'changed' })
    assert.deepEqual([res.status, res.body.typeId, res.body.order, res.body.note], [200, groupTypes[1], 7, 'changed'])
    assert.equal((await a.api.patch(url, { note: null })).body.note, null)
    const unknown = await a.api.patch(url, { name: 'x', createdAt: '2026-01-01T00:00:00Z' })
    assert.deepEqual(unknown.body.data.validationErrors, {
      name: 'is not a field of AssignmentEventGroup',
      createdAt: 'is read-only'
    })
  })

  it('filters by id, typeId, assignmentId, externalId and timestamps', async () => {
    const assignmentId = await newAssignment(a)
    const g1 = await newGroup(a, { assignmentId, externalId: 'f-1' })
    const g2 = await newGroup(a, { assignmentId, typeId: groupTypes[1] })
    const q = (query: Record<string, any>) =>
      a.api.get('/v1/assignment-event-groups', query).then((r) => r.body.items.map((g: any) => g.id))
    assert.deepEqual(await q({ assignmentId }), [g1.id, g2.id])
    assert.deepEqual(await q({ assignmentId, typeId: groupTypes[1] }), [g2.id])
    assert.deepEqual(await q({ externalId: 'f-1', assignmentId }), [g1.id])
    assert.deepEqual(await q({ assignmentId, 'createdAt[$lte]': g2.createdAt, '$sort[id]': -1 }), [g2.id, g1.id])
    assert.equal((await a.api.get('/v1/assignment-event-groups', { order: 1 })).status, 400)
  })

  it('deleting a group keeps its events, ungrouped and marked as changed', async () => {
    const group = await newGroup(a, { assignmentId: assignmentA })
    const event = await a.api.post('/v1/assignment-events', {
      assignmentId: assignmentA,
      typeId: eventType,
      groupId: group.id
    })
    assert.equal(event.body.groupId, group.id)
    await new Promise((resolve) => setTimeout(resolve, 5))
    const res = await a.api.delete(`/v1/assignment-event-groups/${group.id}`)
    assert.equal(res.status, 204)
    assert.equal(res.text, '')
    assert.equal((await a.api.get(`/v1/assignment-event-groups/${group.id}`)).status, 404)
    const after = await a.api.get(`/v1/assignment-events/${event.body.id}`)
    assert.equal(after.status, 200)
    assert.equal(after.body.groupId, null)
    assert.ok(after.body.updatedAt > event.body.updatedAt)
  })

  it('is isolated: company B can neither see, change, delete nor reference company A groups', async () => {
    const group = await newGroup(a, { assignmentId: assignmentA })
    const url = `/v1/assignment-event-groups/${group.id}`
    assert.equal((await b.api.get(url)).status, 404)
    assert.equal((await b.api.patch(url, { note: 'Hacked' })).status, 404)
    assert.equal((await b.api.delete(url)).status, 404)
    assert.equal((await b.api.get('/v1/assignment-event-groups', { id: group.id })).body.total, 0)
    const assignmentB = await newAssignment(b)
    const typeB = (await b.api.get('/v1/assignment-event-types')).body.items[0].id
    const event = await b.api.post('/v1/assignment-events', {
      assignmentId: assignmentB,
      typeId: typeB,
      groupId: group.id
    })
    assert.equal(event.status, 400)
    assert.ok(event.body.data.validationErrors.groupId)
    const foreignType = await b.api.post('/v1/assignment-event-groups', {
      assignmentId: assignmentB,
      typeId: groupTypes[0]
    })
    assert.equal(foreignType.status, 400)
    assert.ok(foreignType.body.data.validationErrors.typeId)
    assert.equal((await a.api.get(url)).status, 200)
  })
})
