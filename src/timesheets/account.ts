import type { Knex } from 'knex'
import type { Day } from './calendar'
import { MINUTE_MS } from './durations'
import { monthOf } from './periods'
import { dayOf } from './sheet-rows'

/**
 * Where a user's time account starts (CONTRACT §11.1): days before `employedFrom` have target 0,
 * and the carry chain starts in its month with the opening balance. Months that end before it
 * are outside the chain: each starts from 0 and its carry-out flows nowhere.
 */
export interface AccountStart {
  employedFrom: Day
  openingBalanceMs: number
}

export async function loadAccountStart(
  db: Knex | Knex.Transaction,
  companyId: number,
  userId: number
): Promise<AccountStart> {
  const user = await db('users').where({ id: userId, companyId }).first('employedFrom', 'openingBalance')
  if (!user) throw new Error(`No user ${userId} in company ${companyId}`)
  return accountStartOf(user)
}

export const accountStartOf = (user: { employedFrom: unknown; openingBalance: unknown }): AccountStart => ({
  employedFrom: dayOf(user.employedFrom),
  openingBalanceMs: Math.round(Number(user.openingBalance ?? 0) * MINUTE_MS)
})

/** The first month of the carry chain. */
export const chainStartOf = (account: AccountStart): Day => monthOf(account.employedFrom)

/**
 * The carry-in a month takes from the chain: the opening balance in the chain's first month, the
 * carry-out of the month before after it, 0 for a month outside the chain. `previous` is the
 * month row before, if any.
 */
export function chainCarryInMs(
  month: Day,
  account: AccountStart,
  previous: { month: Day; carryOutMs: number } | null
): number {
  const start = chainStartOf(account)
  if (month < start) return 0
  if (month === start || previous === null || previous.month < start) return account.openingBalanceMs
  return previous.carryOutMs
}
