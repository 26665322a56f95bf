import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../support/harness'
import { newUser } from '../support/users'

const ENTRY_FIELDS = [
  'assignmentId',
  'createdAt',
  'duration',
  'endLatitude',
  'endLongitude',
  'endTrackingError',
  'endsAt',
  'eventId',
  'eventTypeId',
  'externalId',
  'id',
  'note',
  'pausedAt',
  'pauses',
  'startLatitude',
  'startLongitude',
  'startTrackingError',
  'startsAt',
  'typeId',
  'updatedAt',
  'userId'
]

const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60000).toISOString()

forEachDatabase('time-entries', (suite) => {
  let a: TestCompany
  let b: TestCompany
  let types: { work: number; travel: number; general: number; workEventType: number }
  let n = 0

  /** A fresh user per test, so that tests never share a timeline. */

  const typesOf = async (company: TestCompany) => {
    const knex = suite.server().knex
    const rows = await knex('timeEntryTypes').where({ companyId: company.id }).orderBy('order')
    const eventTypes = await knex('assignmentEventTypes').where({ companyId: company.id }).orderBy('order')
    return { work: rows[0].id, travel: rows[1].id, general: rows[2].id, workEventType: eventTypes[0].id }
  }

  const entry = (company: TestCompany, body: Record<string, unknown>) =>
    company.api.post('/v1/time-entries', { typeId: types.work, ...body })

  /** An assignment with one event of the given event type (rows written directly: only their ids matter here). */
  const workOrder = async (company: TestCompany, eventTypeId: number) => {
    const knex = suite.server().knex
    const now = new Date().toISOString()
    const customer = await company.api.post('/v1/customers', { companyName: `Kunde ${++n}` })
    const catalogue = (table: string) => knex(table).where({ companyId: company.id }).orderBy('order').first('id')
    const [assignment] = await knex('assignments').insert(
      {
        companyId: company.id,
        name: `Auftrag ${n}`,
        customerId: customer.body.id,
        typeId: (await catalogue('assignmentTypes')).id,
        statusId: (await catalogue('assignmentStatusTypes')).id,
        createdAt: now,
        updatedAt: now
      },
      ['id']
    )
    const [event] = await knex('assignmentEvents').insert(
      {
        companyId: company.id,
        assignmentId: assignment.id,
        typeId: eventTypeId,
        name: 'Montage',
        createdAt: now,
        updatedAt: now
      },
      ['id']
    )
    return { assignmentId: Number(assignment.id), eventId: Number(event.id) }
  }

  before(async () => {
    a = await suite.company({ country: 'DE' })
    b = await suite.company({ country: 'DE' })
    types = await typesOf(a)
  })

  it('creates a finished entry with its duration in minutes (201, full shape)', async () => {
    const userId = await newUser(a)
    const res = await entry(a, {
      userId,
      startsAt: '2026-11-23T08:00:00+01:00',
      endsAt: '2026-11-23T16:30:00+01:00',
      note: 'Baustelle Nord',
      startLatitude: 52.52,
      startLongitude: 13.405,
      startTrackingError: null,
      externalId: 'TE-1'
    })
    assert.equal(res.status, 201, res.text)
    assert.deepEqual(Object.keys(res.body).sort(), ENTRY_FIELDS)
    assert.equal(res.body.startsAt, '2026-11-23T07:00:00.000Z')
    assert.equal(res.body.endsAt, '2026-11-23T15:30:00.000Z')
    assert.equal(res.body.duration, 510)
    assert.equal(res.body.pausedAt, null)
    assert.equal(res.body.userId, userId)
    assert.equal(res.body.assignmentId, null)
    // The type's event type is the default of eventTypeId.
    assert.equal(res.body.eventTypeId, types.workEventType)
    assert.equal(res.body.startLatitude, 52.52)
    const got = await a.api.get(`/v1/time-entries/${res.body.id}`)
    assert.equal(got.status, 200)
    assert.deepEqual(got.body, res.body)
  })

  it('rounds the duration to 2 decimals', async () => {
    const userId = await newUser(a)
    const res = await entry(a, { userId, startsAt: '2026-11-23T08:00:00Z', endsAt: '2026-11-23T08:20:20Z' })
    assert.equal(res.body.duration, 20.33)
  })

  it('keeps a running entry open (duration null) until endsAt is set', async () => {
    const userId = await newUser(a)
    const res = await entry(a, { userId, startsAt: '2026-11-24T07:00:00Z' })
    assert.equal(res.status, 201)
    assert.equal(res.body.endsAt, null)
    assert.equal(res.body.duration, null)
    const ended = await a.api.patch(`/v1/time-entries/${res.body.id}`, {
      endsAt: '2026-11-24T09:15:00Z',
      endLatitude: -33.9,
      endLongitude: 151.2
    })
    assert.equal(ended.status, 200)
    assert.equal(ended.body.duration, 135)
    assert.equal(ended.body.endLatitude, -33.9)
  })

  it('pauses a running entry, refuses a second pause (409), closes the pause at endsAt', async () => {
    const userId = await newUser(a)
    const { body } = await entry(a, { userId, startsAt: '2026-11-25T08:00:00Z' })
    const paused = await a.api.patch(`/v1/time-entries/${body.id}`, { pausedAt: '2026-11-25T10:00:00Z' })
    assert.equal(paused.status, 200, paused.text)
    assert.equal(paused.body.pausedAt, '2026-11-25T10:00:00.000Z')
    assert.equal(paused.body.duration, null)
    const again = await a.api.patch(`/v1/time-entries/${body.id}`, { pausedAt: '2026-11-25T10:05:00Z' })
    assert.equal(again.status, 409)
    assert.equal((await a.api.get(`/v1/time-entries/${body.id}`)).body.pausedAt, '2026-11-25T10:00:00.000Z')
    const ended = await a.api.patch(`/v1/time-entries/${body.id}`, { endsAt: '2026-11-25T10:30:00Z' })
    assert.equal(ended.status, 200)
    assert.equal(ended.body.pausedAt, null)
    assert.equal(ended.body.duration, 120)
    const finished = await a.api.patch(`/v1/time-entries/${body.id}`, { pausedAt: '2026-11-25T10:20:00Z' })
    assert.equal(finished.status, 409)
    // The closed pause still counts when the entry is moved later.
    const longer = await a.api.patch(`/v1/time-entries/${body.id}`, { endsAt: '2026-11-25T12:00:00Z' })
    assert.equal(longer.body.duration, 240 - 30)
  })

  it('resumes with pausedAt null and excludes every paused span', async () => {
    const userId = await newUser(a)
    const { body } = await entry(a, { userId, startsAt: inMinutes(-180) })
    assert.equal((await a.api.patch(`/v1/time-entries/${body.id}`, { pausedAt: inMinutes(-120) })).status, 200)
    const resumed = await a.api.patch(`/v1/time-entries/${body.id}`, { pausedAt: null })
    assert.equal(resumed.status, 200)
    assert.equal(resumed.body.pausedAt, null)
    // Resuming an entry that is not paused changes nothing.
    assert.equal((await a.api.patch(`/v1/time-entries/${body.id}`, { pausedAt: null })).status, 200)
    // A second pause, closed by endsAt: 270 min span − ~120 min − 30 min.
    assert.equal((await a.api.patch(`/v1/time-entries/${body.id}`, { pausedAt: inMinutes(60) })).status, 200)
    const ended = await a.api.patch(`/v1/time-entries/${body.id}`, { endsAt: inMinutes(90) })
    assert.equal(ended.status, 200)
    assert.ok(Math.abs(ended.body.duration - 120) < 1, `duration ${ended.body.duration}`)
    const pauses = await suite.server().knex('timeEntryPauses').where({ timeEntryId: body.id })
    assert.equal(pauses.length, 2)
  })

  it('rejects pause instants before the start or the previous pause (400)', async () => {
    const userId = await newUser(a)
    const { body } = await entry(a, { userId, startsAt: '2026-11-26T08:00:00Z' })
    const early = await a.api.patch(`/v1/time-entries/${body.id}`, { pausedAt: '2026-11-26T07:00:00Z' })
    assert.equal(early.status, 400)
    assert.ok(early.body.data.validationErrors.pausedAt)
    const onCreate = await entry(a, {
      userId: await newUser(a),
      startsAt: '2026-11-26T08:00:00Z',
      pausedAt: '2026-11-26T09:00:00Z'
    })
    assert.equal(onCreate.status, 400)
    assert.equal(onCreate.body.data.validationErrors.pausedAt, 'can only be changed by PATCH')
  })

  it('refuses overlapping entries of one user (409) but allows touching ones and other users', async () => {
    const userId = await newUser(a)
    const first = await entry(a, { userId, startsAt: '2026-11-27T08:00:00Z', endsAt: '2026-11-27T12:00:00Z' })
    assert.equal(first.status, 201)
    const overlapping = await entry(a, { userId, startsAt: '2026-11-27T11:00:00Z', endsAt: '2026-11-27T13:00:00Z' })
    assert.equal(overlapping.status, 409)
    assert.equal(overlapping.body.name, 'Conflict')
    const inside = await entry(a, { userId, startsAt: '2026-11-27T09:00:00Z', endsAt: '2026-11-27T09:00:00Z' })
    assert.equal(inside.status, 409)
    const touching = await entry(a, { userId, startsAt: '2026-11-27T12:00:00Z', endsAt: '2026-11-27T13:00:00Z' })
    assert.equal(touching.status, 201)
    const otherUser = await entry(a, {
      userId: await newUser(a),
      startsAt: '2026-11-27T11:00:00Z',
      endsAt: '2026-11-27T13:00:00Z'
    })
    assert.equal(otherUser.status, 201)
    // A PATCH into an overlap is refused and changes nothing.
    const moved = await a.api.patch(`/v1/time-entries/${touching.body.id}`, { startsAt: '2026-11-27T11:30:00Z' })
    assert.equal(moved.status, 409)
    assert.equal((await a.api.get(`/v1/time-entries/${touching.body.id}`)).body.startsAt, '2026-11-27T12:00:00.000Z')
    const total = await a.api.get('/v1/time-entries', { userId })
    assert.equal(total.body.total, 2)
  })

  it('allows one running entry per user, which extends to +infinity', async () => {
    const userId = await newUser(a)
    const running = await entry(a, { userId, startsAt: '2026-11-30T08:00:00Z' })
    assert.equal(running.status, 201)
    assert.equal(
      (await entry(a, { userId, startsAt: '2026-12-15T08:00:00Z', endsAt: '2026-12-15T09:00:00Z' })).status,
      409
    )
    const second = await entry(a, { userId, startsAt: '2026-11-29T08:00:00Z' })
    assert.equal(second.status, 409)
    assert.match(second.body.message, /running/)
    assert.equal(
      (await entry(a, { userId, startsAt: '2026-11-29T08:00:00Z', endsAt: '2026-11-29T09:00:00Z' })).status,
      201
    )
    // Reopening a finished entry while another one runs is refused as well.
    const finished = await entry(a, { userId, startsAt: '2026-11-28T08:00:00Z', endsAt: '2026-11-28T09:00:00Z' })
    assert.equal((await a.api.patch(`/v1/time-entries/${finished.body.id}`, { endsAt: null })).status, 409)
  })

  // PostgreSQL keeps one plan per connection for the overlap check after five executions (a named
  // statement whose range bounds the planner does not see): every shape of the check, run past
  // that on each pooled connection, must keep finding exactly the entries a fresh plan found.
  it('finds the same overlaps in every shape of the check after many runs (the 24-hour reach, touching ends)', async () => {
    const userId = await newUser(a)
    const at = (day: number, hour: number, minute = 0) =>
      new Date(Date.UTC(2025, 0, 1 + day, hour, minute)).toISOString()
    for (let round = 0; round < 14; round++) {
      const d = 2 * round
      // An entry of the longest length (24 h): one starting an hour before its end overlaps it.
      const long = await entry(a, { userId, startsAt: at(d, 20), endsAt: at(d + 1, 20) })
      assert.equal(long.status, 201, JSON.stringify(long.body))
      const late = await entry(a, { userId, startsAt: at(d + 1, 19), endsAt: at(d + 1, 21) })
      assert.equal(late.status, 409)
      assert.equal(late.body.data.timeEntryId, long.body.id)
      const touching = await entry(a, { userId, startsAt: at(d + 1, 20), endsAt: at(d + 1, 22) })
      assert.equal(touching.status, 201)
      // A running entry starting inside a finished one; then one after both, which runs.
      const runsInside = await entry(a, { userId, startsAt: at(d + 1, 21) })
      assert.equal(runsInside.status, 409)
      assert.equal(runsInside.body.data.timeEntryId, touching.body.id)
      const running = await entry(a, { userId, startsAt: at(d + 1, 23) })
      assert.equal(running.status, 201)
      // PATCH (the check leaves the entry itself out): into the long entry, then within its own span.
      const into = await a.api.patch(`/v1/time-entries/${touching.body.id}`, { startsAt: at(d + 1, 19) })
      assert.equal(into.status, 409)
      assert.equal(into.body.data.timeEntryId, long.body.id)
      const own = await a.api.patch(`/v1/time-entries/${touching.body.id}`, { endsAt: at(d + 1, 22, 30) })
      assert.equal(own.status, 200, JSON.stringify(own.body))
      const tail = await entry(a, { userId, startsAt: at(d + 1, 22), endsAt: at(d + 1, 22, 45) })
      assert.equal(tail.status, 409)
      assert.equal(tail.body.data.timeEntryId, touching.body.id)
      const closed = await a.api.patch(`/v1/time-entries/${running.body.id}`, { endsAt: at(d + 2, 1) })
      assert.equal(closed.status, 200, JSON.stringify(closed.body))
      // Reopened it runs again, and a second running entry is refused naming it.
      assert.equal((await a.api.patch(`/v1/time-entries/${running.body.id}`, { endsAt: null })).status, 200)
      const second = await entry(a, { userId, startsAt: at(d + 2, 3) })
      assert.equal(second.status, 409)
      assert.equal(second.body.data.reason, 'running-entry')
      assert.equal(second.body.data.timeEntryId, running.body.id)
      assert.equal((await a.api.patch(`/v1/time-entries/${running.body.id}`, { endsAt: at(d + 2, 1) })).status, 200)
    }
    assert.equal((await a.api.get('/v1/time-entries', { userId })).body.total, 14 * 3)
  })

  it('lets exactly one of several concurrent running entries of a user through', async () => {
    const userId = await newUser(a)
    const results = await Promise.all(
      [0, 1, 2, 3, 4].map((i) => entry(a, { userId, startsAt: `2026-12-10T0${i}:00:00Z` }))
    )
    assert.deepEqual(results.map((r) => r.status).sort(), [201, 409, 409, 409, 409])
    assert.equal((await a.api.get('/v1/time-entries', { userId })).body.total, 1)
  })

  it("creates an entry and an absence with the user's lock taken by the read of their references (PostgreSQL: no statement of its own)", async () => {
    const knex = suite.server().knex
    const userId = await newUser(a)
    const absenceType = await knex('userAbsenceTypes').where({ companyId: a.id }).orderBy('order').first('id')
    const statementsOf = async (request: () => Promise<{ status: number; text: string }>, status: number) => {
      const seen: string[] = []
      const listen = (query: { sql: string }) => seen.push(query.sql)
      knex.on('query', listen)
      try {
        const res = await request()
        assert.equal(res.status, status, res.text)
      } finally {
        knex.off('query', listen)
      }
      return seen
    }
    const created = [
      ...(await statementsOf(
        () => entry(a, { userId, startsAt: '2026-12-14T07:00:00Z', endsAt: '2026-12-14T08:00:00Z' }),
        201
      )),
      ...(await statementsOf(
        () =>
          a.api.post('/v1/user-absences', {
            userId,
            typeId: absenceType.id,
            startsAt: '2026-12-16T00:00:00Z',
            endsAt: '2026-12-17T00:00:00Z'
          }),
        201
      ))
    ]
    const { body } = await entry(a, { userId, startsAt: '2026-12-15T07:00:00Z', endsAt: '2026-12-15T08:00:00Z' })
    // A PATCH does not read the entry's user as a reference: it takes the lock with a statement of its own.
    const patched = await statementsOf(() => a.api.patch(`/v1/time-entries/${body.id}`, { note: 'x' }), 200)
    const ownLock = (sql: string) => /^select "id" from "users" .* for no key update$/.test(sql)
    const lockingRead = (sql: string) => /row_to_json\(t\) as r from "users" as "t" .* for no key update\)/.test(sql)
    if (suite.db.name === 'postgres') {
      assert.equal(created.filter(ownLock).length, 0, created.join('\n'))
      assert.equal(created.filter(lockingRead).length, 2, created.join('\n'))
      assert.equal(patched.filter(ownLock).length, 1, patched.join('\n'))
    } else assert.ok(![...created, ...patched].some((sql) => /for no key update/i.test(sql)))
  })

  it('handles entries across midnight in the company timezone', async () => {
    const userId = await newUser(a)
    const night = await entry(a, { userId, startsAt: '2026-12-01T22:00:00+01:00', endsAt: '2026-12-02T02:00:00+01:00' })
    assert.equal(night.status, 201)
    assert.equal(night.body.duration, 240)
    assert.equal(
      (await entry(a, { userId, startsAt: '2026-12-02T01:00:00+01:00', endsAt: '2026-12-02T03:00:00+01:00' })).status,
      409
    )
    assert.equal(
      (await entry(a, { userId, startsAt: '2026-12-02T02:00:00+01:00', endsAt: '2026-12-02T06:00:00+01:00' })).status,
      201
    )
  })

  for (const [country, zone] of [
    ['DE', 'Europe/Berlin'],
    ['IT', 'Europe/Rome']
  ] as const) {
    it(`measures real elapsed time on the DST days of ${zone}`, async () => {
      const company = await suite.company({ country })
      const typeIds = await typesOf(company)
      const userId = await newUser(company)
      const post = (startsAt: string, endsAt: string) =>
        company.api.post('/v1/time-entries', { typeId: typeIds.work, userId, startsAt, endsAt })
      // 00:30 to 03:30 local on the 23-hour day is 2 hours.
      const spring = await post('2026-03-29T00:30:00+01:00', '2026-03-29T03:30:00+02:00')
      assert.equal(spring.status, 201)
      assert.equal(spring.body.duration, 120)
      // 01:30 to 02:30 local on the 25-hour day, through the repeated hour, is 2 hours.
      const autumn = await post('2026-10-25T01:30:00+02:00', '2026-10-25T02:30:00+01:00')
      assert.equal(autumn.body.duration, 120)
      const other = await newUser(company)
      const postOther = (startsAt: string, endsAt: string) =>
        company.api.post('/v1/time-entries', { typeId: typeIds.work, userId: other, startsAt, endsAt })
      // 02:15–02:45 happens twice that night: the two entries do not overlap.
      assert.equal((await postOther('2026-10-25T02:15:00+02:00', '2026-10-25T02:45:00+02:00')).status, 201)
      assert.equal((await postOther('2026-10-25T02:15:00+01:00', '2026-10-25T02:45:00+01:00')).status, 201)
      assert.equal((await postOther('2026-10-25T02:30:00+02:00', '2026-10-25T02:20:00+01:00')).status, 409)
    })
  }

  it('validates bodies: order of instants, coordinates, required, read-only and create-only fields', async () => {
    const userId = await newUser(a)
    const backwards = await entry(a, { userId, startsAt: '2026-12-03T10:00:00Z', endsAt: '2026-12-03T09:00:00Z' })
    assert.equal(backwards.status, 400)
    assert.equal(backwards.body.data.validationErrors.endsAt, 'must not be before startsAt')
    const coords = await entry(a, { userId, startsAt: '2026-12-03T10:00:00Z', startLatitude: 91, startLongitude: -181 })
    assert.equal(coords.status, 400)
    assert.ok(coords.body.data.validationErrors.startLatitude)
    assert.ok(coords.body.data.validationErrors.startLongitude)
    const missing = await a.api.post('/v1/time-entries', { startsAt: '2026-12-03T10:00:00Z' })
    assert.equal(missing.status, 400)
    assert.equal(missing.body.data.validationErrors.userId, 'is required')
    assert.equal(missing.body.data.validationErrors.typeId, 'is required')
    const readOnly = await entry(a, { userId, startsAt: '2026-12-03T10:00:00Z', duration: 5 })
    assert.equal(readOnly.body.data.validationErrors.duration, 'is read-only')
    const badTime = await entry(a, { userId, startsAt: '2026-12-03 10:00' })
    assert.equal(badTime.status, 400)
    assert.ok(badTime.body.data.validationErrors.startsAt)

    const created = await entry(a, { userId, startsAt: '2026-12-03T10:00:00Z', endsAt: '2026-12-03T11:00:00Z' })
    const patch = await a.api.patch(`/v1/time-entries/${created.body.id}`, {
      typeId: types.travel,
      userId,
      startLatitude: 1,
      eventId: 1,
      endLatitude: -91
    })
    assert.equal(patch.status, 400)
    const errors = patch.body.data.validationErrors
    for (const field of ['typeId', 'userId', 'startLatitude', 'eventId'])
      assert.equal(errors[field], 'can only be set on create')
    assert.ok(errors.endLatitude)
    assert.equal((await a.api.patch(`/v1/time-entries/${created.body.id}`, { startsAt: null })).status, 400)
    const unchanged = await a.api.get(`/v1/time-entries/${created.body.id}`)
    assert.deepEqual(unchanged.body, created.body)
  })

  it('refuses deactivated types and users (400); an isUnassigned type has no event type', async () => {
    const knex = suite.server().knex
    const userId = await newUser(a)
    const [deactivatedType] = await knex('timeEntryTypes').insert(
      {
        companyId: a.id,
        name: 'Old',
        order: 99,
        isUnassigned: false,
        deactivatedAt: new Date().toISOString(),
        createdAt: new Date().toISOString(),
        updatedAt: new Date().toISOString()
      },
      ['id']
    )
    const typeRes = await entry(a, { userId, typeId: deactivatedType.id, startsAt: '2026-12-04T08:00:00Z' })
    assert.equal(typeRes.status, 400)
    assert.match(typeRes.body.data.validationErrors.typeId, /deactivated/)
    const gone = await newUser(a)
    assert.equal((await a.api.patch(`/v1/users/${gone}`, { deactivatedAt: new Date().toISOString() })).status, 200)
    const userRes = await entry(a, { userId: gone, startsAt: '2026-12-04T08:00:00Z' })
    assert.equal(userRes.status, 400)
    assert.match(userRes.body.data.validationErrors.userId, /deactivated/)
    const general = await entry(a, {
      userId,
      typeId: types.general,
      startsAt: '2026-12-04T08:00:00Z',
      endsAt: '2026-12-04T09:00:00Z'
    })
    assert.equal(general.status, 201)
    assert.equal(general.body.eventTypeId, null)
  })

  it('books an entry on an event: assignmentId and eventTypeId default to the event', async () => {
    const userId = await newUser(a)
    const travelEventType = (
      await suite.server().knex('assignmentEventTypes').where({ companyId: a.id }).orderBy('order')
    )[1].id
    const { assignmentId, eventId } = await workOrder(a, travelEventType)
    const res = await entry(a, {
      userId,
      typeId: types.travel,
      eventId,
      startsAt: '2026-12-11T07:00:00Z',
      endsAt: '2026-12-11T08:00:00Z'
    })
    assert.equal(res.status, 201, res.text)
    assert.equal(res.body.assignmentId, assignmentId)
    assert.equal(res.body.eventId, eventId)
    assert.equal(res.body.eventTypeId, travelEventType)
    assert.equal((await a.api.get('/v1/time-entries', { eventId })).body.total, 1)
    assert.equal((await a.api.get('/v1/time-entries', { assignmentId, eventTypeId: travelEventType })).body.total, 1)
    // An assignment alone is fine too.
    const onAssignment = await entry(a, {
      userId,
      assignmentId,
      startsAt: '2026-12-11T08:00:00Z',
      endsAt: '2026-12-11T09:00:00Z'
    })
    assert.equal(onAssignment.status, 201)
    assert.equal(onAssignment.body.eventId, null)
  })

  it('refuses an assignment or event type that does not match the event, and events on isUnassigned types (400)', async () => {
    const userId = await newUser(a)
    const first = await workOrder(a, types.workEventType)
    const second = await workOrder(a, types.workEventType)
    const mismatch = await entry(a, {
      userId,
      eventId: first.eventId,
      assignmentId: second.assignmentId,
      startsAt: '2026-12-14T07:00:00Z'
    })
    assert.equal(mismatch.status, 400)
    assert.match(mismatch.body.data.validationErrors.assignmentId, /does not match/)
    const travelEventType = (
      await suite.server().knex('assignmentEventTypes').where({ companyId: a.id }).orderBy('order')
    )[1].id
    const wrongType = await entry(a, {
      userId,
      eventId: first.eventId,
      eventTypeId: travelEventType,
      startsAt: '2026-12-14T07:00:00Z'
    })
    assert.equal(wrongType.status, 400)
    assert.match(wrongType.body.data.validationErrors.eventTypeId, /does not match/)
    const unassigned = await entry(a, {
      userId,
      typeId: types.general,
      eventId: first.eventId,
      assignmentId: first.assignmentId,
      startsAt: '2026-12-14T07:00:00Z'
    })
    assert.equal(unassigned.status, 400)
    assert.ok(unassigned.body.data.validationErrors.eventId)
    assert.ok(unassigned.body.data.validationErrors.assignmentId)
    assert.equal((await a.api.get('/v1/time-entries', { userId })).body.total, 0)
  })

  it('keeps booked assignments and events: deleting them answers 409', async () => {
    const userId = await newUser(a)
    const { assignmentId, eventId } = await workOrder(a, types.workEventType)
    const booked = await entry(a, { userId, eventId, startsAt: '2026-12-15T07:00:00Z', endsAt: '2026-12-15T08:00:00Z' })
    assert.equal(booked.status, 201)
    assert.equal((await a.api.delete(`/v1/assignment-events/${eventId}`)).status, 409)
    assert.equal((await a.api.delete(`/v1/assignments/${assignmentId}`)).status, 409)
    assert.equal((await a.api.get(`/v1/assignment-events/${eventId}`)).status, 200)
    // Once the entry is gone the event can be deleted.
    assert.equal((await a.api.delete(`/v1/time-entries/${booked.body.id}`)).status, 204)
    assert.equal((await a.api.delete(`/v1/assignment-events/${eventId}`)).status, 204)
  })

  it('deletes an entry with 204 and its pauses with it', async () => {
    const userId = await newUser(a)
    const { body } = await entry(a, { userId, startsAt: '2026-12-05T08:00:00Z' })
    await a.api.patch(`/v1/time-entries/${body.id}`, { pausedAt: '2026-12-05T09:00:00Z' })
    await a.api.patch(`/v1/time-entries/${body.id}`, { endsAt: '2026-12-05T09:30:00Z' })
    const res = await a.api.delete(`/v1/time-entries/${body.id}`)
    assert.equal(res.status, 204)
    assert.equal(res.text, '')
    assert.equal((await a.api.get(`/v1/time-entries/${body.id}`)).status, 404)
    assert.equal((await suite.server().knex('timeEntryPauses').where({ timeEntryId: body.id })).length, 0)
    // The slot is free again.
    assert.equal(
      (await entry(a, { userId, startsAt: '2026-12-05T08:00:00Z', endsAt: '2026-12-05T09:00:00Z' })).status,
      201
    )
  })

  it('filters by user, type, instants and open entries, and sorts', async () => {
    const userId = await newUser(a)
    await entry(a, { userId, startsAt: '2026-12-07T08:00:00Z', endsAt: '2026-12-07T09:00:00Z', externalId: 'F-1' })
    await entry(a, { userId, typeId: types.travel, startsAt: '2026-12-07T09:00:00Z', endsAt: '2026-12-07T10:00:00Z' })
    await entry(a, { userId, startsAt: '2026-12-08T08:00:00Z' })
    const byUser = await a.api.get('/v1/time-entries', { userId, '$sort[startsAt]': -1 })
    assert.equal(byUser.status, 200)
    assert.deepEqual(
      byUser.body.items.map((e: any) => e.startsAt),
      ['2026-12-08T08:00:00.000Z', '2026-12-07T09:00:00.000Z', '2026-12-07T08:00:00.000Z']
    )
    const open = await a.api.get('/v1/time-entries', { userId, endsAt: 'null' })
    assert.equal(open.body.total, 1)
    const travel = await a.api.get('/v1/time-entries', { userId, typeId: types.travel })
    assert.equal(travel.body.total, 1)
    const range = await a.api.get('/v1/time-entries', {
      userId,
      'startsAt[$gte]': '2026-12-07T08:30:00Z',
      'startsAt[$lt]': '2026-12-08T00:00:00Z'
    })
    assert.equal(range.body.total, 1)
    assert.equal((await a.api.get('/v1/time-entries', { externalId: 'F-1', userId })).body.total, 1)
    const bad = await a.api.get('/v1/time-entries', { 'startsAt[$gt]': 'yesterday' })
    assert.equal(bad.status, 400)
    assert.ok(bad.body.data.validationErrors['startsAt[$gt]'])
    assert.equal((await a.api.get('/v1/time-entries', { duration: 5 })).status, 400)
  })

  it('is isolated: company B can neither see, change, delete nor reference company A entries, users or types', async () => {
    const userId = await newUser(a)
    const created = await entry(a, { userId, startsAt: '2026-12-09T08:00:00Z', endsAt: '2026-12-09T09:00:00Z' })
    const id = created.body.id
    assert.equal((await b.api.get(`/v1/time-entries/${id}`)).status, 404)
    assert.equal((await b.api.patch(`/v1/time-entries/${id}`, { note: 'x' })).status, 404)
    assert.equal((await b.api.delete(`/v1/time-entries/${id}`)).status, 404)
    assert.equal((await b.api.get('/v1/time-entries', { id })).body.total, 0)
    assert.equal((await b.api.get('/v1/time-entries', { userId })).body.total, 0)
    const typesB = await typesOf(b)
    const foreignUser = await b.api.post('/v1/time-entries', {
      typeId: typesB.work,
      userId,
      startsAt: '2026-12-09T10:00:00Z'
    })
    assert.equal(foreignUser.status, 400)
    assert.ok(foreignUser.body.data.validationErrors.userId)
    const userB = await newUser(b)
    const foreignType = await b.api.post('/v1/time-entries', {
      typeId: types.work,
      userId: userB,
      startsAt: '2026-12-09T10:00:00Z'
    })
    assert.equal(foreignType.status, 400)
    assert.ok(foreignType.body.data.validationErrors.typeId)
    const foreignEventType = await b.api.post('/v1/time-entries', {
      typeId: typesB.work,
      userId: userB,
      eventTypeId: types.workEventType,
      startsAt: '2026-12-09T10:00:00Z'
    })
    assert.equal(foreignEventType.status, 400)
    assert.ok(foreignEventType.body.data.validationErrors.eventTypeId)
    const orderA = await workOrder(a, types.workEventType)
    const foreignEvent = await b.api.post('/v1/time-entries', {
      typeId: typesB.work,
      userId: userB,
      eventId: orderA.eventId,
      startsAt: '2026-12-09T10:00:00Z'
    })
    assert.equal(foreignEvent.status, 400)
    assert.ok(foreignEvent.body.data.validationErrors.eventId)
    const foreignAssignment = await b.api.post('/v1/time-entries', {
      typeId: typesB.work,
      userId: userB,
      assignmentId: orderA.assignmentId,
      startsAt: '2026-12-09T10:00:00Z'
    })
    assert.equal(foreignAssignment.status, 400)
    assert.ok(foreignAssignment.body.data.validationErrors.assignmentId)
    // A's entry is untouched and B's user may book the same time.
    assert.deepEqual((await a.api.get(`/v1/time-entries/${id}`)).body, created.body)
    assert.equal(
      (
        await b.api.post('/v1/time-entries', {
          typeId: typesB.work,
          userId: userB,
          startsAt: '2026-12-09T08:00:00Z',
          endsAt: '2026-12-09T09:00:00Z'
        })
      ).status,
      201
    )
  })
})
