import { DateTime } from 'luxon'
import { Day, calendarDay, isoWeekday } from './calendar'

/**
 * The periods of a time sheet: ISO weeks (Monday to Sunday) and calendar months, as date
 * arithmetic on `YYYY-MM-DD` days (no timezone: a calendar day is already local).
 */
const date = (day: Day) => DateTime.fromISO(day, { zone: 'UTC' })
const text = (value: DateTime) => value.toISODate() as Day

/**
 * Plain date arithmetic for well-formed days of years 1000..9999 (every day a time sheet has):
 * a recomputation does it for every day of its periods, and luxon's object model was a fifth of
 * a write's CPU time (issue #22). Anything else goes through luxon, which answers as it did.
 */
const DAY_MS = 86_400_000
const PLAIN_DAY = /^[1-9]\d{3}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/
const plainMs = (day: Day): number | null => {
  if (!PLAIN_DAY.test(day)) return null
  const ms = Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10)))
  // 2026-02-30 rolls over to March: not a day (luxon's answer stands).
  return utcText(ms) === day ? ms : null
}
const utcText = (ms: number): Day => new Date(ms).toISOString().slice(0, 10)
const inPlainRange = (ms: number) => ms >= Date.UTC(1000, 0, 1) && ms < Date.UTC(10000, 0, 1)
const daysInMonth = (year: number, monthIndex: number) => new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate()

export const addDays = (day: Day, days: number): Day => {
  const ms = plainMs(day)
  if (ms === null || !Number.isInteger(days)) return text(date(day).plus({ days }))
  const moved = ms + days * DAY_MS
  return inPlainRange(moved) ? utcText(moved) : text(date(day).plus({ days }))
}

/** `month` plus `months` calendar months; a day past the target month's end becomes its last day (as luxon does). */
export const addMonths = (month: Day, months: number): Day => {
  const ms = plainMs(month)
  if (ms === null || !Number.isInteger(months)) return text(date(month).plus({ months }))
  const index = Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1 + months
  const year = Math.floor(index / 12)
  const monthIndex = index - year * 12
  if (year < 1000 || year > 9999) return text(date(month).plus({ months }))
  const dayOfMonth = Math.min(Number(month.slice(8, 10)), daysInMonth(year, monthIndex))
  return utcText(Date.UTC(year, monthIndex, dayOfMonth))
}

/** The Monday of the ISO week of `day`. */
export const weekStartOf = (day: Day): Day => addDays(day, 1 - isoWeekday(day))
/** The first day of the month of `day`. */
export const monthOf = (day: Day): Day => `${day.slice(0, 7)}-01`
export const lastDayOfMonth = (month: Day): Day => {
  if (plainMs(month) === null) return text(date(month).endOf('month'))
  const year = Number(month.slice(0, 4))
  const monthIndex = Number(month.slice(5, 7)) - 1
  return `${month.slice(0, 8)}${String(daysInMonth(year, monthIndex)).padStart(2, '0')}`
}

/** Every day from `from` to `to`, both included. */
export function daysFrom(from: Day, to: Day): Day[] {
  const days: Day[] = []
  if (plainMs(from) === null || plainMs(to) === null) {
    for (let day = from; day <= to; day = addDays(day, 1)) days.push(day)
    return days
  }
  if (from > to) return days
  // Counted on as text: a recomputation lists every day of its periods several times, and a
  // Date and its ISO string per day were most of a write's date arithmetic (issue #22). Both
  // ends are well-formed, so the count reaches `to`.
  let year = Number(from.slice(0, 4))
  let month = Number(from.slice(5, 7))
  let dayOfMonth = Number(from.slice(8, 10))
  let length = daysInMonth(year, month - 1)
  let prefix = from.slice(0, 8)
  for (let day = from; ;) {
    days.push(day)
    if (day === to) return days
    if (++dayOfMonth > length) {
      dayOfMonth = 1
      if (++month > 12) {
        month = 1
        year++
      }
      length = daysInMonth(year, month - 1)
      prefix = `${year}-${month < 10 ? '0' : ''}${month}-`
    }
    day = `${prefix}${dayOfMonth < 10 ? '0' : ''}${dayOfMonth}`
  }
}

export const weekDays = (weekStart: Day): Day[] => daysFrom(weekStart, addDays(weekStart, 6))
export const monthDays = (month: Day): Day[] => daysFrom(month, lastDayOfMonth(month))

/** Every month from `from` to `to` (first days), both included. */
export function monthsFrom(from: Day, to: Day): Day[] {
  const months: Day[] = []
  for (let month = monthOf(from); month <= to; month = addMonths(month, 1)) months.push(month)
  return months
}

/** Today in `zone` (every month a write logs or returns asks it). */
export const today = (zone: string, now = Date.now()): Day => calendarDay(now, zone)

/** The by-user look-ups reach at most 3 calendar months after today (CONTRACT §7.7). */
export const HORIZON_MONTHS = 3
export const horizonOf = (zone: string, now = Date.now()): Day =>
  text(date(today(zone, now)).plus({ months: HORIZON_MONTHS }))

/**
 * The earliest day a time sheet can have: month rows form a gap-free chain, so an absurdly early
 * day would create centuries of months.
 */
export const EARLIEST_DAY: Day = '2000-01-01'

export const isMonday = (day: Day) => isoWeekday(day) === 1
export const isFirstOfMonth = (day: Day) => day.endsWith('-01')
