import type { Day } from './calendar'
import type { DayFigures } from './day-figures'
import type { SheetStatus } from './workflow'

/**
 * Week and month figures (CONTRACT §7.5, §7.6), pure: sums and counts over calendar days (a day
 * without a row is a draft day with its computed figures) and the carry chain of months.
 */
export interface DayState {
  day: Day
  status: SheetStatus
  figures: DayFigures
  recomputable: boolean
  hasOpenTimeEntry: boolean
  hasMultipleDayTimeEntry: boolean
  submittedAt: string | null
  submittedFirstAt: string | null
  approvedAt: string | null
  declinedAt: string | null
  declinedNote: string | null
}

export interface PeriodSummary {
  sumActualMs: number
  sumTargetMs: number
  submittedCount: number
  approvedCount: number
  declinedCount: number
  hasMultipleDayTimeEntryCount: number
  recomputableCount: number
  hasOpenTimeEntryCount: number
  openTimeEntryEarliestDay: Day | null
}

const count = (days: DayState[], test: (day: DayState) => boolean) => days.filter(test).length
const latest = (values: (string | null)[]) =>
  values.reduce<string | null>((max, v) => (v !== null && (max === null || v > max) ? v : max), null)

export function summarize(days: DayState[]): PeriodSummary {
  const open = days
    .filter((day) => day.hasOpenTimeEntry)
    .map((day) => day.day)
    .sort()
  return {
    sumActualMs: days.reduce((sum, day) => sum + day.figures.durationMs, 0),
    sumTargetMs: days.reduce((sum, day) => sum + day.figures.expectedDurationMs, 0),
    submittedCount: count(days, (day) => day.status === 'submitted'),
    approvedCount: count(days, (day) => day.status === 'approved'),
    declinedCount: count(days, (day) => day.status === 'declined'),
    hasMultipleDayTimeEntryCount: count(days, (day) => day.hasMultipleDayTimeEntry),
    recomputableCount: count(days, (day) => day.recomputable),
    hasOpenTimeEntryCount: open.length,
    openTimeEntryEarliestDay: open[0] ?? null
  }
}

/** A week's status: approved if all days are; else declined if any is; else submitted if all are (or approved); else draft. */
export function weekStatus(days: { status: SheetStatus }[]): SheetStatus {
  if (days.every((day) => day.status === 'approved')) return 'approved'
  if (days.some((day) => day.status === 'declined')) return 'declined'
  if (days.every((day) => day.status === 'submitted' || day.status === 'approved')) return 'submitted'
  return 'draft'
}

/** A week's workflow timestamps, taken from its days for the status it is in. */
export function weekTimestamps(status: SheetStatus, days: DayState[]) {
  return {
    submittedAt: status === 'draft' ? null : latest(days.map((day) => day.submittedAt)),
    approvedAt: status === 'approved' ? latest(days.map((day) => day.approvedAt)) : null,
    declinedAt:
      status === 'declined'
        ? latest(days.filter((day) => day.status === 'declined').map((day) => day.declinedAt))
        : null
  }
}

/** The note of the month's most recently declined day, while the month is declined. */
export function monthDeclinedNote(status: SheetStatus, days: DayState[]): string | null {
  if (status !== 'declined') return null
  const declined = days.filter((day) => day.status === 'declined' && day.declinedNote)
  declined.sort((a, b) => (b.declinedAt ?? '').localeCompare(a.declinedAt ?? '') || b.day.localeCompare(a.day))
  return declined[0]?.declinedNote ?? null
}

export const CORRECTION_TYPES = ['manual', 'capped'] as const
export type CorrectionType = (typeof CORRECTION_TYPES)[number]

export interface LockedFigures {
  sumActualMs: number
  sumTargetMs: number
  carryInMs: number
  carryOutMs: number
}

export interface MonthInput {
  sumActualComputedMs: number
  sumTargetComputedMs: number
  carryInManualMs: number | null
  carryOutManualMs: number | null
  locked: LockedFigures | null
}

export interface MonthCarry {
  sumActualMs: number
  sumTargetMs: number
  carryInComputedMs: number
  carryInMs: number
  carryOutComputedMs: number
  carryOutMs: number
  carryOutForfeitedMs: number
  carryInCorrectionType: CorrectionType | null
  carryOutCorrectionType: CorrectionType | null
}

/**
 * One link of the carry chain. `previousCarryOutMs` is the carry-out of the month before (null
 * for the user's first month). A locked month keeps its snapshot; only `carryInComputed` follows
 * the chain, for information.
 */
export function carryMonth(previousCarryOutMs: number | null, month: MonthInput, capMs: number | null): MonthCarry {
  const carryInComputedMs = previousCarryOutMs ?? 0
  const { locked, carryInManualMs, carryOutManualMs } = month
  const sumActualMs = locked ? locked.sumActualMs : month.sumActualComputedMs
  const sumTargetMs = locked ? locked.sumTargetMs : month.sumTargetComputedMs
  const carryInMs = locked ? locked.carryInMs : (carryInManualMs ?? carryInComputedMs)
  const carryOutComputedMs = carryInMs + sumActualMs - sumTargetMs
  const capped =
    carryOutManualMs === null &&
    (locked ? locked.carryOutMs < carryOutComputedMs : capMs !== null && carryOutComputedMs > capMs)
  const carryOutMs = locked
    ? locked.carryOutMs
    : (carryOutManualMs ?? (capped ? (capMs as number) : carryOutComputedMs))
  // One literal, not a spread with more keys after it: on Node 20 each such object costs about
  // 1.5 µs (a new hidden class every time; docs/performance.md), and a carry chain makes one per month.
  return {
    sumActualMs,
    sumTargetMs,
    carryInComputedMs,
    carryInMs,
    carryOutComputedMs,
    carryOutMs,
    carryOutForfeitedMs: capped ? carryOutComputedMs - carryOutMs : 0,
    carryInCorrectionType: carryInManualMs !== null ? 'manual' : null,
    carryOutCorrectionType: carryOutManualMs !== null ? 'manual' : capped ? 'capped' : null
  }
}

/** actual − target over the days of the month up to `today` (all of them for a past month). */
export function currentDifferenceMs(month: Day, daily: [number, number][], today: Day): number {
  let sum = 0
  daily.forEach(([actual, target], index) => {
    const day = `${month.slice(0, 8)}${String(index + 1).padStart(2, '0')}`
    if (day <= today) sum += actual - target
  })
  return sum
}
