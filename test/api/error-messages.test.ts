import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../support/harness'
import type { HttpResponse } from '../support/http'
import { sheetFixtures, SheetTypes } from '../support/timesheets/fixtures'

/**
 * The slips issue #17 found in messages: a field named twice in "<field> <message>" ("companyName
 * companyName or surname is required"), a word twice in a row, "a" before a vowel ("A approved")
 * and "an" before a consonant.
 */
export function proofreadingSlips(message: string, field?: string): string[] {
  const slips: string[] = []
  const repeated = /\b(\w+) \1\b/i.exec(message)
  if (repeated) slips.push(`repeats "${repeated[1]}"`)
  const a = /\b[Aa] [aeio]\w*/.exec(message)
  if (a) slips.push(`"${a[0]}"`)
  const an = /\b[Aa]n [bcdfgjklmnpqrstvwxz]\w*/.exec(message)
  if (an) slips.push(`"${an[0]}"`)
  if (field) {
    const leaf = field
      .split('.')
      .filter((part) => !/^\d+$/.test(part))
      .pop()
    const times = leaf ? `${field} ${message}`.split(new RegExp(`\\b${leaf}\\b`)).length - 1 : 0
    if (times > 1) slips.push(`names ${leaf} ${times} times`)
  }
  return slips
}

/** Every message of an error body: the summary, and each field with its message. */
const messagesOf = (res: HttpResponse): [message: string, field?: string][] => [
  [res.body.message],
  ...Object.entries((res.body.data?.validationErrors ?? {}) as Record<string, string>).map(
    ([field, message]): [string, string] => [message, field]
  )
]

describe('proofreadingSlips', () => {
  it('finds the slips of issue #17 and passes good English', () => {
    assert.deepEqual(proofreadingSlips('companyName or surname is required', 'companyName'), [
      'names companyName 2 times'
    ])
    assert.deepEqual(proofreadingSlips('A approved time sheet day cannot be changed'), ['"A approved"'])
    assert.deepEqual(proofreadingSlips('cannot be changed on a approved day', 'note'), ['"a approved"'])
    assert.deepEqual(proofreadingSlips('an time entry', 'x'), ['"an time"'])
    assert.deepEqual(proofreadingSlips('the the day'), ['repeats "the"'])
    assert.deepEqual(proofreadingSlips('is required unless surname is given', 'companyName'), [])
    assert.deepEqual(proofreadingSlips('A user with this email already exists'), [])
  })
})

