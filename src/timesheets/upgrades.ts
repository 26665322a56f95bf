import type { Knex } from 'knex'
import { randomUUID } from 'node:crypto'
import { Recomputed, recomputeUser, lockUserTime } from './recompute'
import { appendEvents } from '../events/event-log'
import { COMPANY_RECOMPUTED, companyRecomputed } from './events'

/**
 * Recomputations that a release owes the figures it already stored, run once, right after the
 * migration that ships with the rule change is applied (by `crewclock migrate` and `serve`).
 * Migrations stay frozen (plain knex); a recomputation needs today's rules, so it lives here.
 * Locked months keep their snapshots and approved days stay frozen, as for any recomputation.
 */
type Upgrade = (db: Knex) => Promise<number>

/**
 * An upgrade's recomputation of a user is logged like a company's, as one `company.recomputed`
 * (reason `upgrade`) by the system, in the recomputation's transaction (CONTRACT §13.1).
 */
async function logUpgrade(trx: Knex.Transaction, companyId: number, userId: number, changed: Recomputed) {
  const changes = changed.days.length + changed.weeks.length + changed.months.length > 0
  const data = changes
    ? await companyRecomputed(trx, companyId, {
        reason: 'upgrade',
        fromDay: null,
        changed: new Map([[userId, changed]])
      })
    : null
  if (!data) return
  await appendEvents(trx, companyId, [{ type: COMPANY_RECOMPUTED, scope: 'company', data: { ...data } }], {
    actor: { system: true },
    requestId: randomUUID()
  })
}

const UPGRADES: Record<string, Upgrade> = {
  // CONTRACT §11.5: an approved needCompensation absence keeps the target with or without
  // compensationApprovedAt. Before, one still waiting for that decision reduced the target.
  '20261125000002_working_time_versions': async (db) => {
    const users: { companyId: number; userId: number }[] = await db('user_absences')
      .join('user_absence_types', 'user_absence_types.id', 'user_absences.typeId')
      .where('user_absence_types.needCompensation', true)
      .where('user_absences.status', 'approved')
      .whereNull('user_absences.compensationApprovedAt')
      .whereNull('user_absences.compensationDeclinedAt')
      .distinct('user_absences.companyId', 'user_absences.userId')
    for (const { companyId, userId } of users) {
      await db.transaction(async (trx) => {
        await lockUserTime(trx, { companyId, userId })
        const changed = await recomputeUser(trx, Number(companyId), Number(userId))
        await logUpgrade(trx, Number(companyId), Number(userId), changed)
      })
    }
    return users.length
  }
}

/** Runs the upgrades of the migrations just `applied`; returns what each did (users recomputed). */
export async function upgradeAfter(db: Knex, applied: string[]): Promise<Record<string, number>> {
  const done: Record<string, number> = {}
  for (const name of applied) {
    const upgrade = UPGRADES[name.replace(/\.(ts|js)$/, '')]
    if (upgrade) done[name] = await upgrade(db)
  }
  return done
}
