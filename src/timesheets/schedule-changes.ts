import { conflict } from '../errors'
import type { Knex } from 'knex'
import type { Day } from './calendar'
import { monthOf } from './periods'
import { MONTH_TABLE, dayOf } from './sheet-rows'

/**
 * What a change of a working-time version touches (CONTRACT §11.2, §11.6): a version applies from
 * its `validFrom` up to the day before the next version; creating, changing or deleting it changes
 * the days of that range (both ranges when `validFrom` moves), so it "would change a locked month"
 * when a range overlaps one, and the recomputation starts at the earliest of them.
 */
export interface VersionRange {
  from: Day
  /** The next version's `validFrom` (exclusive); null: open-ended. */
  until: Day | null
}

/** The range of a version valid from `validFrom` among `others` (the other versions' `validFrom`s). */
export function rangeOf(validFrom: Day, others: Day[]): VersionRange {
  const later = others.filter((day) => day > validFrom).sort()
  return { from: validFrom, until: later[0] ?? null }
}

/** The locked months (of one user, or of every user with null) that overlap one of `ranges`. */
export async function lockedMonthsIn(
  trx: Knex.Transaction,
  companyId: number,
  userId: number | null,
  ranges: VersionRange[]
) {
  const found = new Map<string, { userId: number; month: Day }>()
  for (const { from, until } of ranges) {
    const query = trx(MONTH_TABLE).where({ companyId }).whereNotNull('lockedAt').where('month', '>=', monthOf(from))
    if (userId !== null) query.where({ userId })
    if (until !== null) query.where('month', '<', until)
    for (const row of await query.select('userId', 'month'))
      found.set(`${row.userId} ${dayOf(row.month)}`, { userId: Number(row.userId), month: dayOf(row.month) })
  }
  return [...found.values()].sort((a, b) => (a.month < b.month ? -1 : a.month > b.month ? 1 : a.userId - b.userId))
}

/** 409 when a version change would change a locked month; `field` names what the client wrote. */
export async function assertNoLockedMonthIn(
  trx: Knex.Transaction,
  companyId: number,
  userId: number | null,
  ranges: VersionRange[],
  field = 'validFrom'
) {
  const locked = await lockedMonthsIn(trx, companyId, userId, ranges)
  if (locked.length === 0) return
  const months = [...new Set(locked.map((row) => row.month))]
  const whose =
    userId !== null ? `of user ${userId} ` : `of user ${[...new Set(locked.map((row) => row.userId))].join(', ')} `
  throw conflict(
    `The working-time version would change the time sheet month ${months.join(', ')} ${whose}that is approved and locked; reopen it (status draft) first, or let the version start after it`,
    {
      reason: 'month-locked',
      months,
      userIds: [...new Set(locked.map((row) => row.userId))],
      validationErrors: { [field]: 'would change a locked month' }
    }
  )
}

/** The earliest day of `ranges`: where the recomputation starts. */
export const earliestOf = (ranges: VersionRange[]): Day => ranges.map((range) => range.from).sort()[0]
