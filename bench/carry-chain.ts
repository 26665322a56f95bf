import { performance } from 'node:perf_hooks'
import type { Knex } from 'knex'
import { createKnex } from '../src/db/knex'
import { lockUserTime, recompute, recomputeUser } from '../src/timesheets/recompute'
import { dayOf } from '../src/timesheets/sheet-rows'
import type { SeedInfo } from './seed'

/**
 * The carry chain: how long the service takes to recompute a user's months after a change in
 * the first one, when every later month's carry changes with it. It is measured through the
 * real module, in a transaction as the service runs it: `PATCH /v1/time-sheet-months/{id}` with
 * `carryInManual` writes the month, then recomputes it and the chain after it (afterMonthWrite
 * in src/services/time-sheet-months). Each run is rolled back, so every run does the same work.
 * For comparison, the same user recomputed from scratch (every day, week and month row).
 *
 * On PostgreSQL a rolled-back run leaves a dead version of each of the 25 rows and of its entries
 * in the table's nine indexes, which the next run's UPDATE reads past: after 60 runs its execution
 * took 1.9–2.4 ms instead of 0.5. A service does not rewrite one user's months sixty times a
 * second, and autovacuum removes dead versions between such bursts, so after each run the table is
 * vacuumed and the chain run once more (both untimed: a VACUUM makes every session reload the
 * table's descriptors and plans); `withoutVacuum` is the chain on the table the runs leave behind.
 */
export interface Timing {
  runs: number
  medianMs: number
  p90Ms: number
}

export interface CarryChainResult extends Timing {
  /**
   * The first RUNS runs after WARM_UP, while V8 still compiles the recomputation's code. The
   * target is checked on the next RUNS (`medianMs`, `p90Ms`): a serving process runs the same code
   * in every POST and PATCH of a time sheet, so the chain meets it warm.
   */
  cold: Timing
  /** PostgreSQL: the next RUNS without a VACUUM between them (the dead versions of each run add up). */
  withoutVacuum?: Timing
  companyId: number
  userId: number
  /** Month rows recomputed (and rewritten) per run. */
  months: number
  fromScratch: Timing & { days: number; weeks: number; months: number }
}

const RUNS = 30
const WARM_UP = 3

function timing(samples: number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q: number) =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] * 100) / 100
  return { runs: samples.length, medianMs: at(0.5), p90Ms: at(0.9) }
}

/** Runs `work` in a transaction that is always rolled back. */
async function rolledBack<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  const trx = await db.transaction()
  try {
    return await work(trx)
  } finally {
    await trx.rollback()
  }
}

async function repeat(count: number, once: () => Promise<number>, warmUp = WARM_UP) {
  const samples: number[] = []
  for (let i = 0; i < warmUp + count; i++) {
    const ms = await once()
    if (i >= warmUp) samples.push(ms)
  }
  return samples
}

export async function measureCarryChain(
  url: string,
  seed: SeedInfo,
  log: (line: string) => void
): Promise<CarryChainResult> {
  const companyId = seed.companies[0].id
  const userId = seed.companies[0].userIds.at(-1)!
  const user = { companyId, userId }
  const db = createKnex(url)
  try {
    const chain = await db('time_sheet_months').where(user).orderBy('month').select('id', 'month')
    const first = chain[0]
    // A user whose account starts after the first month row (the small set: the company's only
    // user is its admin, employed from the day of the seed), or a data set seeded before users had
    // `employedFrom` (SQLite allows null), has months outside the chain: each run starts the
    // account with the first month, rolled back with the rest.
    const { employedFrom } = await db('users').where({ id: userId, companyId }).first('employedFrom')
    const startAccount = async (trx: Knex.Transaction) => {
      if (employedFrom === null || dayOf(employedFrom) > dayOf(first.month))
        await trx('users')
          .where({ id: userId, companyId })
          .update({ employedFrom: dayOf(first.month) })
    }
    let months = 0
    const pg = db.client.config.client === 'pg'
    const chainRun = () =>
      rolledBack(db, async (trx) => {
        await lockUserTime(trx, user)
        await startAccount(trx)
        await trx('time_sheet_months')
          .where({ id: first.id, companyId })
          .update({ carryInManualMs: 90 * 60_000, updatedAt: new Date().toISOString() })
        const started = performance.now()
        const changed = await recompute(trx, companyId, userId, {
          days: [],
          weekStarts: [],
          months: [dayOf(first.month)]
        })
        const ms = performance.now() - started
        months = changed.months.length
        return ms
      })
    // VACUUM invalidates the table's cached descriptors and plans in every session: one untimed run
    // after it reloads them, and leaves the one dead version per row a month touched since the last
    // vacuum has.
    const chainOnce = async (vacuum = pg) => {
      const ms = await chainRun()
      if (vacuum) {
        await db.raw('VACUUM time_sheet_months')
        await chainRun()
      }
      return ms
    }
    const cold = await repeat(RUNS, chainOnce)
    const carry = await repeat(RUNS, chainOnce, 0)
    const withoutVacuum = pg ? timing(await repeat(RUNS, () => chainOnce(false), 0)) : undefined
    if (pg) await db.raw('VACUUM time_sheet_months')
    if (months !== chain.length)
      throw new Error(`carry chain: expected all ${chain.length} months to change, ${months} did`)

    const counts = { days: 0, weeks: 0, months: chain.length }
    counts.days = Number((await db('time_sheet_days').where(user).count({ n: '*' }).first())!.n)
    counts.weeks = Number((await db('time_sheet_weeks').where(user).count({ n: '*' }).first())!.n)
    const scratch = await repeat(10, () =>
      rolledBack(db, async (trx) => {
        await lockUserTime(trx, user)
        await startAccount(trx)
        const started = performance.now()
        await recomputeUser(trx, companyId, userId)
        return performance.now() - started
      })
    )
    const result: CarryChainResult = {
      companyId,
      userId,
      months,
      ...timing(carry),
      cold: timing(cold),
      withoutVacuum,
      fromScratch: { ...timing(scratch), ...counts }
    }
    log(
      `carry chain of ${months} months (user ${userId}): median ${result.medianMs} ms, p90 ${result.p90Ms} ms over ${RUNS} warm runs ` +
        `(the ${RUNS} before them: median ${result.cold.medianMs} ms` +
        (withoutVacuum ? `; the ${RUNS} after them without VACUUM: ${withoutVacuum.medianMs} ms` : '') +
        '); ' +
        `from scratch (${counts.days} days, ${counts.weeks} weeks, ${counts.months} months): median ${result.fromScratch.medianMs} ms`
    )
    return result
  } finally {
    await db.destroy()
  }
}
