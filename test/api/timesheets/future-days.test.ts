import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../../support/harness'
import { SheetTypes, sheetFixtures } from '../../support/timesheets/fixtures'
import {
  addDays,
  addMonths,
  lastDayOfMonth,
  monthDays,
  monthOf,
  today,
  weekDays,
  weekStartOf
} from '../../../src/timesheets/periods'

/**
 * Workflow moves only for days that have happened (CONTRACT §11.3, §11.6): submitting or
 * approving a day after today (company timezone) is a 409 naming the days, for a day and for a
 * week or month fan-out (all or nothing); reopening is allowed for any day, and `draft` on a
 * week or month reopens every day of it that is not draft. There is no clock seam: the periods
 * are chosen relative to the real today, so that every test has future days to refuse.
 */
const ZONE = 'Europe/Berlin'

forEachDatabase('future days', (suite) => {
  const f = sheetFixtures(suite)
  let a: TestCompany
  let types: SheetTypes

  before(async () => {
    a = await suite.company({ country: 'DE', timezone: ZONE })
    types = await f.typesOf(a)
  })

  const patchDay = (id: number, status: string) => a.api.patch(`/v1/time-sheet-days/${id}`, { status })
  const patchWeek = (id: number, status: string) => a.api.patch(`/v1/time-sheet-weeks/${id}`, { status })
  const patchMonth = (id: number, status: string) => a.api.patch(`/v1/time-sheet-months/${id}`, { status })
  /** Every stored column of the user's day rows, to show that a refused move changed none (and created none). */
  const dayRows = (userId: number) => f.knex()('time_sheet_days').where({ userId }).orderBy('day')
  /** Puts a day in a status no request can reach for a future day (data from before §11.3). */
  const forceStatus = (id: number, status: string) => {
    const at = new Date().toISOString()
    return f
      .knex()('time_sheet_days')
      .where({ id })
      .update({ status, submittedAt: at, submittedFirstAt: at, ...(status === 'approved' ? { approvedAt: at } : {}) })
  }
  const submitted = async (userId: number, day: string) => {
    const row = await f.day(a, userId, day)
    const res = await patchDay(row.id, 'submitted')
    assert.equal(res.status, 200, res.text)
    return res.body
  }

  /** A 409 for future days names them in `data.days` and in the message. */
  function assertFutureDays(res: { status: number; text: string; body: any }, days: string[]) {
    assert.equal(res.status, 409, res.text)
    assert.equal(res.body.name, 'Conflict')
    assert.equal(res.body.data.reason, 'future-days')
    assert.deepEqual(res.body.data.days, days)
    for (const day of days) assert.ok(res.body.message.includes(day), `the message names ${day}: ${res.body.message}`)
  }

  it('refuses to submit a day after today (409 with data.days); today and past days can be submitted and approved', async () => {
    const userId = await f.newUser(a)
    const now = today(ZONE)
    const tomorrow = await f.day(a, userId, addDays(now, 1))
    assertFutureDays(await patchDay(tomorrow.id, 'submitted'), [addDays(now, 1)])
    const after = await a.api.get(`/v1/time-sheet-days/${tomorrow.id}`)
    assert.deepEqual([after.body.status, after.body.submittedAt, after.body.submittedFirstAt], ['draft', null, null])
    // Creating a future day already submitted is the same move.
    assertFutureDays(await a.api.post('/v1/time-sheet-days', { userId, day: addDays(now, 2), status: 'submitted' }), [
      addDays(now, 2)
    ])
    assert.equal((await a.api.get('/v1/time-sheet-days', { userId, day: addDays(now, 2) })).body.total, 0)

    for (const day of [addDays(now, -1), now]) {
      const row = await submitted(userId, day)
      const approved = await patchDay(row.id, 'approved')
      assert.equal(approved.status, 200, approved.text)
      assert.equal(approved.body.status, 'approved')
    }
  })

  it('refuses to approve a submitted future day; reopens any day, future ones included (draft)', async () => {
    const userId = await f.newUser(a)
    const now = today(ZONE)
    const row = await f.day(a, userId, addDays(now, 1))
    // A draft day cannot be declined (the move table), and a future day cannot become submitted.
    const declined = await patchDay(row.id, 'declined')
    assert.equal(declined.status, 409, declined.text)
    assert.match(declined.body.message, /cannot move from draft to declined/)
    // Data from before §11.3 may hold a submitted future day: it is not approved either.
    await forceStatus(row.id, 'submitted')
    assertFutureDays(await patchDay(row.id, 'approved'), [addDays(now, 1)])
    assert.equal((await a.api.get(`/v1/time-sheet-days/${row.id}`)).body.status, 'submitted')

    const past = await submitted(userId, addDays(now, -3))
    assert.equal((await patchDay(past.id, 'approved')).status, 200)
    const approvedFuture = await f.day(a, userId, addDays(now, 5))
    await forceStatus(approvedFuture.id, 'approved')
    for (const id of [row.id, past.id, approvedFuture.id]) {
      const res = await patchDay(id, 'draft')
      assert.equal(res.status, 200, res.text)
      assert.deepEqual([res.body.status, res.body.approvedAt], ['draft', null])
    }
  })

  it('refuses to submit or approve a week with future days (409 naming them), changing no day; a past week moves', async () => {
    const userId = await f.newUser(a)
    const now = today(ZONE)
    // The week of tomorrow always has a future day (on a Sunday it is next week, all future).
    const weekStart = weekStartOf(addDays(now, 1))
    const days = weekDays(weekStart)
    const future = days.filter((day) => day > now)
    // The days up to today are submitted one by one, the others exist as drafts.
    const futureIds: number[] = []
    for (const day of days) {
      if (day <= now) await submitted(userId, day)
      else futureIds.push((await f.day(a, userId, day)).id)
    }
    const week = await f.week(a, userId, weekStart)
    const before = await dayRows(userId)
    assert.equal(before.length, 7)

    assertFutureDays(await patchWeek(week.id, 'submitted'), future)
    assert.deepEqual(await dayRows(userId), before)
    const after = (await a.api.get(`/v1/time-sheet-weeks/${week.id}`)).body
    assert.deepEqual([after.status, after.submittedCount, after.approvedCount], [week.status, week.submittedCount, 0])

    // Approving needs a submitted week: its future days submitted, as data from before §11.3 would be.
    for (const id of futureIds) await forceStatus(id, 'submitted')
    const submittedRows = await dayRows(userId)
    assertFutureDays(await patchWeek(week.id, 'approved'), future)
    assert.deepEqual(await dayRows(userId), submittedRows)

    // A week without day rows: the refused fan-out leaves none behind.
    const fresh = await f.newUser(a)
    const freshWeek = await f.week(a, fresh, weekStart)
    assertFutureDays(await patchWeek(freshWeek.id, 'submitted'), future)
    assert.deepEqual(await dayRows(fresh), [])

    // Last week has happened: it is submitted and approved as before.
    const pastWeek = await f.week(a, userId, addDays(weekStartOf(now), -7))
    const submit = await patchWeek(pastWeek.id, 'submitted')
    assert.equal(submit.status, 200, submit.text)
    assert.deepEqual([submit.body.status, submit.body.submittedCount], ['submitted', 7])
    const approve = await patchWeek(pastWeek.id, 'approved')
    assert.equal(approve.status, 200, approve.text)
    assert.deepEqual([approve.body.status, approve.body.approvedCount], ['approved', 7])
  })

  it('refuses to submit or approve a month with future days (409 naming them), changing nothing; a past month moves and locks', async () => {
    const userId = await f.newUser(a)
    const now = today(ZONE)
    // The month of tomorrow always has a future day (on the last of a month it is next month, all future).
    const month = monthOf(addDays(now, 1))
    const future = monthDays(month).filter((day) => day > now)
    if (addDays(now, -1) >= month) await submitted(userId, addDays(now, -1))
    await f.day(a, userId, addDays(now, 1))
    await f.day(a, userId, lastDayOfMonth(month))
    const row = await f.month(a, userId, month)
    const before = await dayRows(userId)
    const monthBefore = await f.knex()('time_sheet_months').where({ id: row.id }).first()

    assertFutureDays(await patchMonth(row.id, 'submitted'), future)
    assert.deepEqual(await dayRows(userId), before)
    assert.deepEqual(await f.knex()('time_sheet_months').where({ id: row.id }).first(), monthBefore)

    // Approving needs a submitted month: put it there as data from before §11.3 would be.
    await f.knex()('time_sheet_months').where({ id: row.id }).update({ status: 'submitted' })
    const submittedBefore = await f.knex()('time_sheet_months').where({ id: row.id }).first()
    assertFutureDays(await patchMonth(row.id, 'approved'), future)
    assert.deepEqual(await dayRows(userId), before)
    assert.deepEqual(await f.knex()('time_sheet_months').where({ id: row.id }).first(), submittedBefore)

    // Last month has happened: it is submitted, approved and locked as before.
    const pastMonth = addMonths(monthOf(now), -1)
    const past = await f.month(a, userId, pastMonth)
    const submit = await patchMonth(past.id, 'submitted')
    assert.equal(submit.status, 200, submit.text)
    assert.deepEqual([submit.body.status, submit.body.submittedCount], ['submitted', monthDays(pastMonth).length])
    const approve = await patchMonth(past.id, 'approved')
    assert.equal(approve.status, 200, approve.text)
    assert.deepEqual([approve.body.status, approve.body.approvedCount], ['approved', monthDays(pastMonth).length])
    assert.ok(approve.body.lockedAt)
    await f.entry(a, types, userId, `${pastMonth.slice(0, 8)}10T08:00:00Z`, `${pastMonth.slice(0, 8)}10T09:00:00Z`, 409)
  })

  it('reopens every day of a week that is not draft, even when the week is already draft', async () => {
    const userId = await f.newUser(a)
    const now = today(ZONE)
    const pastWeek = addDays(weekStartOf(now), -14)
    const [monday, tuesday] = weekDays(pastWeek)
    await submitted(userId, monday)
    const approved = await submitted(userId, tuesday)
    assert.equal((await patchDay(approved.id, 'approved')).status, 200)
    // A future day submitted before §11.3 is reopened too.
    const futureWeek = weekStartOf(addDays(now, 7))
    const future = await f.day(a, userId, futureWeek)
    await forceStatus(future.id, 'submitted')

    for (const weekStart of [pastWeek, futureWeek]) {
      const week = await f.week(a, userId, weekStart)
      assert.equal(week.status, 'draft')
      const res = await patchWeek(week.id, 'draft')
      assert.equal(res.status, 200, res.text)
      assert.deepEqual([res.body.status, res.body.submittedCount, res.body.approvedCount], ['draft', 0, 0])
    }
    const rows = await dayRows(userId)
    assert.deepEqual(
      rows.map((day: any) => [day.status, day.approvedAt]),
      rows.map(() => ['draft', null])
    )
  })

  it('reopens every day of a month that is not draft, even when the month is already draft', async () => {
    const userId = await f.newUser(a)
    const month = addMonths(monthOf(today(ZONE)), -2)
    const [first, second, third] = monthDays(month)
    await submitted(userId, first)
    const approved = await submitted(userId, second)
    assert.equal((await patchDay(approved.id, 'approved')).status, 200)
    const declined = await submitted(userId, third)
    assert.equal((await patchDay(declined.id, 'declined')).status, 200)
    const row = await f.month(a, userId, month)
    assert.equal(row.status, 'draft')

    const res = await patchMonth(row.id, 'draft')
    assert.equal(res.status, 200, res.text)
    assert.deepEqual(
      [res.body.status, res.body.submittedCount, res.body.approvedCount, res.body.declinedCount],
      ['draft', 0, 0, 0]
    )
    const rows = await dayRows(userId)
    assert.deepEqual(
      rows.map((day: any) => [day.status, day.approvedAt, day.declinedAt]),
      rows.map(() => ['draft', null, null])
    )
  })
})
