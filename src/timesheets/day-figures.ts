import { Day, coversSeveralDays, dayBounds } from './calendar'
import { MINUTE_MS, overlapMs } from './durations'
import { WorkingCalendar, WorkingTimeModel, applicableBreakRule, targetMinutes } from './working-time'

/**
 * The figures of one calendar day (CONTRACT §7.4), pure: computed from the user's entries that
 * start on the day and the approved absences that cover it, then the manual overrides and the
 * checks on top. Every duration is in exact milliseconds.
 */
export interface EntryInput {
  startsAt: number
  /** null: running. */
  endsAt: number | null
  /** Worked milliseconds (span minus pauses); null while running. */
  workedMs: number | null
}

export interface AbsenceInput {
  startsAt: number
  endsAt: number
  hourly: boolean
  countAsWorkingTime: boolean
  needCompensation: boolean
  /** `compensationDeclinedAt` is set: the time off is not taken from the balance (CONTRACT §11.5). */
  compensationDeclined: boolean
}

export interface ComputedDay {
  startsAt: number | null
  endsAt: number | null
  workedMs: number
  /** Absence time credited as worked (countAsWorkingTime types). */
  creditedMs: number
  breakTimeMs: number | null
  durationMs: number
  expectedDurationMs: number
  hasOpenTimeEntry: boolean
  hasMultipleDayTimeEntry: boolean
}

export interface Overrides {
  startsAt: number | null
  endsAt: number | null
  breakTimeMs: number | null
  durationMs: number | null
}

export const NO_OVERRIDES: Overrides = { startsAt: null, endsAt: null, breakTimeMs: null, durationMs: null }

export const BREAK_ERROR_TYPES = ['missing', 'tooShort'] as const
export type BreakErrorType = (typeof BREAK_ERROR_TYPES)[number]

/** What the API shows of a day and what weeks and months add up. */
export interface DayFigures {
  startsAt: number | null
  endsAt: number | null
  breakTimeMs: number | null
  durationMs: number
  expectedDurationMs: number
  breakTimeErrorType: BreakErrorType | null
  breakTimeErrorExpectedMs: number | null
  breakTimeErrorValueMs: number | null
  breakTimeErrorDurationMinMs: number | null
  durationErrorExpectedMs: number | null
  durationErrorValueMs: number | null
}

const minutesMs = (minutes: number) => minutes * MINUTE_MS

/**
 * Target and credit of the approved absences of a day: `countAsWorkingTime` types credit the
 * covered target as worked; `needCompensation` types leave the target from the moment they are
 * approved (the time off comes out of the balance) unless the compensation is declined, which
 * makes them time off like vacation (CONTRACT §11.5); every other absence takes the covered
 * target off. Hourly types act by the minutes they cover, daily types on the whole day.
 */
function absenceEffect(day: Day, absences: AbsenceInput[], calendar: WorkingCalendar) {
  const targetMs = minutesMs(targetMinutes(calendar, day))
  const { start, end } = dayBounds(day, calendar.timezone)
  let reducedMs = 0
  let creditMs = 0
  for (const absence of absences) {
    const coveredMs = overlapMs(
      { start: absence.startsAt, end: absence.endsAt },
      { start: start.getTime(), end: end.getTime() }
    )
    if (coveredMs <= 0) continue
    const effectMs = absence.hourly ? Math.min(coveredMs, targetMs) : targetMs
    if (absence.countAsWorkingTime) creditMs += effectMs
    else if (!absence.needCompensation || absence.compensationDeclined) reducedMs += effectMs
  }
  const expectedDurationMs = Math.max(0, targetMs - reducedMs)
  return { expectedDurationMs, creditedMs: Math.min(creditMs, expectedDurationMs) }
}

/** The computed figures of `day` from the entries that start on it and the approved absences that cover it. */
export function computeDay(
  day: Day,
  entries: EntryInput[],
  absences: AbsenceInput[],
  calendar: WorkingCalendar
): ComputedDay {
  const finished = entries.filter((entry) => entry.endsAt !== null)
  const running = entries.filter((entry) => entry.endsAt === null)
  const workedMs = finished.reduce((sum, entry) => sum + (entry.workedMs ?? 0), 0)
  const startsAt = entries.length ? Math.min(...entries.map((entry) => entry.startsAt)) : null
  // While an entry runs the day has no end yet, and its break is the gaps so far: from the first
  // start up to the running entry's start, less the finished entries' work (CONTRACT §11.5).
  const endsAt =
    running.length === 0 && finished.length ? Math.max(...finished.map((entry) => entry.endsAt as number)) : null
  const breakEndsAt = running.length ? Math.min(...running.map((entry) => entry.startsAt)) : endsAt
  const { expectedDurationMs, creditedMs } = absenceEffect(day, absences, calendar)
  return {
    startsAt,
    endsAt,
    workedMs,
    creditedMs,
    breakTimeMs: startsAt !== null && breakEndsAt !== null ? Math.max(0, breakEndsAt - startsAt - workedMs) : null,
    durationMs: workedMs + creditedMs,
    expectedDurationMs,
    hasOpenTimeEntry: running.length > 0,
    hasMultipleDayTimeEntry: finished.some((entry) =>
      coversSeveralDays(entry.startsAt, entry.endsAt as number, calendar.timezone)
    )
  }
}

/**
 * Overrides replace their own figure only; the checks then look at the worked time (the
 * duration without credited absence time) and the break as they stand.
 */
export function effectiveFigures(computed: ComputedDay, overrides: Overrides, model: WorkingTimeModel): DayFigures {
  const durationMs = overrides.durationMs ?? computed.durationMs
  const breakTimeMs = overrides.breakTimeMs ?? computed.breakTimeMs
  const workMs = Math.max(0, durationMs - computed.creditedMs)
  const tooLong = workMs > minutesMs(model.maxDailyMinutes)
  return {
    startsAt: overrides.startsAt ?? computed.startsAt,
    endsAt: overrides.endsAt ?? computed.endsAt,
    breakTimeMs,
    durationMs,
    expectedDurationMs: computed.expectedDurationMs,
    ...breakCheck(model, workMs, breakTimeMs ?? 0),
    durationErrorExpectedMs: tooLong ? minutesMs(model.maxDailyMinutes) : null,
    durationErrorValueMs: tooLong ? workMs : null
  }
}

/** The break the rules require for `workMs` of work, against the break taken. */
function breakCheck(model: WorkingTimeModel, workMs: number, breakMs: number) {
  const rule = applicableBreakRule(model, workMs / MINUTE_MS)
  if (rule === null || breakMs >= minutesMs(rule.minBreakMinutes)) {
    return {
      breakTimeErrorType: null,
      breakTimeErrorExpectedMs: null,
      breakTimeErrorValueMs: null,
      breakTimeErrorDurationMinMs: null
    }
  }
  return {
    breakTimeErrorType: (breakMs > 0 ? 'tooShort' : 'missing') as BreakErrorType,
    breakTimeErrorExpectedMs: minutesMs(rule.minBreakMinutes),
    breakTimeErrorValueMs: breakMs,
    breakTimeErrorDurationMinMs: minutesMs(rule.afterMinutes)
  }
}
