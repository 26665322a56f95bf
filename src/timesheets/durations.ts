import { Instant, millis } from './calendar'

/**
 * Durations of time entries (CONTRACT §4, §7.2): exact milliseconds inside, minutes rounded to
 * 2 decimals only at the edge, so that sums of many entries never accumulate rounding.
 */
export const MINUTE_MS = 60000

/** A time span; `end` null is open (a running entry extends to +infinity). */
export interface Span {
  start: number
  end: number | null
}

export const span = (start: Instant, end: Instant | null | undefined): Span => ({
  start: millis(start),
  end: end === null || end === undefined ? null : millis(end)
})

/** Minutes rounded to 2 decimals, as every API duration is. */
export const roundMinutes = (minutes: number) => Math.round((minutes + Number.EPSILON) * 100) / 100

export const toMinutes = (ms: number) => ms / MINUTE_MS

/** A stored millisecond column (a number, or a string for PostgreSQL's bigint) as API minutes; null stays null. */
export const minutesOf = (ms: unknown): number | null =>
  ms === null || ms === undefined ? null : roundMinutes(toMinutes(Number(ms)))

// A zero-length span is an instant: it still collides with a span around it or one at the same instant.
const reach = (s: Span) => (s.end === null ? Infinity : Math.max(s.end, s.start + 1))

/** Whether two half-open spans share time; an open span reaches +infinity. */
export const spansOverlap = (a: Span, b: Span): boolean => a.start < reach(b) && b.start < reach(a)

/** Milliseconds that two closed spans share. */
export function overlapMs(a: { start: number; end: number }, b: { start: number; end: number }): number {
  return Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start))
}

/** Total length of closed spans clipped to `[start, end)`, counting time that several spans share once. */
export function coveredMs(spans: { start: number; end: number }[], start: number, end: number): number {
  const clipped = spans
    .map((s) => ({ start: Math.max(s.start, start), end: Math.min(s.end, end) }))
    .filter((s) => s.end > s.start)
    .sort((a, b) => a.start - b.start)
  let total = 0
  let coveredUntil = start
  for (const s of clipped) {
    const from = Math.max(s.start, coveredUntil)
    if (s.end > from) total += s.end - from
    coveredUntil = Math.max(coveredUntil, s.end)
  }
  return total
}
