import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import { recomputeUser } from '../../../src/timesheets/recompute'
import { addMonths, monthDays, monthOf, weekDays } from '../../../src/timesheets/periods'
import { MINUTE_MS } from '../../../src/timesheets/durations'
import { dayOf } from '../../../src/timesheets/sheet-rows'

/**
 * Checks that hold for a user's stored time sheets after any sequence of writes: the stored rows
 * equal a recomputation from scratch, the aggregates agree with each other, and the month rows
 * form a gap-free carry chain from the month of the user's `employedFrom` (CONTRACT §11.1).
 */
type Row = Record<string, any>

const ROLLBACK = new Error('rollback')

async function rowsOf(db: Knex | Knex.Transaction, companyId: number, userId: number) {
  const where = { companyId, userId }
  const user = await db('users').where({ id: userId, companyId }).first('employedFrom', 'openingBalance')
  return {
    account: { employedFrom: dayOf(user.employedFrom), openingBalance: Number(user.openingBalance) },
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
  const { days, weeks, months } = changed!
  assert.deepEqual(
    { days, weeks, months },
    { days: [], weeks: [], months: [] },
    'a recomputation from scratch changes stored rows'
  )
  assert.deepEqual(JSON.parse(JSON.stringify(recomputed)), JSON.parse(JSON.stringify(stored)))
  return stored
}

const daily = (row: Row): [number, number][] =>
  typeof row.dailyFigures === 'string' ? JSON.parse(row.dailyFigures) : row.dailyFigures

export interface Account {
  employedFrom: string
  openingBalance: number
}

/**
 * Weeks, months and days agree; days before `employedFrom` have no target (unless approved before
 * it moved); months from the month of `employedFrom` on are gap-free and chain their carries from
 * the opening balance; months before it start from 0 and pass nothing on.
 */
export function assertConsistent({
  days,
  weeks,
  months,
  account
}: {
  days: Row[]
  weeks: Row[]
  months: Row[]
  account: Account
}) {
  const chainStart = monthOf(account.employedFrom)
  const figures = new Map<string, [number, number]>()
  for (const month of months) monthDays(dayOf(month.month)).forEach((day, i) => figures.set(day, daily(month)[i]))
  for (const month of months) {
    const [actual, target] = daily(month).reduce(([a, t], [da, dt]) => [a + da, t + dt], [0, 0])
    assert.deepEqual(
      [Number(month.sumActualComputedMs), Number(month.sumTargetComputedMs)],
      [actual, target],
      `sums of ${dayOf(month.month)}`
    )
  }
  // An approved day keeps the figures it was approved with (CONTRACT §11.6), also when employedFrom
  // later moves past it; every other day before employedFrom has no target, whatever the versions say.
  const approved = new Set(days.filter((row) => row.status === 'approved').map((row) => dayOf(row.day)))
  for (const [day, [, target]] of figures) {
    if (day < account.employedFrom && !approved.has(day))
      assert.equal(target, 0, `${day} is before employedFrom: no target`)
  }
  for (const day of days) {
    const known = figures.get(dayOf(day.day))
    if (known)
      assert.deepEqual(
        [Number(day.durationMs), Number(day.expectedDurationMs)],
        known,
        `day ${dayOf(day.day)} against its month`
      )
  }
  for (const week of weeks) {
    const parts = weekDays(dayOf(week.weekStart)).map((day) => figures.get(day))
    if (parts.some((p) => p === undefined)) continue
    const [actual, target] = (parts as [number, number][]).reduce(([a, t], [da, dt]) => [a + da, t + dt], [0, 0])
    assert.deepEqual(
      [Number(week.sumActualMs), Number(week.sumTargetMs)],
      [actual, target],
      `week ${dayOf(week.weekStart)} against its months`
    )
  }
  months.forEach((month, i) => {
    const label = dayOf(month.month)
    if (label < chainStart) {
      assert.equal(Number(month.carryInComputedMs), 0, `${label} is outside the chain`)
      return
    }
    if (label === chainStart) {
      assert.equal(
        Number(month.carryInComputedMs),
        Math.round(account.openingBalance * MINUTE_MS),
        `${label} starts the chain with the opening balance`
      )
      return
    }
    const previous = months[i - 1]
    assert.equal(
      previous && dayOf(previous.month),
      addMonths(label, -1),
      `month rows are gap-free from the chain start (${label})`
    )
    assert.equal(
      Number(month.carryInComputedMs),
      Number(previous.carryOutMs),
      `${label} carryInComputed = carryOut of the month before`
    )
    if (month.carryInManualMs === null && month.lockedAt === null) {
      assert.equal(
        Number(month.carryInMs),
        Number(previous.carryOutMs),
        `${label} carryIn = carryOut of the month before`
      )
    }
    if (month.lockedAt !== null)
      assert.equal(Number(month.carryInMs), Number(month.carryInLockedMs), `${label} keeps its locked carryIn`)
  })
}