forEachDatabase('error messages', (suite) => {
  const f = sheetFixtures(suite)
  let a: TestCompany
  let types: SheetTypes
  let assignmentTypeId: number

  before(async () => {
    a = await suite.company()
    types = await f.typesOf(a)
    assignmentTypeId = (await a.api.get('/v1/assignment-event-types')).body.items[0].id
  })

  const created = async (path: string, body: Record<string, unknown>) => {
    const res = await a.api.post(path, body)
    assert.equal(res.status, 201, res.text)
    return res.body
  }

  describe('one 400 names every offending field of the body', () => {
    it('schema errors and rule errors together (customers)', async () => {
      const res = await a.api.post('/v1/customers', {
        companyName: 'All at once',
        urls: 'not a list',
        bogus: 1,
        billingAddress: { zip: 5 },
        emails: [
          { emailAddress: 'one@crew.test', isDefault: true },
          { emailAddress: 'two@crew.test', isDefault: true }
        ]
      })
      assert.equal(res.status, 400)
      assert.deepEqual(Object.keys(res.body.data.validationErrors).sort(), [
        'billingAddress.zip',
        'bogus',
        'emails',
        'urls'
      ])
      assert.equal(res.body.data.validationErrors.emails, 'at most one entry may have isDefault: true')
      assert.equal(res.body.data.validationErrors.bogus, 'is not a field of Customer')
    })

    it('schema errors and reference errors together (assignments), and nothing is stored', async () => {
      const before = (await a.api.get('/v1/assignments')).body.total
      const res = await a.api.post('/v1/assignments', { name: 'x', customerId: 2147483000, typeId: 'abc', id: 4 })
      assert.equal(res.status, 400)
      const errors = res.body.data.validationErrors
      assert.deepEqual(Object.keys(errors).sort(), ['customerId', 'id', 'typeId'])
      assert.match(errors.customerId, /references no record of this company/)
      assert.equal(errors.typeId, 'must be an integer or null')
      assert.equal((await a.api.get('/v1/assignments')).body.total, before)
    })

    it('on PATCH as well: an invalid field and a rule error on another', async () => {
      const customer = await created('/v1/customers', { surname: 'Patchable' })
      const res = await a.api.patch(`/v1/customers/${customer.id}`, { surname: null, number: 5 })
      assert.equal(res.status, 400)
      assert.deepEqual(res.body.data.validationErrors, {
        number: 'must be a string or null',
        surname: 'is required unless companyName is given'
      })
      assert.equal((await a.api.get(`/v1/customers/${customer.id}`)).body.surname, 'Patchable')
    })

    it('a well-formed body still gets the 403 of a rule', async () => {
      const roles = Object.fromEntries((await a.api.get('/v1/roles')).body.items.map((r: any) => [r.type, r.id]))
      const res = await a.api.post('/v1/users', {
        fullName: 'Mallory',
        email: `mallory-${process.pid}-${Date.now()}@crew.test`,
        roleId: roles.admin
      })
      assert.equal(res.status, 403)
      const invalid = await a.api.post('/v1/users', { fullName: 'Mallory', email: 'not an email', roleId: roles.admin })
      assert.equal(invalid.status, 400)
      assert.ok(invalid.body.data.validationErrors.email)
    })
  })

  describe('one 400 names every offending field even when a rule needs a field that is invalid or missing', () => {
    const keysOf = async (path: string, body: Record<string, unknown>) => {
      const res = await a.api.post(path, body)
      assert.equal(res.status, 400, res.text)
      return Object.keys(res.body.data.validationErrors).sort()
    }
    let userId: number
    let assignmentId: number
    before(async () => {
      userId = await f.newUser(a)
      const customer = await created('/v1/customers', { companyName: 'Partial bodies' })
      assignmentId = (await created('/v1/assignments', { name: 'partial', customerId: customer.id })).id
    })

    it('time entries: the span is checked without a valid typeId', async () => {
      const span = { userId, startsAt: '2026-06-12T07:00:00Z', endsAt: '2026-06-12T06:00:00Z' }
      assert.deepEqual(await keysOf('/v1/time-entries', { typeId: 'x', ...span }), ['endsAt', 'typeId'])
      assert.deepEqual(await keysOf('/v1/time-entries', span), ['endsAt', 'typeId'])
      assert.deepEqual(await keysOf('/v1/time-entries', { typeId: 2147483000, ...span }), ['endsAt', 'typeId'])
      assert.deepEqual(await keysOf('/v1/time-entries', { typeId: types.work, ...span, userId: 'x' }), [
        'endsAt',
        'userId'
      ])
    })

    it('user absences: the span and the decisions are checked without a valid typeId', async () => {
      const body = {
        userId,
        startsAt: '2026-05-12T00:00:00Z',
        endsAt: '2026-05-11T00:00:00Z',
        approvedAt: '2026-05-01T00:00:00Z',
        declinedAt: '2026-05-01T00:00:00Z'
      }
      assert.deepEqual(await keysOf('/v1/user-absences', { typeId: 'x', ...body }), ['declinedAt', 'endsAt', 'typeId'])
      assert.deepEqual(await keysOf('/v1/user-absences', body), ['declinedAt', 'endsAt', 'typeId'])
      assert.deepEqual(await keysOf('/v1/user-absences', { typeId: 2147483000, ...body }), [
        'declinedAt',
        'endsAt',
        'typeId'
      ])
      assert.deepEqual(await keysOf('/v1/user-absences', { typeId: types.vacation, ...body, userId: 'x' }), [
        'declinedAt',
        'endsAt',
        'userId'
      ])
    })

    it('assignment events: the span is checked without a valid assignmentId or typeId', async () => {
      const span = { startsAt: '2026-11-20T15:00:00Z', endsAt: '2026-11-20T07:00:00Z' }
      assert.deepEqual(
        await keysOf('/v1/assignment-events', { assignmentId: 'x', typeId: assignmentTypeId, ...span, groupId: 9999 }),
        ['assignmentId', 'endsAt', 'groupId']
      )
      assert.deepEqual(await keysOf('/v1/assignment-events', { typeId: assignmentTypeId, ...span }), [
        'assignmentId',
        'endsAt'
      ])
      assert.deepEqual(await keysOf('/v1/assignment-events', { assignmentId, typeId: 'x', ...span }), [
        'endsAt',
        'typeId'
      ])
      // A group is not "of another assignment" when the assignment is not known.
      const group = await created('/v1/assignment-event-groups', { assignmentId })
      assert.deepEqual(
        await keysOf('/v1/assignment-events', {
          assignmentId: 'x',
          typeId: assignmentTypeId,
          ...span,
          groupId: group.id
        }),
        ['assignmentId', 'endsAt']
      )
      assert.deepEqual(
        await keysOf('/v1/assignment-events', {
          assignmentId: 'x',
          typeId: assignmentTypeId,
          ...span,
          addressDestination: 'assignment'
        }),
        ['assignmentId', 'endsAt']
      )
    })

    it('assignment event groups: a missing group type is reported without a valid assignmentId', async () => {
      const b = await suite.company()
      await suite
        .server()
        .knex('assignmentEventGroupTypes')
        .where({ companyId: b.id })
        .update({ deactivatedAt: new Date().toISOString() })
      const res = await b.api.post('/v1/assignment-event-groups', { assignmentId: 'x' })
      assert.equal(res.status, 400, res.text)
      assert.deepEqual(Object.keys(res.body.data.validationErrors).sort(), ['assignmentId', 'typeId'])
      const missing = await b.api.post('/v1/assignment-event-groups', {})
      assert.deepEqual(Object.keys(missing.body.data.validationErrors).sort(), ['assignmentId', 'typeId'])
    })

    it('time sheet days: the overrides are checked without a valid userId or day', async () => {
      const overrides = { startsAt: '2026-06-21T07:00:00Z', endsAt: '2026-06-19T07:00:00Z' }
      assert.deepEqual(await keysOf('/v1/time-sheet-days', { userId: 'x', day: '2026-06-20', ...overrides }), [
        'endsAt',
        'startsAt',
        'userId'
      ])
      assert.deepEqual(await keysOf('/v1/time-sheet-days', { day: '2026-06-20', ...overrides }), [
        'endsAt',
        'startsAt',
        'userId'
      ])
      assert.deepEqual(await keysOf('/v1/time-sheet-days', { userId: 2147483000, day: '2026-06-20', ...overrides }), [
        'endsAt',
        'startsAt',
        'userId'
      ])
      assert.deepEqual(await keysOf('/v1/time-sheet-days', { userId, ...overrides }), ['day', 'endsAt'])
      assert.deepEqual(await keysOf('/v1/time-sheet-days', { userId, day: 'x', ...overrides }), ['day', 'endsAt'])
      assert.deepEqual(await keysOf('/v1/time-sheet-days', { userId, day: '1999-12-31', ...overrides }), [
        'day',
        'endsAt'
      ])
    })

    it('users: a too long password is reported with an invalid field even when the key may not create an admin', async () => {
      const roles = Object.fromEntries((await a.api.get('/v1/roles')).body.items.map((r: any) => [r.type, r.id]))
      const password = 'ä'.repeat(40)
      assert.deepEqual(
        await keysOf('/v1/users', { fullName: 'Mallory', email: 'not an email', roleId: roles.admin, password }),
        ['email', 'password']
      )
    })
  })

  describe('409 on delete names what still references the record', () => {
    it('a customer and a project referenced by assignments', async () => {
      const customer = await created('/v1/customers', { companyName: 'Referenced' })
      const project = await created('/v1/projects', { number: `P-${process.pid}-${Date.now()}` })
      await created('/v1/assignments', { name: 'one', customerId: customer.id, projectId: project.id })
      await created('/v1/assignments', { name: 'two', customerId: customer.id })
      const res = await a.api.delete(`/v1/customers/${customer.id}`)
      assert.equal(res.status, 409)
      assert.equal(res.body.message, 'The customer is still referenced by 2 assignments')
      assert.deepEqual(res.body.data, { reason: 'still-referenced', references: { assignments: 2 } })
      const byProject = await a.api.delete(`/v1/projects/${project.id}`)
      assert.equal(byProject.status, 409)
      assert.equal(byProject.body.message, 'The project is still referenced by 1 assignment')
      assert.equal((await a.api.get(`/v1/customers/${customer.id}`)).status, 200)
    })

    it('an assignment and an event referenced by time entries', async () => {
      const userId = await f.newUser(a)
      const customer = await created('/v1/customers', { companyName: 'Booked' })
      const assignment = await created('/v1/assignments', { name: 'booked', customerId: customer.id })
      const event = await created('/v1/assignment-events', { assignmentId: assignment.id, typeId: assignmentTypeId })
      for (const hour of ['08', '10']) {
        await created('/v1/time-entries', {
          typeId: types.work,
          userId,
          assignmentId: assignment.id,
          eventId: event.id,
          startsAt: `2026-11-03T${hour}:00:00Z`,
          endsAt: `2026-11-03T${hour}:30:00Z`
        })
      }
      const byEvent = await a.api.delete(`/v1/assignment-events/${event.id}`)
      assert.equal(byEvent.status, 409)
      assert.equal(byEvent.body.message, 'The assignment event is still referenced by 2 time entries')
      assert.deepEqual(byEvent.body.data, { reason: 'still-referenced', references: { 'time-entries': 2 } })
      const byAssignment = await a.api.delete(`/v1/assignments/${assignment.id}`)
      assert.equal(byAssignment.status, 409)
      assert.equal(byAssignment.body.message, 'The assignment is still referenced by 2 time entries')
    })
  })

  describe('proofread messages', () => {
    it('no message names its field twice, repeats a word or slips on "a"/"an"', async () => {
      const collected: HttpResponse[] = []
      const send = async (method: string, path: string, body?: unknown, status?: number) => {
        const res = await a.api.request(method, path, body)
        if (status) assert.equal(res.status, status, `${method} ${path} ${res.text}`)
        assert.ok(res.status >= 400, `${method} ${path} ${res.text}`)
        collected.push(res)
        return res
      }
      const withSurname = await created('/v1/customers', { surname: 'Only' })
      const withName = await created('/v1/customers', { companyName: 'Only' })
      await send('POST', '/v1/customers', {}, 400)
      await send(
        'POST',
        '/v1/customers',
        { companyName: 5, emails: [{ emailAddress: 'x' }], bogus: true, id: 1, createdAt: 'now' },
        400
      )
      await send('PATCH', `/v1/customers/${withSurname.id}`, { surname: null }, 400)
      await send('PATCH', `/v1/customers/${withName.id}`, { companyName: null }, 400)
      const assignment = await created('/v1/assignments', { name: 'Proofread', customerId: withName.id })
      await send(
        'POST',
        '/v1/assignment-events',
        {
          assignmentId: assignment.id,
          typeId: assignmentTypeId,
          startsAt: '2026-11-03T10:00:00Z',
          endsAt: '2026-11-03T09:00:00Z'
        },
        400
      )
      const event = await created('/v1/assignment-events', {
        assignmentId: assignment.id,
        typeId: assignmentTypeId,
        startsAt: '2026-11-03T08:00:00Z',
        endsAt: '2026-11-03T09:00:00Z'
      })
      await send('PATCH', `/v1/assignment-events/${event.id}`, { startsAt: '2026-11-03T10:00:00Z' }, 400)
      const userId = await f.newUser(a)
      await send(
        'POST',
        '/v1/time-entries',
        { typeId: types.work, userId, startsAt: '2026-11-04T10:00:00Z', endsAt: '2026-11-04T09:00:00Z' },
        400
      )
      await f.entry(a, types, userId, '2026-11-04T08:00:00Z', '2026-11-04T09:00:00Z')
      await send(
        'POST',
        '/v1/time-entries',
        { typeId: types.work, userId, startsAt: '2026-11-04T08:30:00Z', endsAt: '2026-11-04T09:30:00Z' },
        409
      )
      const day = await f.day(a, userId, '2026-11-04')
      await send('PATCH', `/v1/time-sheet-days/${day.id}`, { status: 'approved' }, 409)
      assert.equal((await a.api.patch(`/v1/time-sheet-days/${day.id}`, { status: 'submitted' })).status, 200)
      await send('PATCH', `/v1/time-sheet-days/${day.id}`, { note: 'changed' }, 409)
      assert.equal((await a.api.patch(`/v1/time-sheet-days/${day.id}`, { status: 'approved' })).status, 200)
      await send('PATCH', `/v1/time-sheet-days/${day.id}`, { note: 'changed' }, 409)
      await send('DELETE', `/v1/customers/${withName.id}`, undefined, 409)
      const number = `N-${process.pid}-${Date.now()}`
      await created('/v1/projects', { number })
      await send('POST', '/v1/projects', { number }, 409)
      await send('PUT', `/v1/projects/1`, {}, 405)
      await send('GET', '/v1/customers/abc', undefined, 400)
      await send('GET', '/v1/customers/2147483647', undefined, 404)
      const slips = collected.flatMap((res) =>
        messagesOf(res).flatMap(([message, field]) =>
          proofreadingSlips(message, field).map((slip) => `${slip}: ${field ? `${field} ` : ''}${message}`)
        )
      )
      assert.deepEqual(slips, [])
      assert.ok(collected.length >= 15)
    })
  })
})
