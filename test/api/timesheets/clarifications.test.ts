import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../../support/harness'
import { SheetTypes, sheetFixtures } from '../../support/timesheets/fixtures'
import { assertConsistent, assertMatchesRecomputation } from '../../support/timesheets/invariants'

/** CONTRACT §11.5: the clarifications of section 7 (issue #18), through the API. */
forEachDatabase('time-sheet clarifications (§11.5)', (suite) => {
  const f = sheetFixtures(suite)
  let a: TestCompany
  let types: SheetTypes

  before(async () => {
    a = await suite.company({ country: 'DE' })
    types = await f.typesOf(a)
  })

  const status = (id: number, to: string) => a.api.patch(`/v1/time-sheet-days/${id}`, { status: to })
  const consistent = async (userId: number) =>
    assertConsistent(await assertMatchesRecomputation(suite.server().knex, a.id, userId))

  it('refuses creating, moving onto and deleting an absence on an approved day (409 with data.days); touching it at midnight is allowed', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-09-01' })
    await f.entry(a, types, userId, '2026-09-14T08:00:00+02:00', '2026-09-14T12:00:00+02:00')
    const later = await a.api.post('/v1/user-absences', {
      typeId: types.vacation,
      userId,
      startsAt: '2026-09-15T00:00:00+02:00',
      endsAt: '2026-09-16T00:00:00+02:00'
    })
    assert.equal(later.status, 201, later.text)
    const onDay = await f.absence(a, types.hourly, userId, '2026-09-14T13:00:00+02:00', '2026-09-14T15:00:00+02:00')
    const day = await f.day(a, userId, '2026-09-14')
    assert.equal((await status(day.id, 'submitted')).status, 200)
    assert.equal((await status(day.id, 'approved')).status, 200)

    const created = await a.api.post('/v1/user-absences', {
      typeId: types.sick,
      userId,
      startsAt: '2026-09-13T00:00:00+02:00',
      endsAt: '2026-09-14T00:00:01+02:00'
    })
    assert.equal(created.status, 409, created.text)
    assert.deepEqual(created.body.data.days, ['2026-09-14'])
    const moved = await a.api.patch(`/v1/user-absences/${later.body.id}`, { startsAt: '2026-09-14T23:00:00+02:00' })
    assert.equal(moved.status, 409, moved.text)
    assert.deepEqual(moved.body.data.days, ['2026-09-14'])
    const removed = await a.api.delete(`/v1/user-absences/${onDay.id}`)
    assert.equal(removed.status, 409, removed.text)
    assert.deepEqual(removed.body.data.days, ['2026-09-14'])
    // Half-open: ending at 00:00 of the approved day, or starting at 00:00 of the next, does not touch it.
    const before = await a.api.post('/v1/user-absences', {
      typeId: types.sick,
      userId,
      startsAt: '2026-09-13T00:00:00+02:00',
      endsAt: '2026-09-14T00:00:00+02:00'
    })
    assert.equal(before.status, 201, before.text)
    assert.equal((await a.api.get(`/v1/time-sheet-days/${day.id}`)).body.expectedDuration, 480 - 120)

    assert.equal((await status(day.id, 'draft')).status, 200)
    assert.equal((await a.api.delete(`/v1/user-absences/${onDay.id}`)).status, 204)
    assert.equal((await a.api.get(`/v1/time-sheet-days/${day.id}`)).body.expectedDuration, 480)
    await consistent(userId)
  })

  it('shows no end while an entry runs, the gaps so far as break, and checks only the finished entries', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-09-01' })
    await f.entry(a, types, userId, '2026-09-21T06:00:00+02:00', '2026-09-21T13:00:00+02:00')
    const running = await f.entry(a, types, userId, '2026-09-21T13:30:00+02:00', null)
    let day = await f.day(a, userId, '2026-09-21')
    assert.deepEqual(
      [day.startsAt, day.endsAt, day.duration, day.breakTime, day.breakTimeErrorType, day.durationErrorValue],
      ['2026-09-21T04:00:00.000Z', null, 420, 30, null, null]
    )
    await consistent(userId)
    const stopped = await a.api.patch(`/v1/time-entries/${running.id}`, { endsAt: '2026-09-21T15:00:00+02:00' })
    assert.equal(stopped.status, 200, stopped.text)
    day = (await a.api.get(`/v1/time-sheet-days/${day.id}`)).body
    assert.deepEqual(
      [day.endsAt, day.duration, day.breakTime, day.breakTimeErrorType],
      ['2026-09-21T13:00:00.000Z', 510, 30, null]
    )
    await consistent(userId)
  })

  it('rounds workDays to 2 decimals', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-09-01' })
    // 70 of the Tuesday's 480 target minutes: 0.1458… work days.
    const absence = await f.absence(a, types.hourly, userId, '2026-09-22T08:00:00+02:00', '2026-09-22T09:10:00+02:00')
    assert.equal(absence.workDays, 0.15)
    assert.equal((await a.api.get(`/v1/user-absences/${absence.id}`)).body.workDays, 0.15)
  })

  it('does not count an entry ending exactly at 00:00 of the next day as multi-day', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-09-01' })
    await f.entry(a, types, userId, '2026-09-29T20:00:00+02:00', '2026-09-30T00:00:00+02:00')
    assert.equal((await f.week(a, userId, '2026-09-28')).hasMultipleDayTimeEntryCount, 0)
    assert.equal((await f.month(a, userId, '2026-09-01')).hasMultipleDayTimeEntryCount, 0)
    await f.entry(a, types, userId, '2026-09-30T20:00:00+02:00', '2026-10-01T00:01:00+02:00')
    assert.equal((await f.week(a, userId, '2026-09-28')).hasMultipleDayTimeEntryCount, 1)
    assert.equal((await f.month(a, userId, '2026-09-01')).hasMultipleDayTimeEntryCount, 1)
    // A write to another day of the week and month recomputes them with the 30th kept as stored: its
    // flag comes from the entries that cross one of the week's midnights (the 30th's, not the 29th's).
    await f.entry(a, types, userId, '2026-09-28T08:00:00+02:00', '2026-09-28T12:00:00+02:00')
    assert.equal((await f.week(a, userId, '2026-09-28')).hasMultipleDayTimeEntryCount, 1)
    assert.equal((await f.month(a, userId, '2026-09-01')).hasMultipleDayTimeEntryCount, 1)
    await consistent(userId)
  })

  it('flags an entry that starts exactly at a midnight and runs past the next one (the 23-hour DST day), also when its day is kept', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-03-01' })
    // Sunday 29 March 2026 has 23 hours in Berlin: 23.5 hours from its midnight end after the next one.
    await f.entry(a, types, userId, '2026-03-29T00:00:00+01:00', '2026-03-30T00:30:00+02:00')
    // Starts at a midnight of the week, ends before the next one: not multi-day.
    await f.entry(a, types, userId, '2026-03-26T00:00:00+01:00', '2026-03-26T06:00:00+01:00')
    // The week and month rows exist from here on (created when first read) ...
    assert.equal((await f.week(a, userId, '2026-03-23')).hasMultipleDayTimeEntryCount, 1)
    assert.equal((await f.month(a, userId, '2026-03-01')).hasMultipleDayTimeEntryCount, 1)
    // ... so a write to another day of the week recomputes them with the 29th and the 26th kept.
    await f.entry(a, types, userId, '2026-03-25T08:00:00+01:00', '2026-03-25T12:00:00+01:00')
    assert.equal((await f.week(a, userId, '2026-03-23')).hasMultipleDayTimeEntryCount, 1)
    assert.equal((await f.month(a, userId, '2026-03-01')).hasMultipleDayTimeEntryCount, 1)
    await consistent(userId)
  })

  /** Every stored sheet row of the user, all columns, by table and id. */
  async function snapshot(userId: number) {
    const rows = new Map<string, unknown>()
    for (const table of ['time_sheet_days', 'time_sheet_weeks', 'time_sheet_months']) {
      for (const row of await suite.server().knex(table).where({ companyId: a.id, userId }))
        rows.set(`${table} ${row.id}`, JSON.parse(JSON.stringify(row)))
    }
    return rows
  }

  const decide = (id: number, body: Record<string, unknown>) => a.api.patch(`/v1/user-absences/${id}`, body)
  const figures = async (userId: number, day: string) => {
    const sheet = await f.day(a, userId, day)
    const month = await f.month(a, userId, '2026-09-01')
    return {
      expectedDuration: sheet.expectedDuration,
      sumTarget: month.sumTarget,
      carryOut: month.carryOut,
      octoberCarryIn: (await f.month(a, userId, '2026-10-01')).carryIn
    }
  }

  it('keeps the target of an approved overtime compensation (taken from the balance) until the compensation is declined', async () => {
    // Employed from Wednesday 30 September with 600 minutes of overtime: that day is September's only target.
    const userId = await f.newUser(a, { employedFrom: '2026-09-30', openingBalance: 600 })
    const absence = await f.absence(a, types.overtime, userId, '2026-09-30T00:00:00+02:00', '2026-10-01T00:00:00+02:00')
    assert.equal(absence.status, 'approved')
    assert.equal(absence.workDays, 1)
    const taken = { expectedDuration: 480, sumTarget: 480, carryOut: 600 - 480, octoberCarryIn: 120 }
    assert.deepEqual(await figures(userId, '2026-09-30'), taken)
    await consistent(userId)

    // Declined: time off like vacation, the balance keeps its 600.
    let res = await decide(absence.id, { compensationDeclinedAt: '2026-10-02T09:00:00Z' })
    assert.equal(res.status, 200, res.text)
    assert.deepEqual(await figures(userId, '2026-09-30'), {
      expectedDuration: 0,
      sumTarget: 0,
      carryOut: 600,
      octoberCarryIn: 600
    })
    await consistent(userId)

    // Cleared again: taken from the balance as before.
    res = await decide(absence.id, { compensationDeclinedAt: null })
    assert.equal(res.status, 200, res.text)
    assert.deepEqual(await figures(userId, '2026-09-30'), taken)

    // compensationApprovedAt records the decision: no row changes, not even its computedAt.
    const before = await snapshot(userId)
    res = await decide(absence.id, { compensationApprovedAt: '2026-10-02T09:00:00Z' })
    assert.equal(res.status, 200, res.text)
    assert.equal(res.body.compensationApprovedAt, '2026-10-02T09:00:00.000Z')
    assert.deepEqual(await snapshot(userId), before)
    assert.deepEqual(await figures(userId, '2026-09-30'), taken)
    await consistent(userId)
  })

  it('refuses (409) a compensation decision on an absence that touches an approved day, and changes nothing', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-09-28', openingBalance: 600 })
    const absence = await f.absence(a, types.overtime, userId, '2026-09-29T00:00:00+02:00', '2026-09-30T00:00:00+02:00')
    const day = await f.day(a, userId, '2026-09-29')
    assert.equal(day.expectedDuration, 480)
    assert.equal((await status(day.id, 'submitted')).status, 200)
    assert.equal((await status(day.id, 'approved')).status, 200)
    const before = await snapshot(userId)
    for (const body of [
      { compensationApprovedAt: '2026-10-02T09:00:00Z' },
      { compensationDeclinedAt: '2026-10-02T09:00:00Z' }
    ]) {
      const res = await decide(absence.id, body)
      assert.equal(res.status, 409, `${JSON.stringify(body)}: ${res.text}`)
      assert.deepEqual(res.body.data.days, ['2026-09-29'])
    }
    assert.deepEqual(await snapshot(userId), before)
    const stored = (await a.api.get(`/v1/user-absences/${absence.id}`)).body
    assert.deepEqual([stored.compensationApprovedAt, stored.compensationDeclinedAt], [null, null])

    // Reopened, the decision is taken and the day follows it.
    assert.equal((await status(day.id, 'draft')).status, 200)
    assert.equal((await decide(absence.id, { compensationDeclinedAt: '2026-10-02T09:00:00Z' })).status, 200)
    assert.equal((await a.api.get(`/v1/time-sheet-days/${day.id}`)).body.expectedDuration, 0)
    await consistent(userId)
  })
})
