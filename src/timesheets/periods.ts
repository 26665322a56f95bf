import { DateTime } from 'luxon'
import { Day, isoWeekday } from './calendar'

/**
 * The periods of a time sheet: ISO weeks (Monday to Sunday) and calendar months, as date
 * arithmetic on `YYYY-MM-DD` days (no timezone: a calendar day is already local).
 */
const date = (day: Day) => DateTime.fromISO(day, { zone: 'UTC' })
const text = (value: DateTime) => value.toISODate() as Day

export const addDays = (day: Day, days: number): Day => text(date(day).plus({ days }))
export const addMonths = (month: Day, months: number): Day => text(date(month).plus({ months }))

/** The Monday of the ISO week of `day`. */
export const weekStartOf = (day: Day): Day => addDays(day, 1 - isoWeekday(day))
/** The first day of the month of `day`. */
export const monthOf = (day: Day): Day => `${day.slice(0, 7)}-01`
export const lastDayOfMonth = (month: Day): Day => text(date(month).endOf('month'))

/** Every day from `from` to `to`, both included. */
export function daysFrom(from: Day, to: Day): Day[] {
  const days: Day[] = []
  for (let day = from; day <= to; day = addDays(day, 1)) days.push(day)
  return days
}

export const weekDays = (weekStart: Day): Day[] => daysFrom(weekStart, addDays(weekStart, 6))
export const monthDays = (month: Day): Day[] => daysFrom(month, lastDayOfMonth(month))

/** Every month from `from` to `to` (first days), both included. */
export function monthsFrom(from: Day, to: Day): Day[] {
  const months: Day[] = []
  for (let month = monthOf(from); month <= to; month = addMonths(month, 1)) months.push(month)
  return months
}

/** Today in `zone`. */
export const today = (zone: string, now = Date.now()): Day => DateTime.fromMillis(now, { zone }).toISODate() as Day

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
