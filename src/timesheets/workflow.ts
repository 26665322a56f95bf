import { conflict } from '../errors'

/**
 * The approval workflows of time sheets (CONTRACT §7.4–7.6), each one table of allowed moves:
 * a move that is not in its table is a 409. Staying in the same status is not a move.
 */
export const SHEET_STATUSES = ['draft', 'submitted', 'approved', 'declined'] as const
export type SheetStatus = (typeof SHEET_STATUSES)[number]

export type Moves = Record<SheetStatus, readonly SheetStatus[]>

/** `approved → draft` reopens a day (refused in a locked month). */
export const DAY_MOVES: Moves = {
  draft: ['submitted'],
  submitted: ['approved', 'declined', 'draft'],
  declined: ['submitted', 'draft'],
  approved: ['draft']
}

/** From the week's derived status; each move fans out to the seven days. */
export const WEEK_MOVES: Moves = {
  draft: ['submitted'],
  submitted: ['approved', 'declined', 'draft'],
  declined: ['submitted', 'draft'],
  approved: ['draft']
}

/** Like a day; `→ approved` locks the month, `approved → draft` unlocks it. Each move fans out to the month's days. */
export const MONTH_MOVES: Moves = {
  draft: ['submitted'],
  submitted: ['approved', 'declined', 'draft'],
  declined: ['submitted', 'draft'],
  approved: ['draft']
}

export function assertMove(moves: Moves, entity: string, from: SheetStatus, to: SheetStatus) {
  if (from === to || moves[from].includes(to)) return
  const allowed = moves[from].join(', ') || 'none'
  throw conflict(`A ${entity} cannot move from ${from} to ${to} (allowed from ${from}: ${allowed})`, {
    reason: 'illegal-move',
    validationErrors: { status: `cannot move from ${from} to ${to}` }
  })
}

/**
 * The moves that say a day's work is done (CONTRACT §11.3): only for days up to today (company
 * timezone). Reopening is allowed for any day; declining needs a submitted day, which a future day
 * cannot become.
 */
export const MOVES_FOR_PAST_DAYS: readonly SheetStatus[] = ['submitted', 'approved']

/** 409 naming the days after `today` that a move to `to` would submit or approve (`data.days`). */
export function assertDaysHappened(to: SheetStatus, days: readonly string[], today: string) {
  if (!MOVES_FOR_PAST_DAYS.includes(to)) return
  const future = days.filter((day) => day > today).sort()
  if (future.length === 0) return
  throw conflict(`Days after today (${today}) cannot be ${to}: ${future.join(', ')}`, {
    reason: 'future-days',
    days: future,
    validationErrors: { status: `days after today: ${future.join(', ')}` }
  })
}

export interface MoveContext {
  now: string
  actingUserId: number | null
  /** The record's `submittedFirstAt` before the move (it is set once). */
  submittedFirstAt: string | null
  /** Days record who approved or declined; months do not. */
  withDeciders: boolean
}

/** The workflow columns a move sets: when and by whom, and the pair that a move away from approved/declined clears. */
export function moveColumns(from: SheetStatus, to: SheetStatus, move: MoveContext): Record<string, unknown> {
  const columns: Record<string, unknown> = { status: to }
  const decided = (status: 'approved' | 'declined', at: string | null) => {
    columns[`${status}At`] = at
    if (move.withDeciders) columns[`${status}ById`] = at === null ? null : move.actingUserId
  }
  if (from === 'approved' || from === 'declined') decided(from, null)
  if (to === 'approved' || to === 'declined') decided(to, move.now)
  if (to === 'submitted') {
    columns.submittedAt = move.now
    if (move.submittedFirstAt === null) columns.submittedFirstAt = move.now
  }
  return columns
}
