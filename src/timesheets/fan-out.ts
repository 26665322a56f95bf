import { conflict } from '../errors'
import type { Knex } from 'knex'
import { updateRows } from '../db/update-rows'
import type { Row } from '../resources/define-resource'
import { Day, calendarDay } from './calendar'
import { monthDays, monthOf, today, weekDays, weekStartOf } from './periods'
import { CreatedRows, DAY_TABLE, MONTH_TABLE, dayOf } from './sheet-rows'
import { Recomputed, openSheets, recompute } from './recompute'
import { MONTH_MOVES, SheetStatus, WEEK_MOVES, assertDaysHappened, assertMove, moveColumns } from './workflow'
import { weekStatus } from './aggregates'

/**
 * Week and month status changes (CONTRACT §7.5, §7.6): one move of the period becomes a move of
 * each of its days, in the request transaction, creating the missing day rows. Every guard is
 * checked before the first day moves, so a refused move changes nothing.
 */
export interface SheetOwner {
  companyId: number
  userId: number
  /** Who acts (`approvedById`, `declinedById`). */
  actingUserId: number | null
  timezone: string
}

export interface FanOutResult {
  /** Day rows whose status changed. */
  moved: number[]
  /** Those rows as the move stored them, by id. */
  movedRows: Map<number, Row>
  created: CreatedRows
  /** Rows whose stored values the move's recomputation changed (the moved days, their week and month, later carries). */
  changed: Recomputed
}

const NOTHING_MOVED = (): FanOutResult => ({
  moved: [],
  movedRows: new Map(),
  created: { days: [], weeks: [], months: [] },
  changed: { days: [], weeks: [], months: [] }
})

const daysOf = (rows: Row[]) => rows.map((row) => dayOf(row.day)).sort()

/** 409 when the user has a running entry that starts on one of `days` (a day with one cannot be submitted). */
export async function assertNoRunningEntry(trx: Knex.Transaction, owner: SheetOwner, days: Day[]) {
  if (days.length === 0) return
  const running: Row[] = await trx('time_entries')
    .where({ companyId: owner.companyId, userId: owner.userId })
    .whereNull('endsAt')
    .select('id', 'startsAt')
  const wanted = new Set(days)
  const blocking = running.filter((entry) => wanted.has(calendarDay(entry.startsAt, owner.timezone)))
  if (blocking.length > 0) {
    const on = blocking.map((entry) => calendarDay(entry.startsAt, owner.timezone)).join(', ')
    throw conflict(`A day with a running time entry cannot be submitted (${on}); end the entry first`, {
      reason: 'running-entry',
      ids: blocking.map((entry) => Number(entry.id)),
      timeEntryId: Number(blocking[0].id),
      validationErrors: { status: `running time entry on ${on}` }
    })
  }
}

/** 409 when one of `days` lies in a locked month. */
export async function assertNotLocked(trx: Knex.Transaction, owner: SheetOwner, days: Day[]) {
  if (days.length === 0) return
  const months = [...new Set(days.map(monthOf))]
  const locked = (
    await trx(MONTH_TABLE)
      .where({ companyId: owner.companyId, userId: owner.userId })
      .whereIn('month', months)
      .whereNotNull('lockedAt')
      .select('month')
  ).map((row: Row) => row.month)
  if (locked.length > 0) {
    throw conflict(
      `The month ${locked.map(dayOf).join(', ')} is approved and locked; reopen the month (status draft) first`,
      {
        reason: 'month-locked',
        months: locked.map(dayOf),
        validationErrors: { status: 'the month is locked' }
      }
    )
  }
}

/** The day rows that move to `to`, after the guards of that move. */
async function daysToMove(trx: Knex.Transaction, owner: SheetOwner, rows: Row[], to: SheetStatus): Promise<Row[]> {
  const withStatus = (...statuses: SheetStatus[]) => rows.filter((row) => statuses.includes(row.status))
  const happenedBy = today(owner.timezone)
  if (to === 'submitted') {
    const moving = withStatus('draft', 'declined')
    assertDaysHappened(to, daysOf(moving), happenedBy)
    await assertNoRunningEntry(trx, owner, daysOf(moving))
    return moving
  }
  if (to === 'approved') {
    // Every day not yet approved would have to be: a future one can never be (§11.3), so it is named first.
    assertDaysHappened(to, daysOf(withStatus('draft', 'declined', 'submitted')), happenedBy)
    const others = withStatus('draft', 'declined')
    if (others.length > 0) {
      const listed = others.map((row) => `${dayOf(row.day)} (${row.status})`).join(', ')
      throw conflict(`Every day must be submitted or approved before approving; not yet: ${listed}`, {
        reason: 'days-not-submitted',
        days: daysOf(others),
        validationErrors: { status: `days not submitted: ${daysOf(others).join(', ')}` }
      })
    }
    return withStatus('submitted')
  }
  if (to === 'declined') return withStatus('submitted')
  const moving = withStatus('submitted', 'approved', 'declined')
  await assertNotLocked(trx, owner, daysOf(moving))
  return moving
}

/**
 * Moves every day of `days` that the move concerns: `submitted` submits draft and declined days
 * (409 for a running entry), `approved` approves submitted days and needs every day submitted or
 * approved (409 naming the others), `declined` declines submitted days, `draft` reopens every
 * day that is not draft (409 in a locked month). Submitting or approving a day after today is a
 * 409 naming those days (§11.3). Missing day rows are created first.
 */
