import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../../support/harness'
import { SheetTypes, sheetFixtures } from '../../support/timesheets/fixtures'
import { assertConsistent, assertMatchesRecomputation } from '../../support/timesheets/invariants'
import { daysFrom, weekDays } from '../../../src/timesheets/periods'

/**
 * Parallel writes for one user (CONTRACT §7.6): they are serialised (a row lock on the user on
 * PostgreSQL; SQLite runs one write at a time), so the aggregates are those of the writes that
 * succeeded and a week's fan-out is never partial.
 */
forEachDatabase('time-sheet concurrency', (suite) => {
  const f = sheetFixtures(suite)
  let a: TestCompany
  let types: SheetTypes

  before(async () => {
    a = await suite.company({ country: 'DE' })
    types = await f.typesOf(a)
  })

  it('20 parallel writes for one user: 19 entries on different days and a week approval', async function () {
    const userId = await f.newUser(a, { employedFrom: '2026-06-01' })
    const month = await f.month(a, userId, '2026-06-01')
    const week = await f.week(a, userId, '2026-06-08')
    assert.equal((await a.api.patch(`/v1/time-sheet-weeks/${week.id}`, { status: 'submitted' })).status, 200)
    const approvedWeek = new Set(weekDays('2026-06-08'))
    const days = daysFrom('2026-06-01', '2026-06-19')
    const writes = [
      ...days.map((day, i) =>
        a.api.post('/v1/time-entries', {
          typeId: types.work,
          userId,
          startsAt: `${day}T07:00:00Z`,
          endsAt: `${day}T${String(8 + (i % 6)).padStart(2, '0')}:15:00Z`
        })
      ),
      a.api.patch(`/v1/time-sheet-weeks/${week.id}`, { status: 'approved' })
    ]
    const results = await Promise.all(writes)
    const approval = results.pop()!
    assert.equal(approval.status, 200, approval.text)
    results.forEach((res, i) => {
      // An entry loses the race against the approval of its day only.
      const allowed = approvedWeek.has(days[i]) ? [201, 409] : [201]
      assert.ok(allowed.includes(res.status), `${days[i]}: ${res.status} ${res.text.slice(0, 200)}`)
    })

    const weekDaysRows = (
      await a.api.get('/v1/time-sheet-days', { userId, 'day[$gte]': '2026-06-08', 'day[$lte]': '2026-06-14' })
    ).body.items
    assert.equal(weekDaysRows.length, 7)
    assert.ok(
      weekDaysRows.every((d: any) => d.status === 'approved'),
      'the fan-out approved every day of the week'
    )
    const stored = await assertMatchesRecomputation(suite.server().knex, a.id, userId)
    assertConsistent(stored)

    const entries = await suite.server().knex('timeEntries').where({ companyId: a.id, userId })
    const workedMinutes = (filter: (startsAt: string) => boolean) =>
      entries
        .filter((e: any) => filter(new Date(e.startsAt).toISOString()))
        .reduce((sum: number, e: any) => sum + Number(e.workedMs), 0) / 60000
    const monthAfter = (await a.api.get(`/v1/time-sheet-months/${month.id}`)).body
    const weekAfter = (await a.api.get(`/v1/time-sheet-weeks/${week.id}`)).body
    assert.equal(entries.length, results.filter((r) => r.status === 201).length)
    assert.equal(
      monthAfter.sumActual,
      workedMinutes(() => true)
    )
    assert.equal(
      weekAfter.sumActual,
      workedMinutes((startsAt) => startsAt >= '2026-06-08' && startsAt < '2026-06-15')
    )
    assert.deepEqual([weekAfter.status, weekAfter.approvedCount, weekAfter.recomputableCount], ['approved', 7, 0])
  })
})
