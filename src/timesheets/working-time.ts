import { Day, isoWeekday } from './calendar'

/**
 * The company working-time model (CONTRACT §7.1), seeded by country. A company keeps it as versions
 * with effective dates (src/timesheets/schedule.ts, CONTRACT §11.2); the timezone is the company's
 * own column; `WorkingCalendar` joins the two for one day.
 */
export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const
export type Weekday = (typeof WEEKDAYS)[number]

/** Work longer than `afterMinutes` needs at least `minBreakMinutes` of break. */
export interface BreakRule {
  afterMinutes: number
  minBreakMinutes: number
}

export interface WorkingTimeModel {
  /** Target minutes per weekday. */
  targetMinutes: Record<Weekday, number>
  /** Ascending by `afterMinutes`; the last rule that applies wins. */
  breakRules: BreakRule[]
  maxDailyMinutes: number
  /** Caps a month's positive carry-out; null = no cap. */
  carryOverCapMinutes: number | null
}

export interface WorkingCalendar extends WorkingTimeModel {
  timezone: string
}

const WEEK_40H: Record<Weekday, number> = {
  monday: 480,
  tuesday: 480,
  wednesday: 480,
  thursday: 480,
  friday: 480,
  saturday: 0,
  sunday: 0
}

// DE: ArbZG §3 (10 h maximum) and §4 (breaks); IT: D.Lgs. 66/2003 art. 8 (a break after 6 h) and 13 h of work a day at most.
const BY_COUNTRY: Record<string, Omit<WorkingTimeModel, 'targetMinutes' | 'carryOverCapMinutes'>> = {
  DE: {
    breakRules: [
      { afterMinutes: 360, minBreakMinutes: 30 },
      { afterMinutes: 540, minBreakMinutes: 45 }
    ],
    maxDailyMinutes: 600
  },
  IT: { breakRules: [{ afterMinutes: 360, minBreakMinutes: 10 }], maxDailyMinutes: 780 }
}

/** The model a new company of `country` starts with; countries without their own rules get the German one. */
export function defaultWorkingTime(country: string): WorkingTimeModel {
  const rules = BY_COUNTRY[country] ?? BY_COUNTRY.DE
  return {
    targetMinutes: { ...WEEK_40H },
    breakRules: rules.breakRules.map((r) => ({ ...r })),
    maxDailyMinutes: rules.maxDailyMinutes,
    carryOverCapMinutes: null
  }
}

/** Target minutes of a calendar day. */
export const targetMinutes = (model: WorkingTimeModel, day: Day): number =>
  model.targetMinutes[WEEKDAYS[isoWeekday(day) - 1]] ?? 0

/** The break rule that applies to `workedMinutes` of work, or null when none does. */
export function applicableBreakRule(model: WorkingTimeModel, workedMinutes: number): BreakRule | null {
  const applying = model.breakRules.filter((rule) => workedMinutes > rule.afterMinutes)
  return applying.reduce<BreakRule | null>(
    (best, rule) => (!best || rule.afterMinutes > best.afterMinutes ? rule : best),
    null
  )
}
