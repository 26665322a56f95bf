import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../support/harness'
import { socketClient } from '../support/socket'
import { SheetTypes, sheetFixtures } from '../support/timesheets/fixtures'
import { until } from '../support/wait'
import { addDays, horizonOf } from '../../src/timesheets/periods'
import { createRestClient } from '../../src/client'

const DAY_FIELDS = [
  'approvedAt',
  'approvedById',
  'breakTime',
  'breakTimeErrorDurationMin',
  'breakTimeErrorExpected',
  'breakTimeErrorType',
  'breakTimeErrorValue',
  'createdAt',
  'day',
  'declinedAt',
  'declinedById',
  'declinedNote',
  'duration',
  'durationErrorExpected',
  'durationErrorValue',
  'endsAt',
  'expectedDuration',
  'externalId',
  'id',
  'manipulatedAt',
  'manipulatedById',
  'note',
  'startsAt',
  'status',
  'submittedAt',
  'submittedFirstAt',
  'updatedAt',
  'userId'
]

forEachDatabase('time-sheet-days', (suite) => {
  const f = sheetFixtures(suite)
  let a: TestCompany
  let b: TestCompany
  let types: SheetTypes

  before(async () => {
    a = await suite.company({ country: 'DE' })
    b = await suite.company({ country: 'DE' })
    types = await f.typesOf(a)
  })

  const patch = (id: number, body: Record<string, unknown>, company = a) =>
    company.api.patch(`/v1/time-sheet-days/${id}`, body)

  it('looks a day up by user, creating it with its week and month (full shape, figures in minutes)', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-11-01' })
    await f.entry(a, types, userId, '2026-11-02T08:00:00+01:00', '2026-11-02T12:00:00+01:00')
    await f.entry(a, types, userId, '2026-11-02T12:30:00+01:00', '2026-11-02T17:00:20+01:00')
    const res = await a.api.get('/v1/time-sheet-days/by-user', { userId, day: '2026-11-02' })
    assert.equal(res.status, 200, res.text)
    assert.deepEqual(Object.keys(res.body).sort(), DAY_FIELDS)
    assert.equal(res.body.userId, userId)
    assert.equal(res.body.day, '2026-11-02')
    assert.equal(res.body.status, 'draft')
    assert.equal(res.body.startsAt, '2026-11-02T07:00:00.000Z')
    assert.equal(res.body.endsAt, '2026-11-02T16:00:20.000Z')
    assert.equal(res.body.duration, 510.33)
    assert.equal(res.body.breakTime, 30)
    assert.equal(res.body.expectedDuration, 480)
    assert.equal(res.body.breakTimeErrorType, null)
    assert.equal(res.body.durationErrorValue, null)
    const again = await a.api.get('/v1/time-sheet-days/by-user', { userId, day: '2026-11-02' })
    assert.deepEqual(again.body, res.body)
    const weeks = await a.api.get('/v1/time-sheet-weeks', { userId })
    assert.deepEqual(
      weeks.body.items.map((w: any) => w.weekStart),
      ['2026-11-02']
    )
    const months = await a.api.get('/v1/time-sheet-months', { userId })
    assert.deepEqual(
      months.body.items.map((m: any) => m.month),
      ['2026-11-01']
    )
    assert.equal(months.body.items[0].sumActual, 510.33)
  })

  it('recomputes a stored day when its entries change, and shows open and break errors', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-11-01' })
    const day = await f.day(a, userId, '2026-11-03')
    assert.deepEqual([day.duration, day.startsAt, day.breakTime], [0, null, null])
    const first = await f.entry(a, types, userId, '2026-11-03T06:00:00+01:00', '2026-11-03T13:00:00+01:00')
    let got = (await a.api.get(`/v1/time-sheet-days/${day.id}`)).body
    assert.deepEqual(
      [
        got.duration,
        got.breakTime,
        got.breakTimeErrorType,
        got.breakTimeErrorExpected,
        got.breakTimeErrorValue,
        got.breakTimeErrorDurationMin
      ],
      [420, 0, 'missing', 30, 0, 360]
    )
    await a.api.patch(`/v1/time-entries/${first.id}`, { endsAt: '2026-11-03T10:00:00+01:00' })
    await f.entry(a, types, userId, '2026-11-03T10:20:00+01:00', '2026-11-03T17:30:00+01:00')
    got = (await a.api.get(`/v1/time-sheet-days/${day.id}`)).body
    assert.deepEqual(
      [got.duration, got.breakTime, got.breakTimeErrorType, got.breakTimeErrorExpected, got.durationErrorExpected],
      [670, 20, 'tooShort', 45, 600]
    )
    assert.equal(got.durationErrorValue, 670)
    assert.equal((await a.api.delete(`/v1/time-entries/${first.id}`)).status, 204)
    got = (await a.api.get(`/v1/time-sheet-days/${day.id}`)).body
    assert.deepEqual(
      [got.duration, got.startsAt, got.breakTimeErrorType, got.durationErrorValue],
      [430, '2026-11-03T09:20:00.000Z', 'missing', null]
    )
  })

  it('lets approved absences set the target and credit worked time', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-11-01' })
    await f.absence(a, types.vacation, userId, '2026-11-04T00:00:00+01:00', '2026-11-05T00:00:00+01:00')
    await f.absence(a, types.training, userId, '2026-11-05T00:00:00+01:00', '2026-11-06T00:00:00+01:00')
    await f.absence(a, types.hourly, userId, '2026-11-06T08:00:00+01:00', '2026-11-06T10:30:00+01:00')
    const vacation = await f.day(a, userId, '2026-11-04')
    const training = await f.day(a, userId, '2026-11-05')
    const doctor = await f.day(a, userId, '2026-11-06')
    assert.deepEqual([vacation.expectedDuration, vacation.duration], [0, 0])
    assert.deepEqual([training.expectedDuration, training.duration, training.breakTimeErrorType], [480, 480, null])
    assert.deepEqual([doctor.expectedDuration, doctor.duration], [330, 0])
    // Only while approved: a draft request changes nothing.
    const draft = await a.api.post('/v1/user-absences', {
      typeId: types.vacation,
      userId,
      startsAt: '2026-11-09T00:00:00+01:00',
      endsAt: '2026-11-10T00:00:00+01:00'
    })
    assert.equal(draft.status, 201)
    const day = await f.day(a, userId, '2026-11-09')
    assert.equal(day.expectedDuration, 480)
    await a.api.patch(`/v1/user-absences/${draft.body.id}`, {
      requestedAt: '2026-11-01T09:00:00Z',
      approvedAt: '2026-11-01T10:00:00Z'
    })
    assert.equal((await a.api.get(`/v1/time-sheet-days/${day.id}`)).body.expectedDuration, 0)
  })

  it('stores manual overrides with who and when; null returns to the computed value', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-11-01' })
    await f.entry(a, types, userId, '2026-11-10T07:00:00+01:00', '2026-11-10T15:00:00+01:00')
    const day = await f.day(a, userId, '2026-11-10')
    assert.equal(day.duration, 480)
    const res = await patch(day.id, { duration: 450.5, breakTime: 30, startsAt: '2026-11-10T06:45:00+01:00' })
    assert.equal(res.status, 200, res.text)
    assert.deepEqual(
      [res.body.duration, res.body.breakTime, res.body.startsAt, res.body.endsAt],
      [450.5, 30, '2026-11-10T05:45:00.000Z', '2026-11-10T14:00:00.000Z']
    )
    assert.equal(res.body.manipulatedById, a.adminUserId)
    assert.ok(res.body.manipulatedAt)
    // The month adds the overridden figure.
    assert.equal((await f.month(a, userId, '2026-11-01')).sumActual, 450.5)
    const partly = await patch(day.id, { duration: null })
    assert.deepEqual([partly.body.duration, partly.body.breakTime], [480, 30])
    assert.ok(partly.body.manipulatedAt)
    const back = await patch(day.id, { breakTime: null, startsAt: null })
    assert.deepEqual(
      [back.body.breakTime, back.body.startsAt, back.body.manipulatedAt, back.body.manipulatedById],
      [0, '2026-11-10T06:00:00.000Z', null, null]
    )
  })

  it('refuses invalid overrides with 400 naming the field', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-11-01' })
    const day = await f.day(a, userId, '2026-11-11')
    const cases: [Record<string, unknown>, string][] = [
      [{ startsAt: '2026-11-12T08:00:00+01:00' }, 'startsAt'],
      [{ startsAt: '2026-11-11T08:00:00+01:00', endsAt: '2026-11-11T07:00:00+01:00' }, 'endsAt'],
      [{ breakTime: 1441 }, 'breakTime'],
      [{ duration: -1 }, 'duration'],
      [{ expectedDuration: 5 }, 'expectedDuration'],
      [{ userId }, 'userId'],
      [{ status: 'done' }, 'status'],
      [{ status: null }, 'status']
    ]
    for (const [body, field] of cases) {
      const res = await patch(day.id, body)
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`)
      assert.ok(res.body.data.validationErrors[field], `${field}: ${res.text}`)
    }
    assert.equal((await a.api.get(`/v1/time-sheet-days/${day.id}`)).body.updatedAt, day.updatedAt)
  })

  it('moves through the workflow with timestamps and deciders; other moves are 409', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-11-01' })
    const day = await f.day(a, userId, '2026-11-12')
    assert.equal((await patch(day.id, { status: 'approved' })).status, 409)
    const submitted = await patch(day.id, { status: 'submitted' })
    assert.equal(submitted.status, 200, submitted.text)
    assert.ok(submitted.body.submittedAt)
    assert.equal(submitted.body.submittedFirstAt, submitted.body.submittedAt)
    const declined = await patch(day.id, { status: 'declined', declinedNote: 'Pause fehlt' })
    assert.equal(declined.status, 200, declined.text)
    assert.deepEqual([declined.body.declinedById, declined.body.declinedNote], [a.adminUserId, 'Pause fehlt'])
    assert.ok(declined.body.declinedAt)
    const again = await patch(day.id, { status: 'submitted' })
    assert.deepEqual(
      [again.body.declinedAt, again.body.declinedById, again.body.submittedFirstAt],
      [null, null, submitted.body.submittedFirstAt]
    )
    assert.ok(again.body.submittedAt >= submitted.body.submittedAt)
    const approved = await patch(day.id, { status: 'approved' })
    assert.deepEqual([approved.body.status, approved.body.approvedById], ['approved', a.adminUserId])
    const refused = await patch(day.id, { status: 'declined' })
    assert.equal(refused.status, 409)
    assert.equal(refused.body.name, 'Conflict')
    assert.ok(refused.body.data.validationErrors.status)
    // The same status is no move.
    assert.equal((await patch(day.id, { status: 'approved' })).status, 200)
    const reopened = await patch(day.id, { status: 'draft' })
    assert.deepEqual(
      [reopened.body.status, reopened.body.approvedAt, reopened.body.approvedById],
      ['draft', null, null]
    )
  })

  it('refuses field changes on a submitted or approved day (409) but not externalId or a decline note', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-11-01' })
    const day = await f.day(a, userId, '2026-11-13')
    await patch(day.id, { status: 'submitted', note: 'Baustelle' })
    for (const body of [{ note: 'changed' }, { duration: 60 }, { status: 'draft', breakTime: 10 }]) {
      const res = await patch(day.id, body)
      assert.equal(res.status, 409, JSON.stringify(body))
      assert.ok(Object.keys(res.body.data.validationErrors).some((k) => k in body && k !== 'status'))
    }
    assert.equal((await patch(day.id, { note: 'Baustelle', externalId: 'EXT-13' })).status, 200)
    const declined = await patch(day.id, { status: 'declined', declinedNote: 'bitte prüfen' })
    assert.equal(declined.status, 200, declined.text)
    await patch(day.id, { status: 'submitted' })
    await patch(day.id, { status: 'approved' })
    assert.equal((await patch(day.id, { startsAt: '2026-11-13T08:00:00+01:00' })).status, 409)
    const got = await a.api.get(`/v1/time-sheet-days/${day.id}`)
    assert.deepEqual([got.body.note, got.body.externalId, got.body.startsAt], ['Baustelle', 'EXT-13', null])
  })

  it('refuses entry and absence writes on an approved day (409) and keeps its figures; a submitted day follows its entries', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-11-01' })
    const entry = await f.entry(a, types, userId, '2026-11-16T08:00:00+01:00', '2026-11-16T12:00:00+01:00')
    const day = await f.day(a, userId, '2026-11-16')
    await patch(day.id, { status: 'submitted' })
    await f.entry(a, types, userId, '2026-11-16T13:00:00+01:00', '2026-11-16T14:00:00+01:00')
    assert.equal((await a.api.get(`/v1/time-sheet-days/${day.id}`)).body.duration, 300)
    await patch(day.id, { status: 'approved' })
    // Posted directly: f.entry expects a 201.
    const postEntry = (startsAt: string, endsAt: string) =>
      a.api.post('/v1/time-entries', { typeId: types.work, userId, startsAt, endsAt })
    const refused = await postEntry('2026-11-16T15:00:00+01:00', '2026-11-16T16:00:00+01:00')
    assert.equal(refused.status, 409, refused.text)
    assert.deepEqual(refused.body.data.days, ['2026-11-16'])
    // An entry that also overlaps one of the approved day is refused for the day first (one
    // statement reads both; the day's refusal is the one to act on).
    const both = await postEntry('2026-11-16T11:00:00+01:00', '2026-11-16T12:30:00+01:00')
    assert.equal(both.status, 409, both.text)
    assert.deepEqual([both.body.data.reason, both.body.data.days], ['day-approved', ['2026-11-16']])
    assert.equal(
      (await a.api.patch(`/v1/time-entries/${entry.id}`, { endsAt: '2026-11-16T11:00:00+01:00' })).status,
      409
    )
    assert.equal((await a.api.delete(`/v1/time-entries/${entry.id}`)).status, 409)
    // Moving an entry onto the approved day is refused as well.
    const other = await f.entry(a, types, userId, '2026-11-17T08:00:00+01:00', '2026-11-17T09:00:00+01:00')
    assert.equal(
      (
        await a.api.patch(`/v1/time-entries/${other.id}`, {
          startsAt: '2026-11-16T18:00:00+01:00',
          endsAt: '2026-11-16T19:00:00+01:00'
        })
      ).status,
      409
    )
    const at = new Date().toISOString()
    const absence = await a.api.post('/v1/user-absences', {
      typeId: types.sick,
      userId,
      startsAt: '2026-11-16T00:00:00+01:00',
      endsAt: '2026-11-17T00:00:00+01:00',
      requestedAt: at
    })
    assert.equal(absence.status, 409, absence.text)
    assert.equal((await a.api.get(`/v1/time-sheet-days/${day.id}`)).body.duration, 300)
    await patch(day.id, { status: 'draft' })
    assert.equal((await a.api.delete(`/v1/time-entries/${entry.id}`)).status, 204)
    assert.equal((await a.api.get(`/v1/time-sheet-days/${day.id}`)).body.duration, 60)
  })

  it('refuses to submit a day with a running entry (409)', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-11-01' })
    const running = await f.entry(a, types, userId, '2026-11-18T08:00:00+01:00', null)
    const day = await f.day(a, userId, '2026-11-18')
    const res = await patch(day.id, { status: 'submitted' })
    assert.equal(res.status, 409, res.text)
    assert.equal(res.body.data.timeEntryId, running.id)
    await a.api.patch(`/v1/time-entries/${running.id}`, { endsAt: '2026-11-18T16:00:00+01:00' })
    assert.equal((await patch(day.id, { status: 'submitted' })).status, 200)
  })

  it('creates a day by POST (201); a second one for the user and day is 409', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-10-01' })
    await f.entry(a, types, userId, '2026-10-05T08:00:00+02:00', '2026-10-05T16:00:00+02:00')
    const res = await a.api.post('/v1/time-sheet-days', {
      userId,
      day: '2026-10-05',
      note: 'Montage',
      breakTime: 30,
      status: 'submitted',
      externalId: 'D-1'
    })
    assert.equal(res.status, 201, res.text)
    assert.deepEqual(Object.keys(res.body).sort(), DAY_FIELDS)
    assert.deepEqual(
      [res.body.status, res.body.note, res.body.breakTime, res.body.duration, res.body.manipulatedById],
      ['submitted', 'Montage', 30, 480, a.adminUserId]
    )
    assert.ok(res.body.submittedFirstAt)
    const twice = await a.api.post('/v1/time-sheet-days', { userId, day: '2026-10-05' })
    assert.equal(twice.status, 409)
    assert.ok(twice.body.data.validationErrors.day)
    const month = await f.month(a, userId, '2026-10-01')
    assert.deepEqual([month.sumActual, month.submittedCount], [480, 1])
  })

  it('refuses bad creates: required fields, illegal initial status, beyond the horizon', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-10-01' })
    const missing = await a.api.post('/v1/time-sheet-days', { note: 'x' })
    assert.equal(missing.status, 400)
    assert.deepEqual(Object.keys(missing.body.data.validationErrors).sort(), ['day', 'userId'])
    const approved = await a.api.post('/v1/time-sheet-days', { userId, day: '2026-10-06', status: 'approved' })
    assert.equal(approved.status, 409)
    const horizon = horizonOf('Europe/Berlin')
    assert.equal((await a.api.post('/v1/time-sheet-days', { userId, day: addDays(horizon, 1) })).status, 400)
    assert.equal((await a.api.post('/v1/time-sheet-days', { userId, day: '1999-12-31' })).status, 400)
    const read = await a.api.post('/v1/time-sheet-days', {
      userId,
      day: '2026-10-07',
      expectedDuration: 1,
      submittedAt: '2026-10-07T10:00:00Z'
    })
    assert.equal(read.status, 400)
    assert.deepEqual(read.body.data.validationErrors, { expectedDuration: 'is read-only', submittedAt: 'is read-only' })
    assert.equal((await a.api.get('/v1/time-sheet-days', { userId })).body.total, 0)
  })

  it('validates the by-user query: required, strict, within 3 months; unknown users are 404', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-11-01' })
    const horizon = horizonOf('Europe/Berlin')
    const cases: [Record<string, string | number>, number, string][] = [
      [{ userId }, 400, 'day'],
      [{ day: '2026-11-02' }, 400, 'userId'],
      [{ userId, day: '2026-11-31' }, 400, 'day'],
      [{ userId: 'x', day: '2026-11-02' }, 400, 'userId'],
      [{ userId, day: '2026-11-02', size: 5 }, 400, 'size'],
      [{ userId, day: addDays(horizon, 1) }, 400, 'day']
    ]
    for (const [query, status, field] of cases) {
      const res = await a.api.get('/v1/time-sheet-days/by-user', query)
      assert.equal(res.status, status, `${JSON.stringify(query)}: ${res.text}`)
      assert.ok(res.body.data.validationErrors[field], `${field}: ${res.text}`)
    }
    assert.equal((await a.api.get('/v1/time-sheet-days/by-user', { userId, day: horizon })).status, 200)
    assert.equal(
      (await a.api.get('/v1/time-sheet-days/by-user', { userId: 2147483000, day: '2026-11-02' })).status,
      404
    )
  })

  it('lists with the spec filters and sorts', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-09-01' })
    for (const day of ['2026-09-01', '2026-09-02', '2026-09-03']) await f.day(a, userId, day)
    const second = await f.day(a, userId, '2026-09-02')
    await patch(second.id, { status: 'submitted' })
    const range = await a.api.get('/v1/time-sheet-days', { userId, 'day[$gte]': '2026-09-02', '$sort[day]': -1 })
    assert.deepEqual(
      range.body.items.map((d: any) => d.day),
      ['2026-09-03', '2026-09-02']
    )
    const submitted = await a.api.get('/v1/time-sheet-days', { userId, status: 'submitted' })
    assert.deepEqual(
      submitted.body.items.map((d: any) => d.id),
      [second.id]
    )
    assert.equal((await a.api.get('/v1/time-sheet-days', { userId, 'submittedAt[$ne]': 'null' })).body.total, 1)
    assert.equal((await a.api.get('/v1/time-sheet-days', { userId, 'day[$gt]': '2026-13-01' })).status, 400)
    assert.equal((await a.api.get('/v1/time-sheet-days', { duration: 5 })).status, 400)
  })

  it('is reachable through the typed client, by-user look-ups included', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-09-01' })
    const client = createRestClient(suite.server().url, a.apiKey)
    const day = await client.service('v1/time-sheet-days/by-user').find({ query: { userId, day: '2026-09-08' } })
    const expected: number | null = day.expectedDuration
    assert.deepEqual([day.day, expected], ['2026-09-08', 480])
    const week = await client
      .service('v1/time-sheet-weeks/by-user')
      .find({ query: { userId, weekStart: '2026-09-07' } })
    const patched = await client.service('v1/time-sheet-weeks').patch(week.id, { status: 'submitted' })
    assert.equal(patched.submittedCount, 7)
    const month = await client.service('v1/time-sheet-months/by-user').find({ query: { userId, month: '2026-09-01' } })
    assert.equal((await client.service('v1/time-sheet-months').patch(month.id, { carryInManual: 15 })).carryIn, 15)
    await assert.rejects(
      client.service('v1/time-sheet-days/by-user').find({ query: { userId, day: '2026-09-09T00:00:00Z' } }),
      (e: any) => e.code === 400
    )
  })

  it('offers no DELETE or PUT (405)', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-09-01' })
    const day = await f.day(a, userId, '2026-09-07')
    assert.equal((await a.api.delete(`/v1/time-sheet-days/${day.id}`)).status, 405)
    assert.equal((await a.api.put(`/v1/time-sheet-days/${day.id}`, {})).status, 405)
    assert.equal((await a.api.post('/v1/time-sheet-days/by-user', {})).status, 405)
  })

  it('announces days created on demand to the company socket only', async () => {
    const sa = socketClient(suite.server().url)
    const sb = socketClient(suite.server().url)
    try {
      await sa.client.authenticate({ strategy: 'apiKey', apiKey: a.apiKey })
      await sb.client.authenticate({ strategy: 'apiKey', apiKey: b.apiKey })
      const seenA: string[] = []
      const seenB: string[] = []
      sa.socket.onAny((event: string, data: any) =>
        seenA.push(`${event} ${data?.day ?? data?.weekStart ?? data?.month}`)
      )
      sb.socket.onAny((event: string) => seenB.push(event))
      const userId = await f.newUser(a, { employedFrom: '2026-08-01' })
      await f.day(a, userId, '2026-08-03')
      const expected = [
        'v1/time-sheet-days created 2026-08-03',
        'v1/time-sheet-weeks created 2026-08-03',
        'v1/time-sheet-months created 2026-08-01'
      ]
      await until(() => expected.every((e) => seenA.includes(e)))
      for (const event of expected) assert.ok(seenA.includes(event), `${event} in ${seenA}`)
      assert.deepEqual(
        seenB.filter((e) => e.startsWith('v1/time-sheet')),
        []
      )
    } finally {
      sa.close()
      sb.close()
    }
  })

  it("is isolated: company B can neither see, change nor reference company A's days", async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-08-01' })
    const day = await f.day(a, userId, '2026-08-04')
    assert.equal((await b.api.get(`/v1/time-sheet-days/${day.id}`)).status, 404)
    assert.equal((await b.api.patch(`/v1/time-sheet-days/${day.id}`, { note: 'B' })).status, 404)
    assert.equal((await b.api.get('/v1/time-sheet-days', { userId })).body.total, 0)
    assert.equal((await b.api.get('/v1/time-sheet-days', { id: day.id })).body.total, 0)
    assert.equal((await b.api.get('/v1/time-sheet-days/by-user', { userId, day: '2026-08-04' })).status, 404)
    const post = await b.api.post('/v1/time-sheet-days', { userId, day: '2026-08-05' })
    assert.equal(post.status, 400)
    assert.ok(post.body.data.validationErrors.userId)
    assert.equal((await a.api.get(`/v1/time-sheet-days/${day.id}`)).body.note, null)
    assert.equal((await a.api.get('/v1/time-sheet-days', { userId })).body.total, 1)
  })
  it("announces the figures a clocked entry or an absence changes: 'patched' for its day, week and month, B hears nothing", async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-09-01' })
    const day = await f.day(a, userId, '2026-09-15')
    const week = await f.week(a, userId, '2026-09-14')
    const month = await f.month(a, userId, '2026-09-01')
    const listen = async (company: TestCompany) => {
      const socket = socketClient(suite.server().url)
      await socket.client.authenticate({ strategy: 'apiKey', apiKey: company.apiKey })
      const heard: string[] = []
      for (const path of ['time-sheet-days', 'time-sheet-weeks', 'time-sheet-months']) {
        socket.client.service(`v1/${path}`).on('patched', (row: any) => {
          if (row.userId === userId) heard.push(`${path} ${row.id} ${row.sumActual ?? row.duration}`)
        })
      }
      return { socket, heard }
    }
    const ours = await listen(a)
    const theirs = await listen(b)
    try {
      const entry = await f.entry(a, types, userId, '2026-09-15T07:00:00+02:00', '2026-09-15T12:00:00+02:00')
      const expect = async (wanted: string[]) => {
        await until(() => ours.heard.length >= wanted.length)
        await new Promise((r) => setTimeout(r, 100)) // nothing more arrives
        assert.deepEqual(ours.heard.splice(0).sort(), wanted.sort())
      }
      await expect([
        `time-sheet-days ${day.id} 300`,
        `time-sheet-weeks ${week.id} 300`,
        `time-sheet-months ${month.id} 300`
      ])
      assert.equal((await a.api.delete(`/v1/time-entries/${entry.id}`)).status, 204)
      await expect([`time-sheet-days ${day.id} 0`, `time-sheet-weeks ${week.id} 0`, `time-sheet-months ${month.id} 0`])
      await f.absence(a, types.training, userId, '2026-09-15T00:00:00+02:00', '2026-09-16T00:00:00+02:00')
      await expect([
        `time-sheet-days ${day.id} 480`,
        `time-sheet-weeks ${week.id} 480`,
        `time-sheet-months ${month.id} 480`
      ])
      // A write that changes no figure announces nothing beyond its own record.
      assert.equal((await a.api.patch(`/v1/time-sheet-days/${day.id}`, { note: 'Schulung' })).status, 200)
      await expect([`time-sheet-days ${day.id} 480`])
      assert.deepEqual(theirs.heard, [])
    } finally {
      ours.socket.close()
      theirs.socket.close()
    }
  })
})
