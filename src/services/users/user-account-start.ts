import type { PlannedWrite, Row, ValidationErrors, WriteContext } from '../../resources/define-resource'
import { chainStartOf, loadAccountStart } from '../../timesheets/account'
import { logSheetEvents, sheetEvents } from '../../timesheets/events'
import { EARLIEST_DAY, lastDayOfMonth, monthOf, today } from '../../timesheets/periods'
import { lockUserTime, recomputeUser } from '../../timesheets/recompute'
import { MONTH_TABLE, dayOf, ensureSheets } from '../../timesheets/sheet-rows'
import { logWorkDaysChanges, workDaysOf } from '../user-absences/user-absences.rules'
import { conflict } from '../../errors'

/**
 * Where a user's time account starts (CONTRACT §11.1): `employedFrom` defaults to the day the
 * user is created (company timezone); changing it or `openingBalance` recomputes the user's
 * unlocked time sheets, and is refused (409) when it would change a locked month.
 */

/** What a PATCH changes of the account start: whether employedFrom and the opening balance move, and from when it takes effect. */
interface AccountChange {
  fromChanged: boolean
  balanceChanged: boolean
  effectFrom: string
  /** The `workDays` of the user's absences from `effectFrom`, before a move of `employedFrom` (they follow it). */
  workDaysBefore?: Map<number, { workDays: number }>
}

/** The write's change of the account start, from `beforeWrite` to `afterWrite`; null when it changes nothing of it. */
export type AccountPlan = AccountChange | null

/** What a PATCH changes of the account start, or null when nothing. */
function accountChange({ method, data, existing }: WriteContext<AccountPlan>): AccountPlan {
  if (method !== 'patch') return null
  const oldFrom = dayOf(existing!.employedFrom)
  const newFrom = data.employedFrom === undefined ? oldFrom : String(data.employedFrom)
  const balanceChanged =
    data.openingBalance !== undefined && Number(data.openingBalance) !== Number(existing!.openingBalance)
  if (newFrom === oldFrom && !balanceChanged) return null
  // Days between the old and the new start change their target; the chain starts in the earlier month.
  const effectFrom = newFrom < oldFrom ? newFrom : oldFrom
  return {
    fromChanged: newFrom !== oldFrom,
    balanceChanged,
    effectFrom: newFrom === oldFrom ? monthOf(oldFrom) : effectFrom
  }
}

export async function checkAccountWrite(write: WriteContext<AccountPlan>): Promise<ValidationErrors> {
  const { data, method, companyId, existing, trx } = write
  if (typeof data.employedFrom === 'string' && data.employedFrom < EARLIEST_DAY)
    return { employedFrom: `must not be before ${EARLIEST_DAY}` }
  if (method === 'create' && data.employedFrom === undefined) data.employedFrom = today(write.params.company!.timezone)
  const change = accountChange(write)
  write.plan = change
  if (!change) return {}
  const userId = Number(existing!.id)
  await lockUserTime(trx, { companyId, userId })
  const locked: Row[] = await trx(MONTH_TABLE)
    .where({ companyId, userId })
    .whereNotNull('lockedAt')
    .orderBy('month')
    .select('month')
  const months = locked.map((row) => dayOf(row.month))
  if (change.balanceChanged && months.length > 0) {
    throw conflict(
      `The opening balance of user ${userId} cannot change: the time sheet month ${months.join(', ')} is approved and locked; reopen it (status draft) first`,
      {
        reason: 'month-locked',
        months,
        validationErrors: { openingBalance: 'cannot change once a month of the user is locked' }
      }
    )
  }
  const affected = months.filter((month) => lastDayOfMonth(month) >= change.effectFrom)
  if (change.fromChanged && affected.length > 0) {
    throw conflict(
      `employedFrom of user ${userId} cannot move to or from a day on or before the end of the locked time sheet month ${affected.join(', ')}; reopen it (status draft) first`,
      {
        reason: 'month-locked',
        months: affected,
        validationErrors: { employedFrom: 'would change a locked month' }
      }
    )
  }
  if (change.fromChanged) change.workDaysBefore = await workDaysOf(write, userId, change.effectFrom)
  return {}
}

/** Recomputes the user's rows from where the change takes effect, after filling the chain up to its existing months. */
export async function afterAccountWrite(id: number, write: PlannedWrite<AccountPlan>) {
  const { plan: change, trx, companyId } = write
  if (!change) return
  const chainStart = chainStartOf(await loadAccountStart(trx, companyId, id))
  const last = await trx(MONTH_TABLE)
    .where({ companyId, userId: id })
    .where('month', '>=', chainStart)
    .max('month as month')
    .first()
  const created = last?.month
    ? await ensureSheets(trx, companyId, id, { months: [dayOf(last.month)] }, chainStart)
    : { days: [], weeks: [], months: [] }
  const changed = await recomputeUser(trx, companyId, id, change.effectFrom)
  logSheetEvents(write.params, sheetEvents(created, changed))
  if (change.workDaysBefore) await logWorkDaysChanges(write, change.workDaysBefore, id, change.effectFrom)
}
