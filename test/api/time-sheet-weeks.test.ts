import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../support/harness'
import { socketClient } from '../support/socket'
import { SheetTypes, sheetFixtures } from '../support/timesheets/fixtures'
import { until } from '../support/wait'
import { addDays, horizonOf, weekStartOf } from '../../src/timesheets/periods'

const WEEK_FIELDS = [
  'approvedAt',
  'approvedCount',
  'computedAt',
  'createdAt',
  'declinedAt',
  'declinedCount',
  'externalId',
  'hasMultipleDayTimeEntryCount',
  'hasOpenTimeEntryCount',
  'id',
  'openTimeEntryEarliestDay',
  'recomputableCount',
  'status',
  'submittedAt',
  'submittedCount',
  'sumActual',
  'sumTarget',
  'updatedAt',
  'userId',
  'weekStart'
]

const WEEK = ['2026-10-12', '2026-10-13', '2026-10-14', '2026-10-15', '2026-10-16', '2026-10-17', '2026-10-18']

forEachDatabase('time-sheet-weeks', (suite) => {
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
    company.api.patch(`/v1/time-sheet-weeks/${id}`, body)
  const daysOf = async (userId: number) =>
    (await a.api.get('/v1/time-sheet-days', { userId, size: 20, '$sort[day]': 1 })).body.items as any[]

  it('looks a week up by user: figures over all seven days, with or without day rows (full shape)', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-10-01' })
    await f.entry(a, types, userId, '2026-10-12T08:00:00+02:00', '2026-10-12T17:00:00+02:00')
    await f.entry(a, types, userId, '2026-10-17T20:00:00+02:00', '2026-10-18T02:00:00+02:00')
    await f.entry(a, types, userId, '2026-10-18T08:00:00+02:00', null)
    const res = await a.api.get('/v1/time-sheet-weeks/by-user', { userId, weekStart: '2026-10-12' })
    assert.equal(res.status, 200, res.text)
    assert.deepEqual(Object.keys(res.body).sort(), WEEK_FIELDS)
    assert.deepEqual(
      [res.body.weekStart, res.body.status, res.body.sumActual, res.body.sumTarget],
      ['2026-10-12', 'draft', 540 + 360, 2400]
    )
    assert.deepEqual(
      [res.body.hasMultipleDayTimeEntryCount, res.body.hasOpenTimeEntryCount, res.body.openTimeEntryEarliestDay],
      [1, 1, '2026-10-18']
    )
    assert.deepEqual(
      [res.body.submittedCount, res.body.approvedCount, res.body.declinedCount, res.body.recomputableCount],
      [0, 0, 0, 0]
    )
    assert.ok(res.body.computedAt)
    // No day rows were needed; the month rows of the week's days exist.
    assert.deepEqual(await daysOf(userId), [])
    assert.deepEqual(
      (await a.api.get('/v1/time-sheet-months', { userId })).body.items.map((m: any) => m.month),
      ['2026-10-01']
    )
    const spanning = await f.week(a, userId, '2026-10-26')
    assert.equal(spanning.sumTarget, 2400)
    assert.deepEqual(
      (await a.api.get('/v1/time-sheet-months', { userId })).body.items.map((m: any) => m.month),
      ['2026-10-01', '2026-11-01']
    )
  })

  it('validates the by-user query: a Monday within 3 months, a known user', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-10-01' })
    const tuesday = await a.api.get('/v1/time-sheet-weeks/by-user', { userId, weekStart: '2026-10-13' })
    assert.equal(tuesday.status, 400)
    assert.match(tuesday.body.data.validationErrors.weekStart, /Monday/)
    const lastMonday = weekStartOf(horizonOf('Europe/Berlin'))
    assert.equal((await a.api.get('/v1/time-sheet-weeks/by-user', { userId, weekStart: lastMonday })).status, 200)
    assert.equal(
      (await a.api.get('/v1/time-sheet-weeks/by-user', { userId, weekStart: addDays(lastMonday, 7) })).status,
      400
    )
    assert.equal(
      (await a.api.get('/v1/time-sheet-weeks/by-user', { userId, weekStart: '2026-10-12', day: '2026-10-12' })).status,
      400
    )
    assert.equal(
      (await a.api.get('/v1/time-sheet-weeks/by-user', { userId: 2147483000, weekStart: '2026-10-12' })).status,
      404
    )
  })

  it('submits every day of the week in one PATCH, creating the missing day rows', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-10-01' })
    await f.entry(a, types, userId, '2026-10-13T08:00:00+02:00', '2026-10-13T12:00:00+02:00')
    const monday = await f.day(a, userId, '2026-10-12')
    const week = await f.week(a, userId, '2026-10-12')
    const res = await patch(week.id, { status: 'submitted', externalId: 'W-42' })
    assert.equal(res.status, 200, res.text)
    assert.deepEqual(
      [res.body.status, res.body.submittedCount, res.body.externalId, res.body.sumActual],
      ['submitted', 7, 'W-42', 240]
    )
    assert.ok(res.body.submittedAt)
    const days = await daysOf(userId)
    assert.deepEqual(
      days.map((d) => d.day),
      WEEK
    )
    assert.ok(days.every((d) => d.status === 'submitted' && d.submittedAt))
    assert.equal(days[0].id, monday.id)
    assert.equal(days[1].duration, 240)
  })

  it('approves a submitted week; approving needs every day submitted (409 naming the others, nothing changes)', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-10-01' })
    const week = await f.week(a, userId, '2026-10-12')
    assert.equal((await patch(week.id, { status: 'approved' })).status, 409)
    await patch(week.id, { status: 'submitted' })
    const days = await daysOf(userId)
    await a.api.patch(`/v1/time-sheet-days/${days[2].id}`, { status: 'draft' })
    // The week is draft again (a day is draft): approving it is not a move of the table.
    assert.equal((await a.api.get(`/v1/time-sheet-weeks/${week.id}`)).body.status, 'draft')
    const refused = await patch(week.id, { status: 'approved' })
    assert.equal(refused.status, 409)
    await a.api.patch(`/v1/time-sheet-days/${days[2].id}`, { status: 'submitted' })
    await a.api.patch(`/v1/time-sheet-days/${days[3].id}`, { status: 'declined' })
    const declinedWeek = await a.api.get(`/v1/time-sheet-weeks/${week.id}`)
    assert.deepEqual([declinedWeek.body.status, declinedWeek.body.declinedCount], ['declined', 1])
    // declined → submitted resubmits the declined day only.
    const resubmitted = await patch(week.id, { status: 'submitted' })
    assert.deepEqual([resubmitted.body.status, resubmitted.body.submittedCount], ['submitted', 7])
    await a.api.patch(`/v1/time-sheet-days/${days[4].id}`, { status: 'draft' })
    await a.api.patch(`/v1/time-sheet-days/${days[4].id}`, { status: 'submitted' })
    await a.api.patch(`/v1/time-sheet-days/${days[0].id}`, { status: 'approved' })
    const approved = await patch(week.id, { status: 'approved' })
    assert.equal(approved.status, 200, approved.text)
    assert.deepEqual(
      [approved.body.status, approved.body.approvedCount, approved.body.submittedCount],
      ['approved', 7, 0]
    )
    assert.ok(approved.body.approvedAt)
    assert.ok((await daysOf(userId)).every((d) => d.status === 'approved' && d.approvedById === a.adminUserId))
  })

  it('names the days that block an approval', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-10-01' })
    const week = await f.week(a, userId, '2026-10-12')
    await patch(week.id, { status: 'submitted' })
    const days = await daysOf(userId)
    await a.api.patch(`/v1/time-sheet-days/${days[5].id}`, { status: 'declined' })
    // From declined the table allows submitted or draft only.
    assert.equal((await patch(week.id, { status: 'approved' })).status, 409)
    await a.api.patch(`/v1/time-sheet-days/${days[5].id}`, { status: 'draft' })
    await a.api.patch(`/v1/time-sheet-days/${days[6].id}`, { status: 'draft' })
    await a.api.patch(`/v1/time-sheet-days/${days[5].id}`, { status: 'submitted' })
    await a.api.patch(`/v1/time-sheet-days/${days[6].id}`, { status: 'submitted' })
    await a.api.patch(`/v1/time-sheet-days/${days[6].id}`, { status: 'declined' })
    await a.api.patch(`/v1/time-sheet-days/${days[6].id}`, { status: 'submitted' })
    assert.equal((await patch(week.id, { status: 'approved' })).status, 200)
  })

  it('is all or nothing: a running entry refuses the submission and no day moves', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-10-01' })
    await f.entry(a, types, userId, '2026-10-16T08:00:00+02:00', null)
    const week = await f.week(a, userId, '2026-10-12')
    const res = await patch(week.id, { status: 'submitted', externalId: 'never' })
    assert.equal(res.status, 409, res.text)
    assert.ok(res.body.data.timeEntryId)
    assert.deepEqual(await daysOf(userId), [])
    const after = (await a.api.get(`/v1/time-sheet-weeks/${week.id}`)).body
    assert.deepEqual([after.status, after.externalId, after.updatedAt], ['draft', null, week.updatedAt])
  })

  it('declines the submitted days and reopens every day with draft', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-10-01' })
    const week = await f.week(a, userId, '2026-10-12')
    await patch(week.id, { status: 'submitted' })
    const declined = await patch(week.id, { status: 'declined' })
    assert.deepEqual([declined.body.status, declined.body.declinedCount], ['declined', 7])
    assert.ok((await daysOf(userId)).every((d) => d.declinedById === a.adminUserId))
    const draft = await patch(week.id, { status: 'draft' })
    assert.deepEqual(
      [draft.body.status, draft.body.declinedCount, draft.body.declinedAt, draft.body.submittedAt],
      ['draft', 0, null, null]
    )
    assert.ok((await daysOf(userId)).every((d) => d.status === 'draft' && d.declinedAt === null))
    assert.equal((await patch(week.id, { status: 'declined' })).status, 409)
  })

  it('refuses to reopen a week in a locked month (409)', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-10-01' })
    const month = await f.month(a, userId, '2026-10-01')
    assert.equal((await a.api.patch(`/v1/time-sheet-months/${month.id}`, { status: 'submitted' })).status, 200)
    assert.equal((await a.api.patch(`/v1/time-sheet-months/${month.id}`, { status: 'approved' })).status, 200)
    const week = await f.week(a, userId, '2026-10-12')
    assert.equal(week.status, 'approved')
    const res = await patch(week.id, { status: 'draft' })
    assert.equal(res.status, 409, res.text)
    assert.deepEqual(res.body.data.months, ['2026-10-01'])
    assert.ok((await daysOf(userId)).every((d) => d.status === 'approved'))
  })

  it("sends an event for each day a week move changes ('created' for a day row the move creates)", async () => {
    const socket = socketClient(suite.server().url)
    try {
      await socket.client.authenticate({ strategy: 'apiKey', apiKey: a.apiKey })
      const userId = await f.newUser(a, { employedFrom: '2026-10-01' })
      const week = await f.week(a, userId, '2026-10-12')
      const patched: string[] = []
      // One event per row and request (CONTRACT §13.1): a day row the move creates is `created`, with its new status.
      for (const event of ['created', 'patched'])
        socket.client.service('v1/time-sheet-days').on(event, (day: any) => {
          if (day.userId === userId) patched.push(`${day.day} ${day.status}`)
        })
      await patch(week.id, { status: 'submitted' })
      await until(() => patched.length >= 7)
      assert.deepEqual(
        patched.sort(),
        WEEK.map((day) => `${day} submitted`)
      )
    } finally {
      socket.close()
    }
  })

  it('filters, sorts and offers no POST, DELETE or PUT (405); writes only status and externalId', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-09-01' })
    const first = await f.week(a, userId, '2026-09-07')
    await f.week(a, userId, '2026-09-14')
    const list = await a.api.get('/v1/time-sheet-weeks', {
      userId,
      'weekStart[$gte]': '2026-09-07',
      '$sort[weekStart]': -1
    })
    assert.deepEqual(
      list.body.items.map((w: any) => w.weekStart),
      ['2026-09-14', '2026-09-07']
    )
    assert.equal((await a.api.get('/v1/time-sheet-weeks', { userId, status: 'draft' })).body.total, 2)
    assert.equal((await a.api.get('/v1/time-sheet-weeks', { sumActual: 1 })).status, 400)
    assert.equal((await a.api.post('/v1/time-sheet-weeks', { userId, weekStart: '2026-09-21' })).status, 405)
    assert.equal((await a.api.delete(`/v1/time-sheet-weeks/${first.id}`)).status, 405)
    assert.equal((await a.api.put(`/v1/time-sheet-weeks/${first.id}`, {})).status, 405)
    const readOnly = await patch(first.id, { sumActual: 5, weekStart: '2026-09-21' })
    assert.equal(readOnly.status, 400)
    assert.deepEqual(readOnly.body.data.validationErrors, { sumActual: 'is read-only', weekStart: 'is read-only' })
  })

  it("is isolated: company B can neither see, change nor look up company A's weeks", async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-09-01' })
    const week = await f.week(a, userId, '2026-09-21')
    assert.equal((await b.api.get(`/v1/time-sheet-weeks/${week.id}`)).status, 404)
    assert.equal((await b.api.patch(`/v1/time-sheet-weeks/${week.id}`, { status: 'submitted' })).status, 404)
    assert.equal((await b.api.get('/v1/time-sheet-weeks', { userId })).body.total, 0)
    assert.equal((await b.api.get('/v1/time-sheet-weeks/by-user', { userId, weekStart: '2026-09-21' })).status, 404)
    assert.equal((await a.api.get(`/v1/time-sheet-weeks/${week.id}`)).body.status, 'draft')
    assert.deepEqual(await daysOf(userId), [])
  })
})
