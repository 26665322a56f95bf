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

/** A pause as written (CONTRACT §11.4): `end` null is the open pause. */
export interface PauseSpan {
  start: number
  end: number | null
}

/**
 * A write to the clock; an absent key leaves that part unchanged, `pausedAt: null` resumes (at
 * `resumedAt` when given, else now), `pauses` replaces every pause, the open one included.
 */
export interface ClockChange {
  start?: number
  end?: number | null
  pausedAt?: number | null
  resumedAt?: number
  pauses?: PauseSpan[]
}

export type ClockOutcome =
  | { ok: true; clock: EntryClock; closedPause: { start: number; end: number } | null }
  | { ok: false; status: 400 | 409; field: string; message: string; errors: Record<string, string> }

const refuse = (status: 400 | 409, field: string, message: string): ClockOutcome => ({
  ok: false,
  status,
  field,
  message,
  errors: { [field]: message }
})

const isoOf = (ms: number) => new Date(ms).toISOString()

/**
 * The errors of a pause list against the entry's span, keyed by the path of the offending value
 * as the client sent it (`pauses.1.endsAt`): each pause lies inside the entry, ends not before it
 * starts, at most one is open and only on a running entry, and none overlaps another (touching is
 * fine). The order of the list does not matter: the server stores it sorted.
 */
export function pauseErrors(pauses: PauseSpan[], entry: { start: number; end: number | null }): Record<string, string> {
  const errors: Record<string, string> = {}
  const add = (path: string, message: string) => {
    if (!Object.hasOwn(errors, path)) errors[path] = message
  }
  let openSeen = false
  pauses.forEach((pause, i) => {
    if (pause.end !== null && pause.end < pause.start) add(`pauses.${i}.endsAt`, 'must not be before startsAt')
    if (pause.start < entry.start)
      add(`pauses.${i}.startsAt`, `must not be before the entry's startsAt (${isoOf(entry.start)})`)
    if (entry.end !== null && pause.start > entry.end)
      add(`pauses.${i}.startsAt`, `must not be after the entry's endsAt (${isoOf(entry.end)})`)
    if (pause.end === null) {
      if (entry.end !== null)
        add(`pauses.${i}.endsAt`, 'must be set: only a running entry (endsAt null) can have an open pause')
      else if (openSeen) add(`pauses.${i}.endsAt`, 'must be set: at most one pause can be open')
      openSeen = true
    } else if (entry.end !== null && pause.end > entry.end)
      add(`pauses.${i}.endsAt`, `must not be after the entry's endsAt (${isoOf(entry.end)})`)
  })
  const order = pauses
    .map((pause, i) => ({ ...pause, i }))
    .sort((a, b) => a.start - b.start || (a.end ?? Infinity) - (b.end ?? Infinity) || a.i - b.i)
  for (let k = 1; k < order.length; k++) {
    const before = order[k - 1]
    if (before.end === null || order[k].start < before.end)
      add(`pauses.${order[k].i}.startsAt`, `overlaps pauses.${before.i}`)
  }
  return errors
}

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

  if (change.pauses !== undefined) {
    const errors = pauseErrors(change.pauses, {
      start: clock.start,
      end: change.end !== undefined ? change.end : base.end
    })
    const [first] = Object.keys(errors)
    if (first !== undefined) return { ok: false, status: 400, field: first, message: errors[first], errors }
    const sorted = [...change.pauses].sort((a, b) => a.start - b.start)
    clock.pauses = sorted.filter((p): p is { start: number; end: number } => p.end !== null)
    clock.pausedAt = sorted.find((p) => p.end === null)?.start ?? null
  }
  if (change.resumedAt !== undefined && clock.pausedAt !== null && change.resumedAt < clock.pausedAt) {
    return refuse(400, 'resumedAt', `must not be before the start of the open pause (${isoOf(clock.pausedAt)})`)
  }
  if (change.pausedAt === null && clock.pausedAt !== null) close(change.resumedAt ?? Math.max(now, clock.pausedAt))
  if (typeof change.pausedAt === 'number') {
    if (base.end !== null) return refuse(409, 'pausedAt', 'only a running entry (endsAt null) can be paused')
    if (base.pausedAt !== null)
      return refuse(409, 'pausedAt', `the entry is already paused since ${new Date(base.pausedAt).toISOString()}`)
    const lastPauseEnd = Math.max(-Infinity, ...clock.pauses.map((p) => p.end))
    if (change.pausedAt < clock.start) return refuse(400, 'pausedAt', 'must not be before startsAt')
    if (change.pausedAt < lastPauseEnd)
      return refuse(400, 'pausedAt', 'must not be before the end of the previous pause')
    clock.pausedAt = change.pausedAt
  }
  if (change.end !== undefined) clock.end = change.end

  if (clock.end !== null && clock.end < clock.start) return refuse(400, 'endsAt', 'must not be before startsAt')
  if (clock.pausedAt !== null && clock.pausedAt < clock.start)
    return refuse(400, 'startsAt', 'must not be after the start of the current pause (pausedAt)')
  if (clock.end !== null && clock.pausedAt !== null) {
    if (clock.end < clock.pausedAt)
      return refuse(400, 'endsAt', 'must not be before the start of the current pause (pausedAt)')
    close(clock.end)
  }
  // A new span must still hold the stored pauses: the client changes them with `pauses`.
  if (change.pauses === undefined && clock.end !== null) {
    const outside = clock.pauses.find((p) => p.end > (clock.end as number))
    if (outside)
      return refuse(
        400,
        'endsAt',
        `must not be before the end of a pause (${isoOf(outside.end)}); send pauses to change them`
      )
  }
  if (change.pauses === undefined) {
    const outside = clock.pauses.find((p) => p.start < clock.start)
    if (outside)
      return refuse(
        400,
        'startsAt',
        `must not be after the start of a pause (${isoOf(outside.start)}); send pauses to change them`
      )
  }
  return { ok: true, clock, closedPause }
}
