import { DateTime } from 'luxon'

/**
 * Calendar days in a company's timezone (CONTRACT §7.1). A day runs from local midnight to the
 * next local midnight, so it lasts 23 or 25 hours on the days the clocks change.
 */
export type Instant = Date | string | number

/** A calendar day as `YYYY-MM-DD`. */
export type Day = string

export const millis = (instant: Instant) =>
  instant instanceof Date ? instant.getTime() : typeof instant === 'number' ? instant : Date.parse(instant)

function zoned(instant: Instant, zone: string) {
  const value = DateTime.fromMillis(millis(instant), { zone })
  if (!value.isValid) throw new Error(`Invalid instant or timezone: ${String(instant)} in ${zone}`)
  return value
}

function parseDay(day: Day, zone: string) {
  const value = DateTime.fromISO(day, { zone })
  if (!value.isValid || value.toISODate() !== day) throw new Error(`Invalid day: ${day} in ${zone}`)
  return value
}

/** `[start, end)` of a calendar day in milliseconds, from luxon (each zone conversion asks Intl for the offset). */
function computeBounds(day: Day, zone: string): { start: number; end: number } {
  const start = parseDay(day, zone).startOf('day')
  // The next day is found by date, not by adding 24 h: where a DST change happens at midnight
  // (America/Santiago) a day starts at 01:00 and the next one at 00:00.
  const next = parseDay(nextDay(day), zone).startOf('day')
  return { start: start.toMillis(), end: next.toMillis() }
}

/**
 * The bounds of a day in a zone never change, and a recomputation asks for the same few hundred
 * days again and again (luxon's zone conversions were most of its time): they are kept, per
 * process, up to a limit far above the days a company's time sheets span.
 */
const boundsCache = new Map<string, { start: number; end: number }>()
const BOUNDS_CACHE_LIMIT = 200_000

function cachedBounds(day: Day, zone: string): { start: number; end: number } {
  const key = `${zone}|${day}`
  let bounds = boundsCache.get(key)
  if (bounds === undefined) {
    bounds = computeBounds(day, zone)
    if (boundsCache.size >= BOUNDS_CACHE_LIMIT) boundsCache.clear()
    boundsCache.set(key, bounds)
  }
  return bounds
}

const utcDay = (ms: number): Day => new Date(ms).toISOString().slice(0, 10)
const DAY_MS = 86_400_000

/**
 * The calendar day an instant falls on in `zone`. Within a day of exactly 24 hours the offset
 * does not change, so every instant between its bounds is on that day; the day is the UTC date
 * or the one before or after it (offsets stay within ±14 h). Luxon answers for the days the
 * clocks change (where a repeated hour can read as the previous day) and for what matches no
 * day (an invalid instant or zone: its error).
 */
export function calendarDay(instant: Instant, zone: string): Day {
  const ms = millis(instant)
  if (Number.isFinite(ms) && Math.abs(ms) < 8.64e15 - 2 * DAY_MS) {
    for (const day of [utcDay(ms), utcDay(ms - DAY_MS), utcDay(ms + DAY_MS)]) {
      let bounds: { start: number; end: number }
      try {
        bounds = cachedBounds(day, zone)
      } catch {
        continue // a day the zone skips (Pacific/Apia 2011-12-30), or an unknown zone
      }
      if (bounds.start <= ms && ms < bounds.end) {
        if (bounds.end - bounds.start === DAY_MS) return day
        break
      }
    }
  }
  return zoned(instant, zone).toISODate() as Day
}

/** `[start, end)` of a calendar day: local midnight to the next local midnight. */
export function dayBounds(day: Day, zone: string): { start: Date; end: Date } {
  const { start, end } = cachedBounds(day, zone)
  return { start: new Date(start), end: new Date(end) }
}

/** Well-formed days (years 1000..9999) by plain date arithmetic, the rest through luxon (its answer stands). */
const PLAIN_DAY = /^[1-9]\d{3}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/
const plainMs = (day: Day): number | null => {
  if (!PLAIN_DAY.test(day)) return null
  const ms = Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10)))
  return utcDay(ms) === day ? ms : null
}

export const nextDay = (day: Day): Day => {
  const ms = plainMs(day)
  if (ms !== null && day < '9999-12-31') return utcDay(ms + DAY_MS)
  return DateTime.fromISO(day, { zone: 'UTC' }).plus({ days: 1 }).toISODate() as Day
}

/** The length of a calendar day in minutes: 1440, or 1380 / 1500 on DST changes. */
export function dayLengthMinutes(day: Day, zone: string): number {
  const { start, end } = dayBounds(day, zone)
  return (end.getTime() - start.getTime()) / 60000
}

/** ISO weekday of a calendar day: 1 = Monday … 7 = Sunday. */
export const isoWeekday = (day: Day): number => {
  const ms = plainMs(day)
  if (ms === null) return DateTime.fromISO(day, { zone: 'UTC' }).weekday
  return new Date(ms).getUTCDay() || 7
}

/**
 * The first and last calendar day the half-open interval `[start, end)` intersects, in O(1)
 * whatever its length: work must follow the days a request reads, never the length of a span
 * (CONTRACT §10.3). An empty interval (end = start) still belongs to the day of its start.
 */
export function coveredDayRange(start: Instant, end: Instant, zone: string): { first: Day; last: Day } {
  const from = millis(start)
  const to = millis(end)
  if (to < from) throw new Error('coveredDayRange: end before start')
  // The end is exclusive: an interval ending at local midnight does not touch the next day.
  return { first: calendarDay(from, zone), last: calendarDay(Math.max(from, to - 1), zone) }
}

/** Whether `[start, end)` touches more than one calendar day (O(1)). */
export const coversSeveralDays = (start: Instant, end: Instant, zone: string): boolean => {
  const { first, last } = coveredDayRange(start, end, zone)
  return first !== last
}

/** The number of calendar days from `from` to `to`, both included (date arithmetic, O(1)). */
export const dayCount = (from: Day, to: Day): number =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1

/**
 * Every calendar day the half-open interval `[start, end)` intersects. It lists each day, so it
 * is only for spans already bounded (tests, a day or two); use `coveredDayRange` for the rest.
 */
export function daysCovered(start: Instant, end: Instant, zone: string): Day[] {
  const { first, last } = coveredDayRange(start, end, zone)
  const days: Day[] = []
  for (let day = first; ; day = nextDay(day)) {
    days.push(day)
    if (day >= last) break
  }
  return days
}

/** The sorted union of day lists (e.g. the days before and after a PATCH). */
export const uniqueDays = (...lists: Day[][]): Day[] => [...new Set(lists.flat())].sort()
