import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import { recomputeUser } from '../../src/timesheets/recompute'
import { addMonths, monthDays, weekDays } from '../../src/timesheets/periods'
import { dayOf } from '../../src/timesheets/sheet-rows'

/**
 * Checks that hold for a user's stored time sheets after any sequence of writes: the stored rows
 * equal a recomputation from scratch, the aggregates agree with each other, and the month rows
 * form a gap-free carry chain.
 */
type Row = Record<string, any>

const ROLLBACK = new Error('rollback')

async function rowsOf(db: Knex | Knex.Transaction, companyId: number, userId: number) {
  const where = { companyId, userId }
  return {
    days: await db('time_sheet_days').where(where).orderBy('day'),
    weeks: await db('time_sheet_weeks').where(where).orderBy('weekStart'),
    months: await db('time_sheet_months').where(where).orderBy('month')
  }
}

/** Recomputes everything from scratch in a transaction that is rolled back: nothing may change. */
export async function assertMatchesRecomputation(knex: Knex, companyId: number, userId: number) {
  const stored = await rowsOf(knex, companyId, userId)
  let recomputed: Awaited<ReturnType<typeof rowsOf>> | undefined
  let changed: Awaited<ReturnType<typeof recomputeUser>> | undefined
  await knex
    .transaction(async (trx) => {
      changed = await recomputeUser(trx, companyId, userId)
      recomputed = await rowsOf(trx, companyId, userId)
      throw ROLLBACK
    })
    .catch((error) => {
      if (error !== ROLLBACK) throw error
    })
  assert.deepEqual(changed, { days: [], weeks: [], months: [] }, 'a recomputation from scratch changes stored rows')
  assert.deepEqual(JSON.parse(JSON.stringify(recomputed)), JSON.parse(JSON.stringify(stored)))
  return stored
}

const daily = (row: Row): [number, number][] => (typeof row.dailyFigures === 'string' ? JSON.parse(row.dailyFigures) : row.dailyFigures)

/** Weeks, months and days agree; months are gap-free and chain their carries. */
export function assertConsistent({ days, weeks, months }: { days: Row[]; weeks: Row[]; months: Row[] }) {
  const figures = new Map<string, [number, number]>()
  for (const month of months) monthDays(dayOf(month.month)).forEach((day, i) => figures.set(day, daily(month)[i]))
  for (const month of months) {
    const [actual, target] = daily(month).reduce(([a, t], [da, dt]) => [a + da, t + dt], [0, 0])
    assert.deepEqual([Number(month.sumActualComputedMs), Number(month.sumTargetComputedMs)], [actual, target], `sums of ${dayOf(month.month)}`)
  }
  for (const day of days) {
    const known = figures.get(dayOf(day.day))
    if (known) assert.deepEqual([Number(day.durationMs), Number(day.expectedDurationMs)], known, `day ${dayOf(day.day)} against its month`)
  }
  for (const week of weeks) {
    const parts = weekDays(dayOf(week.weekStart)).map((day) => figures.get(day))
    if (parts.some((p) => p === undefined)) continue
    const [actual, target] = (parts as [number, number][]).reduce(([a, t], [da, dt]) => [a + da, t + dt], [0, 0])
    assert.deepEqual([Number(week.sumActualMs), Number(week.sumTargetMs)], [actual, target], `week ${dayOf(week.weekStart)} against its months`)
  }
  months.forEach((month, i) => {
    const label = dayOf(month.month)
    if (i === 0) {
      assert.equal(Number(month.carryInComputedMs), 0, `${label} starts the chain`)
      return
    }
    const previous = months[i - 1]
    assert.equal(label, addMonths(dayOf(previous.month), 1), 'month rows are gap-free')
    assert.equal(Number(month.carryInComputedMs), Number(previous.carryOutMs), `${label} carryInComputed = carryOut of the month before`)
    if (month.carryInManualMs === null && month.lockedAt === null) {
      assert.equal(Number(month.carryInMs), Number(previous.carryOutMs), `${label} carryIn = carryOut of the month before`)
    }
    if (month.lockedAt !== null) assert.equal(Number(month.carryInMs), Number(month.carryInLockedMs), `${label} keeps its locked carryIn`)
  })
}
