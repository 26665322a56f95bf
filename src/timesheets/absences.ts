import { Day, Instant, coveredDayRange, dayBounds, dayCount, dayLengthMinutes, daysCovered, millis } from './calendar'
import { overlapMs, toMinutes } from './durations'
import { addDays, daysFrom } from './periods'
import { WEEKDAYS, WorkingCalendar, targetMinutes } from './working-time'
import type { Schedule } from './schedule'

/**
 * Absence rules that do not need the database (CONTRACT §7.3): the derived status, the calendar
 * days an absence covers and how many work days it costs.
 */
export const ABSENCE_STATUSES = ['idle', 'draft', 'approved', 'declined'] as const
export type AbsenceStatus = (typeof ABSENCE_STATUSES)[number]

interface Decisions {
  requestedAt?: unknown
  approvedAt?: unknown
  declinedAt?: unknown
}

export function absenceStatus({ requestedAt, approvedAt, declinedAt }: Decisions): AbsenceStatus {
  if (declinedAt) return 'declined'
  if (approvedAt) return 'approved'
  if (requestedAt) return 'idle'
  return 'draft'
}

/**
 * The longest absence a write may create (CONTRACT §10.3): 1096 calendar days, three years
 * (parental leave), counted as the calendar days it covers in the company's timezone.
 */
export const MAX_ABSENCE_DAYS = 1096

/** The number of calendar days `[startsAt, endsAt)` covers, in O(1). */
export function absenceDayCount(startsAt: Instant, endsAt: Instant, zone: string): number {
  const { first, last } = coveredDayRange(startsAt, endsAt, zone)
  return dayCount(first, last)
}

/** Each calendar day the absence `[startsAt, endsAt)` intersects, with the minutes it covers of it (lists every day: bounded spans only). */
export function absenceCoverage(startsAt: Instant, endsAt: Instant, zone: string): { day: Day; minutes: number }[] {
  const absence = { start: millis(startsAt), end: millis(endsAt) }
  return daysCovered(startsAt, endsAt, zone).map((day) => {
    const { start, end } = dayBounds(day, zone)
    return { day, minutes: toMinutes(overlapMs(absence, { start: start.getTime(), end: end.getTime() })) }
  })
}

/** A weekday target longer than the shortest calendar day (23 hours on a DST change). */
const SHORTEST_DAY_MINUTES = 23 * 60

/**
 * Work days of the whole days `from`..`to` (both included): each day with a target > 0 counts 1,
 * an hourly type its length ÷ the target, at most 1. By whole weeks and at most 6 days more, so a
 * span of years costs what a week does. Only an hourly type on a weekday whose target exceeds
 * 23 hours depends on the length of each day (a 23-hour day is less than its target): within the
 * bound an absence has (CONTRACT §10.3), its days are counted one by one.
 */
function wholeWorkDays(from: Day, to: Day, hourly: boolean, calendar: WorkingCalendar): number {
  const count = dayCount(from, to)
  if (count <= 0) return 0
  const oneDay = (day: Day) => {
    const target = targetMinutes(calendar, day)
    if (target <= 0) return 0
    return hourly && target > SHORTEST_DAY_MINUTES ? Math.min(1, dayLengthMinutes(day, calendar.timezone) / target) : 1
  }
  const exactByDay =
    hourly &&
    WEEKDAYS.some((weekday) => calendar.targetMinutes[weekday] > SHORTEST_DAY_MINUTES) &&
    count <= MAX_ABSENCE_DAYS
  if (exactByDay) return daysFrom(from, to).reduce((sum, day) => sum + oneDay(day), 0)
  const weeks = Math.floor(count / 7)
  const perWeek = WEEKDAYS.filter((weekday) => (calendar.targetMinutes[weekday] ?? 0) > 0).length
  let days = weeks * perWeek
  for (let i = weeks * 7; i < count; i++) days += targetMinutes(calendar, addDays(from, i)) > 0 ? 1 : 0
  return days
}

/**
 * Work days an absence takes: each covered day with a target > 0 counts 1; an hourly type
 * counts its minutes of that day ÷ the day's target, at most 1 a day. Rounded to 2 decimals.
 * Only the first and the last day can be covered in part; the days between count whole, by runs
 * of days under one model (the schedule's versions and the user's `employedFrom`, before which
 * days have no target, CONTRACT §11.1, §11.2), so the work follows the versions, not the span.
 */
export function absenceWorkDays(
  absence: { startsAt: Instant; endsAt: Instant },
  hourly: boolean,
  schedule: Schedule
): number {
  const zone = schedule.timezone
  const span = { start: millis(absence.startsAt), end: millis(absence.endsAt) }
  const { first, last } = coveredDayRange(span.start, span.end, zone)
  const partDay = (day: Day) => {
    const target = targetMinutes(schedule.on(day), day)
    if (target <= 0) return 0
    const { start, end } = dayBounds(day, zone)
    return hourly ? Math.min(1, toMinutes(overlapMs(span, { start: start.getTime(), end: end.getTime() })) / target) : 1
  }
  let days = partDay(first)
  if (first !== last) {
    days += partDay(last)
    const [from, to] = [addDays(first, 1), addDays(last, -1)]
    let runStart = from
    for (const next of [...schedule.changesWithin(from, to), addDays(to, 1)]) {
      days += wholeWorkDays(runStart, addDays(next, -1), hourly, schedule.on(runStart))
      runStart = next
    }
  }
  return Math.round((days + Number.EPSILON) * 100) / 100
}
