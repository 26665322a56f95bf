import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../../support/harness'
import { changeWorkingTime, mondayHour, SheetTypes, sheetFixtures } from '../../support/timesheets/fixtures'
import { assertConsistent, assertMatchesRecomputation } from '../../support/timesheets/invariants'
import { monthDays } from '../../../src/timesheets/periods'
import { WEEKDAYS } from '../../../src/timesheets/working-time'

/**
 * Long recomputations (CONTRACT §7.6): a change in a user's first month carries through two years
 * of months, and a working-time change rewrites more day rows than one statement writes. The
 * changed rows of a table are written together, each with its own columns; the rows that do not
 * change keep everything, `updatedAt` and `computedAt` included.
 */
const CARRY_FIELDS = ['carryInComputed', 'carryIn', 'carryOutComputed', 'carryOut']

forEachDatabase('time-sheet carry chain', (suite) => {
  const f = sheetFixtures(suite)
  let c: TestCompany
  let types: SheetTypes

  before(async () => {
    c = await suite.company({ country: 'DE' })
    types = await f.typesOf(c)
    await changeWorkingTime(suite, c, mondayHour)
  })

  /** Every row of a list, page by page (20 at most a page), in `sort` order. */
  async function all(company: TestCompany, path: string, query: Record<string, string | number>, sort: string) {
    const items: any[] = []
    for (let page = 0; ; page++) {
      const res = await company.api.get(path, { ...query, size: 20, page, [`$sort[${sort}]`]: 1 })
      assert.equal(res.status, 200, res.text)
      items.push(...res.body.items)
      if (page + 1 >= res.body.pages) return items
    }
  }
  const without = (row: any, fields: string[]) =>
    Object.fromEntries(Object.entries(row).filter(([key]) => !fields.includes(key)))

  it('carries a change of the first month through 25 months; months after an unchanged carry-out stay untouched', async () => {
    const userId = await f.newUser(c, { employedFrom: '2024-06-01' })
    await f.month(c, userId, '2024-06-01')
    await f.month(c, userId, '2026-06-01')
    await f.entry(c, types, userId, '2025-01-06T08:00:00+01:00', '2025-01-06T10:30:00+01:00')
    // Its own carry-in ends the change there: from July 2025 on nothing moves.
    const june2025 = await f.month(c, userId, '2025-06-01')
    assert.equal((await c.api.patch(`/v1/time-sheet-months/${june2025.id}`, { carryInManual: 15 })).status, 200)
    const before = await all(c, '/v1/time-sheet-months', { userId }, 'month')
    assert.equal(before.length, 25)
    const manualAt = before.findIndex((m) => m.month === '2025-06-01')

    const res = await c.api.patch(`/v1/time-sheet-months/${before[0].id}`, { carryInManual: 90 })
    assert.equal(res.status, 200, res.text)
    const after = await all(c, '/v1/time-sheet-months', { userId }, 'month')

    const shifted = (row: any, fields: string[]) => ({
      ...row,
      ...Object.fromEntries(fields.map((field) => [field, row[field] + 90]))
    })
    const moving = ['updatedAt', 'computedAt']
    after.forEach((month, i) => {
      const was = before[i]
      const label = month.month
      if (i === 0) {
        assert.deepEqual(
          without(month, moving),
          without(
            { ...shifted(was, ['carryIn', 'carryOutComputed', 'carryOut']), carryInCorrectionType: 'manual' },
            moving
          ),
          label
        )
      } else if (i < manualAt) {
        assert.deepEqual(without(month, moving), without(shifted(was, CARRY_FIELDS), moving), label)
      } else if (i === manualAt) {
        assert.deepEqual(without(month, moving), without(shifted(was, ['carryInComputed']), moving), label)
        assert.deepEqual([month.carryIn, month.carryInCorrectionType], [15, 'manual'])
      } else {
        assert.deepEqual(month, was, `${label} is not written`)
        return
      }
      assert.ok(month.updatedAt > was.updatedAt && month.computedAt > was.computedAt, `${label} records the change`)
    })
    assertConsistent(await assertMatchesRecomputation(suite.server().knex, c.id, userId))
  })

  it('rewrites more day rows than one statement holds after a working-time change', async () => {
    const d = await suite.company({ country: 'DE' })
    const userId = await f.newUser(d, { employedFrom: '2026-01-01' })
    const months = ['2026-01-01', '2026-02-01', '2026-03-01', '2026-04-01', '2026-05-01']
    // Submitting a month creates its days (151 in all) and moves them, in one statement a month.
    for (const month of months) {
      const row = await f.month(d, userId, month)
      assert.equal((await d.api.patch(`/v1/time-sheet-months/${row.id}`, { status: 'submitted' })).status, 200)
    }
    // Every day's target changes (weekends included): 151 changed day rows in one recomputation.
    await changeWorkingTime(suite, d, (model) => {
      for (const weekday of WEEKDAYS) model.targetMinutes[weekday] = 90
    })
    const days = await all(d, '/v1/time-sheet-days', { userId }, 'day')
    assert.equal(days.length, 151)
    assert.deepEqual([...new Set(days.map((day) => `${day.status} ${day.expectedDuration}`))], ['submitted 90'])
    for (const month of months) {
      const row = await f.month(d, userId, month)
      const length = monthDays(month).length
      assert.deepEqual([row.sumTarget, row.submittedCount], [length * 90, length], month)
    }
    assertConsistent(await assertMatchesRecomputation(suite.server().knex, d.id, userId))
  })
})
