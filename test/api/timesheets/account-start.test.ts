import assert from 'node:assert/strict'
import fc from 'fast-check'
import { forEachDatabase, TestCompany } from '../../support/harness'
import { SheetTypes, sheetFixtures } from '../../support/timesheets/fixtures'
import { assertConsistent, assertMatchesRecomputation } from '../../support/timesheets/invariants'
import { addDays, addMonths, lastDayOfMonth, monthOf, today, weekStartOf } from '../../../src/timesheets/periods'

/**
 * Where a user's time account starts (CONTRACT §11.1): `employedFrom` and `openingBalance`.
 * Issue #18: a look-up of a week that started in an earlier month created that month with its
 * full target and moved the balance of every later month. Reading never changes a figure; the
 * chain starts in the month of `employedFrom` with the opening balance.
 */
const ZONE = 'Europe/Berlin'
const RUNS = Number(process.env.FC_RUNS ?? 8)

type Row = Record<string, unknown>

forEachDatabase('time accounts: where they start', (suite) => {
  const f = sheetFixtures(suite)
  let c: TestCompany
  let types: SheetTypes
  const now = today(ZONE)
  const thisMonth = monthOf(now)
  // A month that is over: 11.3 forbids submitting or approving days after today.
  const past = addMonths(thisMonth, -2)

  before(async () => {
    c = await suite.company({ country: 'DE' })
    types = await f.typesOf(c)
  })

  /** Every stored sheet row of the user, all columns, by table and id. */
  async function snapshot(userId: number): Promise<Map<string, Row>> {
    const rows = new Map<string, Row>()
    for (const table of ['time_sheet_days', 'time_sheet_weeks', 'time_sheet_months']) {
      for (const row of await suite.server().knex(table).where({ companyId: c.id, userId }))
        rows.set(`${table} ${row.id}`, JSON.parse(JSON.stringify(row)))
    }
    return rows
  }

  const unchangedRows = (before: Map<string, Row>, after: Map<string, Row>) =>
    [...before].filter(([key, row]) => JSON.stringify(after.get(key)) !== JSON.stringify(row)).map(([key]) => key)
  const months = (userId: number) =>
    suite.server().knex('time_sheet_months').where({ companyId: c.id, userId }).orderBy('month')
  const user = async (userId: number) => (await c.api.get(`/v1/users/${userId}`)).body
  /** The month a user's account starts in: for a user created now, this month, read from the user (a run may pass midnight). */
  const startMonth = async (userId: number): Promise<string> => monthOf((await user(userId)).employedFrom)

  it('starts a new user on the day it is created, with an opening balance of 0; both are returned and filterable', async () => {
    // The company's day read around the creation (the suite's `now` is read when the file loads, and a
    // run that passes midnight in the company's timezone would compare with yesterday).
    const dayBefore = today(ZONE)
    const userId = await f.newUser(c)
    const dayAfter = today(ZONE)
    const created = await user(userId)
    assert.ok(
      [dayBefore, dayAfter].includes(created.employedFrom),
      `employedFrom ${created.employedFrom} is the day of the creation (${dayBefore}..${dayAfter})`
    )
    assert.equal(created.openingBalance, 0)
    const res = await c.api.get('/v1/users', {
      employedFrom: created.employedFrom,
      'openingBalance[$gte]': 0,
      id: userId
    })
    assert.equal(res.status, 200, res.text)
    assert.deepEqual(
      res.body.items.map((u: any) => u.id),
      [userId]
    )
    assert.equal(
      (
        await c.api.post('/v1/users', {
          fullName: 'Too much',
          email: `acct-${Date.now()}@crew.test`,
          openingBalance: 100_001
        })
      ).status,
      400
    )
    assert.equal((await c.api.patch(`/v1/users/${userId}`, { employedFrom: '1999-12-31' })).status, 400)
    assert.equal((await c.api.patch(`/v1/users/${userId}`, { openingBalance: -100_000 })).body.openingBalance, -100_000)
  })

  it('issue #18: looking up a week that starts in an earlier month changes no figure of an existing row', async () => {
    // A worker created today: the month before this one is over before the account starts.
    const fresh = await f.newUser(c)
    const first = await startMonth(fresh)
    await f.month(c, fresh, first)
    const before = await snapshot(fresh)
    const week = weekStartOf(addDays(first, -1))
    await f.week(c, fresh, week)
    assert.deepEqual(unchangedRows(before, await snapshot(fresh)), [])
    const previous = await f.month(c, fresh, addMonths(first, -1))
    assert.deepEqual(
      [previous.carryInComputed, previous.sumTarget],
      [0, 0],
      'outside the chain, no target before employedFrom'
    )

    // A worker whose account started in a past month, with a balance from the previous system.
    const userId = await f.newUser(c, { employedFrom: past, openingBalance: 30 })
    await f.entry(c, types, userId, `${addDays(past, 3)}T08:00:00Z`, `${addDays(past, 3)}T17:00:00Z`)
    const month = await f.month(c, userId, past)
    assert.equal(month.carryInComputed, 30)
    const held = await snapshot(userId)
    await f.week(c, userId, weekStartOf(addDays(past, -1)))
    assert.deepEqual(unchangedRows(held, await snapshot(userId)), [])
    assert.deepEqual(await f.month(c, userId, past), month, 'the month keeps its balance')
    const earlier = await f.month(c, userId, addMonths(past, -1))
    assert.deepEqual([earlier.carryInComputed, earlier.sumTarget], [0, 0])

    // Submitting and approving the month (the fan-out creates the rows around it) locks its own carry.
    for (const status of ['submitted', 'approved']) {
      const res = await c.api.patch(`/v1/time-sheet-months/${month.id}`, { status })
      assert.equal(res.status, 200, res.text)
    }
    const locked = await f.month(c, userId, past)
    assert.deepEqual([locked.carryInLocked, locked.carryOutLocked], [30, 30 + locked.sumActual - locked.sumTarget])
    assert.equal(locked.sumTarget, month.sumTarget)
    assertConsistent(await assertMatchesRecomputation(suite.server().knex, c.id, userId))
  })

  it('a month that ends before employedFrom is created alone, outside the chain: month=2000-01-01 creates 1 row', async () => {
    const userId = await f.newUser(c)
    const first = await startMonth(userId)
    const current = await f.month(c, userId, first)
    const old = await f.month(c, userId, '2000-01-01')
    assert.equal((await months(userId)).length, 2)
    assert.deepEqual([old.carryInComputed, old.sumTarget], [0, 0])
    assert.deepEqual(await f.month(c, userId, first), current, 'the chain does not see it')
    assertConsistent(await assertMatchesRecomputation(suite.server().knex, c.id, userId))
  })

  it('fills the chain from its start up to the month asked for, not up to today', async () => {
    const userId = await f.newUser(c, { employedFrom: addDays(addMonths(past, -3), 9) })
    await f.month(c, userId, addMonths(past, -1))
    assert.deepEqual(
      (await months(userId)).map((m: any) => String(m.month).slice(0, 10)),
      [addMonths(past, -3), addMonths(past, -2), addMonths(past, -1)]
    )
  })

  it('counts work before employedFrom on days without target, and no absence work days there', async () => {
    const userId = await f.newUser(c, { employedFrom: addDays(past, 14) })
    await f.entry(c, types, userId, `${addDays(past, 1)}T08:00:00Z`, `${addDays(past, 1)}T10:00:00Z`)
    const day = await f.day(c, userId, addDays(past, 1))
    assert.deepEqual([day.duration, day.expectedDuration], [120, 0])
    // An absence across employedFrom takes only the work days from it on.
    const absence = await f.absence(
      c,
      types.vacation,
      userId,
      `${addDays(past, 7)}T00:00:00+01:00`,
      `${addDays(past, 21)}T12:00:00+01:00`
    )
    const weekdays = Array.from({ length: 7 }, (_, i) =>
      new Date(`${addDays(past, 14 + i)}T12:00:00Z`).getUTCDay()
    ).filter((d) => d >= 1 && d <= 5).length
    assert.equal(
      absence.workDays,
      weekdays + ([0, 6].includes(new Date(`${addDays(past, 21)}T12:00:00Z`).getUTCDay()) ? 0 : 1)
    )
    assertConsistent(await assertMatchesRecomputation(suite.server().knex, c.id, userId))
  })

  it('recomputes the unlocked rows when openingBalance or employedFrom change', async () => {
    const userId = await f.newUser(c, { employedFrom: past })
    await f.month(c, userId, addMonths(past, 1))
    const first = await f.month(c, userId, past)
    let res = await c.api.patch(`/v1/users/${userId}`, { openingBalance: 120 })
    assert.equal(res.status, 200, res.text)
    const shifted = await f.month(c, userId, past)
    assert.deepEqual([shifted.carryInComputed, shifted.carryOut], [120, first.carryOut + 120])
    assert.equal((await f.month(c, userId, addMonths(past, 1))).carryIn, shifted.carryOut)

    res = await c.api.patch(`/v1/users/${userId}`, { employedFrom: addDays(past, 14) })
    assert.equal(res.status, 200, res.text)
    const later = await f.month(c, userId, past)
    assert.ok(later.sumTarget < first.sumTarget, 'the days before employedFrom lose their target')
    assert.equal(later.carryInComputed, 120)
    assertConsistent(await assertMatchesRecomputation(suite.server().knex, c.id, userId))

    // An earlier start fills the chain back to its new first month, which takes the balance.
    res = await c.api.patch(`/v1/users/${userId}`, { employedFrom: addMonths(past, -1) })
    assert.equal(res.status, 200, res.text)
    const start = await f.month(c, userId, addMonths(past, -1))
    assert.equal(start.carryInComputed, 120)
    assert.equal((await f.month(c, userId, past)).carryIn, start.carryOut)
    assertConsistent(await assertMatchesRecomputation(suite.server().knex, c.id, userId))
  })

  it('refuses (409) an account change that would change a locked month, and changes nothing', async () => {
    const userId = await f.newUser(c, { employedFrom: past, openingBalance: 60 })
    const month = await f.month(c, userId, past)
    for (const status of ['submitted', 'approved'])
      assert.equal((await c.api.patch(`/v1/time-sheet-months/${month.id}`, { status })).status, 200)
    await f.month(c, userId, addMonths(past, 1))
    const before = await snapshot(userId)
    const account = await user(userId)
    for (const body of [
      { openingBalance: 0 },
      { employedFrom: addDays(past, 3) },
      { employedFrom: addMonths(past, -1) },
      { employedFrom: addMonths(past, 1), openingBalance: 60 }
    ]) {
      const res = await c.api.patch(`/v1/users/${userId}`, body)
      assert.equal(res.status, 409, `${JSON.stringify(body)}: ${res.text}`)
    }
    assert.deepEqual(unchangedRows(before, await snapshot(userId)), [])
    assert.deepEqual(await user(userId), account)
    // Unchanged values are not changes.
    assert.equal((await c.api.patch(`/v1/users/${userId}`, { employedFrom: past, openingBalance: 60 })).status, 200)
    assert.ok(lastDayOfMonth(past) < now)
  })

  it('reading never changes figures: any sequence of look-ups, lists and gets leaves every existing row as it was', async function () {
    this.timeout(600000)
    const start = addDays(past, 10)
    const userId = await f.newUser(c, { employedFrom: start, openingBalance: -45 })
    for (const offset of [-20, -3, 2, 12, 30]) {
      const day = addDays(start, offset)
      await f.entry(c, types, userId, `${day}T07:00:00Z`, `${day}T16:30:00Z`)
    }
    await f.month(c, userId, monthOf(start))
    const offsets = fc.integer({ min: -75, max: 45 })
    const read = fc.oneof(
      fc.record({ kind: fc.constantFrom('day' as const, 'week' as const, 'month' as const), offset: offsets }),
      fc.record({
        kind: fc.constantFrom('days' as const, 'weeks' as const, 'months' as const),
        offset: fc.constant(0)
      }),
      fc.record({ kind: fc.constant('get' as const), offset: fc.nat() })
    )
    const property = fc.asyncProperty(fc.array(read, { minLength: 1, maxLength: 5 }), async (reads) => {
      const before = await snapshot(userId)
      for (const { kind, offset } of reads) {
        const day = addDays(start, offset)
        let res
        if (kind === 'day') res = await c.api.get('/v1/time-sheet-days/by-user', { userId, day })
        else if (kind === 'week')
          res = await c.api.get('/v1/time-sheet-weeks/by-user', { userId, weekStart: weekStartOf(day) })
        else if (kind === 'month')
          res = await c.api.get('/v1/time-sheet-months/by-user', { userId, month: monthOf(day) })
        else if (kind === 'get') {
          const keys = [...before.keys()]
          const [table, id] = keys[offset % keys.length].split(' ')
          res = await c.api.get(`/v1/${table.replace(/_/g, '-')}/${id}`)
        } else res = await c.api.get(`/v1/time-sheet-${kind}`, { userId, size: 20 })
        assert.equal(res.status, 200, `${kind} ${day}: ${res.text}`)
      }
      assert.deepEqual(unchangedRows(before, await snapshot(userId)), [], JSON.stringify(reads))
    })
    await fc.assert(property, { numRuns: RUNS, ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}) })
    assertConsistent(await assertMatchesRecomputation(suite.server().knex, c.id, userId))
  })
})
