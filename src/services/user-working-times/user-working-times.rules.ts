import type { Knex } from 'knex'
import type {
  PlannedRemove,
  PlannedWrite,
  RemoveContext,
  ResourceCall,
  Row,
  ValidationErrors,
  WriteContext
} from '../../resources/define-resource'
import type { Day } from '../../timesheets/calendar'
import { logRecomputed } from '../../timesheets/events'
import { EARLIEST_DAY } from '../../timesheets/periods'
import { lockUserTime, recomputeUser } from '../../timesheets/recompute'
import { SHORT_WEEKDAYS } from '../../timesheets/schedule'
import { VersionRange, assertNoLockedMonthIn, earliestOf, rangeOf } from '../../timesheets/schedule-changes'
import { dayOf } from '../../timesheets/sheet-rows'
import { logWorkDaysChanges, workDaysOf } from '../user-absences/user-absences.rules'
import { conflict } from '../../errors'

/**
 * The write rules of a user's working-time versions (CONTRACT §11.2, §11.6). A version applies
 * from its `validFrom` up to the day before the user's next version, so a write changes the days
 * of that range (of both ranges when `validFrom` moves).
 *
 * The stages split by what they need: before the statement, what must precede it (the user's
 * lock, and the duplicate `validFrom` as a 409 rather than a unique violation that would abort
 * the PostgreSQL transaction); after it, what follows from the versions as now stored (the
 * ranges among the user's other versions, the locked-month 409, the recomputation). `beforeWrite`
 * works out the change once and hands it to `afterWrite` as the write's plan.
 */

/** What a write changes of the user's days: where the version started before (null: new) and where it starts now. */
interface VersionChange {
  userId: number
  before: Day | null
  after: Day
  /** The `workDays` of the user's absences from the earliest day the change can touch, before it. */
  workDaysBefore?: Map<number, { workDays: number }>
}

/** The write's change, or null when it changes no day. */
export type VersionPlan = VersionChange | null

/** What a delete needs after the row is gone: the absences' `workDays` before it. */
export interface VersionRemovePlan {
  workDaysBefore: Map<number, { workDays: number }>
}

/** The earliest day a change from `before` to `after` can touch. */
const earliestDay = ({ before, after }: { before: Day | null; after: Day }) =>
  before !== null && before < after ? before : after

const sameTargets = (a: Row, b: Row) => SHORT_WEEKDAYS.every((day) => Number(a?.[day]) === Number(b?.[day]))

/**
 * The change of a create or PATCH, or null when it changes no day: a PATCH of `note` or
 * `externalId`, or one that sends the values the version already has. (A create whose body lacks
 * the user or the day is the schema's 400.)
 */
function changeOf({ method, data, existing }: WriteContext<VersionPlan>): VersionPlan {
  if (method === 'create') {
    if (data.userId === undefined || typeof data.validFrom !== 'string') return null
    return { userId: Number(data.userId), before: null, after: data.validFrom }
  }
  const before = dayOf(existing!.validFrom)
  const after = typeof data.validFrom === 'string' ? data.validFrom : before
  const targetsChanged =
    data.targets !== undefined && data.targets !== null && !sameTargets(data.targets, existing!.targets)
  if (after === before && !targetsChanged) return null
  return { userId: Number(existing!.userId), before, after }
}

/** The `validFrom` of each of the user's versions but `exceptId`, as stored now. */
async function otherVersionDays(
  trx: Knex.Transaction,
  companyId: number,
  userId: number,
  exceptId: number
): Promise<Day[]> {
  const rows: Row[] = await trx('user_working_times')
    .where({ companyId, userId })
    .whereNot('id', exceptId)
    .select('validFrom')
  return rows.map((row) => dayOf(row.validFrom))
}

/** The ranges of days a change touches: where the version held before, and where it holds now. */
const rangesOf = (change: { before: Day | null; after: Day }, others: Day[]): VersionRange[] => [
  ...(change.before !== null && change.before !== change.after ? [rangeOf(change.before, others)] : []),
  rangeOf(change.after, others)
]

/**
 * 409 unless the ranges lie outside the user's locked months; then recomputes the user's rows from
 * the earliest of them, in the write's transaction, and logs the rows that changed and the
 * absences whose `workDays` the new schedule changed.
 */
async function applyChange(
  call: ResourceCall,
  userId: number,
  ranges: VersionRange[],
  workDaysBefore: Map<number, { workDays: number }>
) {
  const { trx, companyId } = call
  await assertNoLockedMonthIn(trx, companyId, userId, ranges)
  logRecomputed(call, await recomputeUser(trx, companyId, userId, earliestOf(ranges)))
  await logWorkDaysChanges(call, workDaysBefore, userId, earliestOf(ranges))
}

export async function checkVersionWrite(write: WriteContext<VersionPlan>): Promise<ValidationErrors | void> {
  const { data, existing, companyId, trx } = write
  // Like users' employedFrom and the by-user look-ups: no time account reaches before it.
  if (typeof data.validFrom === 'string' && data.validFrom < EARLIEST_DAY)
    return { validFrom: `must not be before ${EARLIEST_DAY}` }
  const change = changeOf(write)
  write.plan = change
  if (!change) return
  await lockUserTime(trx, { companyId, userId: change.userId })
  change.workDaysBefore = await workDaysOf(write, change.userId, earliestDay(change))
  if (change.after === change.before) return
  const query = trx('user_working_times')
    .where({ companyId, userId: change.userId, validFrom: change.after })
    .first('id')
  if (existing) query.whereNot('id', existing.id)
  const taken = await query
  if (taken) {
    throw conflict(
      `User ${change.userId} has a working-time version from ${change.after} (id ${taken.id}); change that one (PATCH) instead`,
      {
        reason: 'version-exists',
        ids: [Number(taken.id)],
        userWorkingTimeId: Number(taken.id),
        validationErrors: { validFrom: 'is taken by another version of the user' }
      }
    )
  }
}

export async function afterVersionWrite(id: number, write: PlannedWrite<VersionPlan>) {
  const change = write.plan
  if (!change) return
  const others = await otherVersionDays(write.trx, write.companyId, change.userId, id)
  await applyChange(write, change.userId, rangesOf(change, others), change.workDaysBefore ?? new Map())
}

/** The user's lock before the row goes, so that the ranges read afterwards are this write's alone. */
export async function beforeVersionRemove(remove: RemoveContext<VersionRemovePlan>) {
  const { trx, companyId, existing } = remove
  await lockUserTime(trx, { companyId, userId: Number(existing.userId) })
  remove.plan = { workDaysBefore: await workDaysOf(remove, Number(existing.userId), dayOf(existing.validFrom)) }
}

/** The days of the removed version go back to the previous version of the user, or to the company's. */
export async function afterVersionRemove(remove: PlannedRemove<VersionRemovePlan>) {
  const { existing: removed } = remove
  const userId = Number(removed.userId)
  const others = await otherVersionDays(remove.trx, remove.companyId, userId, Number(removed.id))
  const ranges = rangesOf({ before: null, after: dayOf(removed.validFrom) }, others)
  await applyChange(remove, userId, ranges, remove.plan.workDaysBefore)
}