export async function fanOutDays(
  trx: Knex.Transaction,
  owner: SheetOwner,
  days: Day[],
  to: SheetStatus,
  read?: Row[]
): Promise<FanOutResult> {
  // `read`: the day rows of `days` as the caller has just read them whole. When every day has
  // one, there is nothing to open: a day row is only ever created with its week and its months,
  // and the chain of months is kept gap-free.
  const complete = read !== undefined && new Set(read.map((row) => dayOf(row.day))).size === new Set(days).size
  const created = complete ? NOTHING_MOVED().created : await openSheets(trx, owner.companyId, owner.userId, { days })
  const rows: Row[] = complete
    ? [...read].sort((a, b) => (dayOf(a.day) < dayOf(b.day) ? -1 : 1))
    : await trx(DAY_TABLE)
        .where({ companyId: owner.companyId, userId: owner.userId })
        .whereIn('day', days)
        .orderBy('day')
  const moving = await daysToMove(trx, owner, rows, to)
  const now = new Date().toISOString()
  const moves = moving.map((row) => ({
    id: Number(row.id),
    columns: moveColumns(row.status, to, {
      now,
      actingUserId: owner.actingUserId,
      submittedFirstAt: row.submittedFirstAt ?? null,
      withDeciders: true
    })
  }))
  await updateRows(trx, DAY_TABLE, owner.companyId, moves, { updatedAt: now })
  const changed = await recompute(trx, owner.companyId, owner.userId, {
    days,
    weekStarts: days.map(weekStartOf),
    months: days.map(monthOf)
  })
  const movedRows = new Map(
    moves.map(({ id, columns }, i): [number, Row] => [id, { ...moving[i], ...columns, updatedAt: now }])
  )
  return { moved: moving.map((row) => Number(row.id)), movedRows, created, changed }
}

/**
 * `draft` on a week or month reopens every day of it that is not draft, whatever the period's own
 * status (CONTRACT §11.6): a draft week may hold a submitted or approved day, a draft month too.
 */
const reopensDays = (to: SheetStatus, rows: Row[]) => to === 'draft' && rows.some((row) => row.status !== 'draft')

/**
 * A week's status change: a move from its derived status (WEEK_MOVES), fanned out to its seven
 * days; the same status is no move, except `draft`, which reopens the days that are not draft.
 */
export async function moveWeek(
  trx: Knex.Transaction,
  owner: SheetOwner,
  weekStart: Day,
  to: SheetStatus
): Promise<FanOutResult> {
  const days = weekDays(weekStart)
  const rows: Row[] = await trx(DAY_TABLE)
    .where({ companyId: owner.companyId, userId: owner.userId })
    .whereIn('day', days)
  const byDay = new Map(rows.map((row) => [dayOf(row.day), row.status as SheetStatus]))
  const from = weekStatus(days.map((day) => ({ status: byDay.get(day) ?? 'draft' })))
  assertMove(WEEK_MOVES, 'time sheet week', from, to)
  return from === to && !reopensDays(to, rows) ? NOTHING_MOVED() : fanOutDays(trx, owner, days, to, rows)
}

/**
 * A month's status change (MONTH_MOVES): the month's own workflow columns, the fan-out to its
 * days, and the lock. Approving snapshots the figures (`lockedAt`, `*Locked`); reopening an
 * approved month unlocks it first, so that its days can be reopened. `draft` on a draft month
 * still reopens its days that are not draft.
 */
export async function moveMonth(
  trx: Knex.Transaction,
  owner: SheetOwner,
  month: Row,
  to: SheetStatus
): Promise<FanOutResult> {
  const from = month.status as SheetStatus
  assertMove(MONTH_MOVES, 'time sheet month', from, to)
  const days = monthDays(dayOf(month.month))
  if (from === to) {
    const rows: Row[] =
      to === 'draft'
        ? await trx(DAY_TABLE)
            .where({ companyId: owner.companyId, userId: owner.userId })
            .whereIn('day', days)
            .select('status')
        : []
    return reopensDays(to, rows) ? fanOutDays(trx, owner, days, to) : NOTHING_MOVED()
  }
  const now = new Date().toISOString()
  const where = { id: month.id, companyId: owner.companyId }
  const columns = moveColumns(from, to, {
    now,
    actingUserId: owner.actingUserId,
    submittedFirstAt: month.submittedFirstAt ?? null,
    withDeciders: false
  })
  const unlock =
    from === 'approved'
      ? {
          lockedAt: null,
          sumActualLockedMs: null,
          sumTargetLockedMs: null,
          carryInLockedMs: null,
          carryOutLockedMs: null
        }
      : {}
  await trx(MONTH_TABLE)
    .where(where)
    .update({ ...columns, ...unlock, updatedAt: now })
  const result = await fanOutDays(trx, owner, days, to)
  if (to === 'approved') {
    const fresh: Row = await trx(MONTH_TABLE).where(where).first()
    await trx(MONTH_TABLE).where(where).update({
      lockedAt: now,
      sumActualLockedMs: fresh.sumActualComputedMs,
      sumTargetLockedMs: fresh.sumTargetComputedMs,
      carryInLockedMs: fresh.carryInMs,
      carryOutLockedMs: fresh.carryOutMs,
      updatedAt: now
    })
  }
  return result
}
