import { Day, Instant, dayBounds, daysCovered, millis } from './calendar'
import { overlapMs, toMinutes } from './durations'
import { WorkingCalendar, targetMinutes } from './working-time'

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

/** Each calendar day the absence `[startsAt, endsAt)` intersects, with the minutes it covers of it. */
export function absenceCoverage(startsAt: Instant, endsAt: Instant, zone: string): { day: Day; minutes: number }[] {
  const absence = { start: millis(startsAt), end: millis(endsAt) }
  return daysCovered(startsAt, endsAt, zone).map((day) => {
    const { start, end } = dayBounds(day, zone)
    return { day, minutes: toMinutes(overlapMs(absence, { start: start.getTime(), end: end.getTime() })) }
  })
}

/**
 * Work days an absence takes: each covered day with a target > 0 counts 1; an hourly type
 * counts its minutes of that day ÷ the day's target, at most 1 a day. Rounded to 2 decimals.
 */
export function absenceWorkDays(absence: { startsAt: Instant; endsAt: Instant }, hourly: boolean, calendar: WorkingCalendar): number {
  let days = 0
  for (const { day, minutes } of absenceCoverage(absence.startsAt, absence.endsAt, calendar.timezone)) {
    const target = targetMinutes(calendar, day)
    if (target <= 0) continue
    days += hourly ? Math.min(1, minutes / target) : 1
  }
  return Math.round((days + Number.EPSILON) * 100) / 100
}
