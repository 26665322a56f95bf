import { coveredMs, toMinutes } from './durations'

/**
 * A time entry's clock (CONTRACT §7.2): its span, the closed pauses and the current pause.
 * All instants are epoch milliseconds; `end` null = running, `pausedAt` = start of the current pause.
 */
export interface EntryClock {
  start: number
  end: number | null
  pausedAt: number | null
  pauses: { start: number; end: number }[]
}

/**
 * Worked milliseconds: (end − start) − all paused spans within the entry; null while running.
 * An entry that ends while paused counts its current pause up to the end.
 */
export function workedMs(clock: EntryClock): number | null {
  if (clock.end === null) return null
  const pauses = clock.pausedAt === null ? clock.pauses : [...clock.pauses, { start: clock.pausedAt, end: clock.end }]
  return clock.end - clock.start - coveredMs(pauses, clock.start, clock.end)
}

export const workedMinutes = (clock: EntryClock): number | null => {
  const ms = workedMs(clock)
  return ms === null ? null : toMinutes(ms)
}

/** A write to the clock; an absent key leaves that part unchanged, `pausedAt: null` resumes. */
export interface ClockChange {
  start?: number
  end?: number | null
  pausedAt?: number | null
}

export type ClockOutcome =
  | { ok: true; clock: EntryClock; closedPause: { start: number; end: number } | null }
  | { ok: false; status: 400 | 409; field: string; message: string }

const refuse = (status: 400 | 409, field: string, message: string): ClockOutcome => ({ ok: false, status, field, message })

/**
 * Applies a create or PATCH to a clock. Pausing needs a running entry that is not paused (409);
 * resuming closes the pause now (a no-op when not paused); ending a paused entry closes the
 * pause at the end. Returns the new clock and the pause span it closed, if any.
 */
export function changeClock(before: EntryClock | null, change: ClockChange, now: number): ClockOutcome {
  const base: EntryClock = before ?? { start: change.start ?? now, end: null, pausedAt: null, pauses: [] }
  const clock: EntryClock = { ...base, start: change.start ?? base.start, pauses: [...base.pauses] }
  let closedPause: { start: number; end: number } | null = null
  const close = (end: number) => {
    closedPause = { start: clock.pausedAt as number, end }
    clock.pauses.push(closedPause)
    clock.pausedAt = null
  }

  if (change.pausedAt === null && clock.pausedAt !== null) close(Math.max(now, clock.pausedAt))
  if (typeof change.pausedAt === 'number') {
    if (base.end !== null) return refuse(409, 'pausedAt', 'only a running entry (endsAt null) can be paused')
    if (base.pausedAt !== null) return refuse(409, 'pausedAt', `the entry is already paused since ${new Date(base.pausedAt).toISOString()}`)
    const lastPauseEnd = Math.max(-Infinity, ...clock.pauses.map((p) => p.end))
    if (change.pausedAt < clock.start) return refuse(400, 'pausedAt', 'must not be before startsAt')
    if (change.pausedAt < lastPauseEnd) return refuse(400, 'pausedAt', 'must not be before the end of the previous pause')
    clock.pausedAt = change.pausedAt
  }
  if (change.end !== undefined) clock.end = change.end

  if (clock.end !== null && clock.end < clock.start) return refuse(400, 'endsAt', 'must not be before startsAt')
  if (clock.pausedAt !== null && clock.pausedAt < clock.start) return refuse(400, 'startsAt', 'must not be after the start of the current pause (pausedAt)')
  if (clock.end !== null && clock.pausedAt !== null) {
    if (clock.end < clock.pausedAt) return refuse(400, 'endsAt', 'must not be before the start of the current pause (pausedAt)')
    close(clock.end)
  }
  return { ok: true, clock, closedPause }
}
