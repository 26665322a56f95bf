import assert from 'node:assert/strict'
import { DateTime } from 'luxon'

/**
 * An independent oracle of a day's target (`expectedDuration`), computed from what a test wrote,
 * without the engine's code: the user's latest version with `validFrom ≤ day`, else the company's
 * version of that day (CONTRACT §11.2); 0 before `employedFrom` (§11.1); approved absences reduce
 * it (§7.3, §11.5): plain types to 0 (hourly ones by the minutes they cover, at most the target),
 * `countAsWorkingTime` types not at all (they credit), `needCompensation` types only once the
 * compensation is declined. Days are calendar days of the company's timezone, from luxon.
 */
const SHORT = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const
const LONG = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const

export interface OracleAbsence {
  startsAt: string
  endsAt: string
  kind: 'plain' | 'credit' | 'compensation'
  hourly: boolean
  approved: boolean
  compensationDeclined: boolean
}

export interface History {
  zone: string
  employedFrom: string
  /** Targets by long weekday name (`monday`), as `settings/working-times` takes them. */
  company: { validFrom: string; targetMinutes: Record<string, number> }[]
  /** Targets by short weekday name (`mon`), as `/v1/user-working-times` takes them. */
  user: { validFrom: string; targets: Record<string, number> }[]
  absences: OracleAbsence[]
}

const latest = <T extends { validFrom: string }>(versions: T[], day: string): T | undefined =>
  versions
    .filter((v) => v.validFrom <= day)
    .reduce<T | undefined>((best, v) => (best === undefined || v.validFrom > best.validFrom ? v : best), undefined)

/** The target of `day` in minutes. */
export function expectedTarget(history: History, day: string): number {
  if (day < history.employedFrom) return 0
  const start = DateTime.fromISO(day, { zone: history.zone })
  const end = start.plus({ days: 1 })
  const weekday = start.weekday - 1
  const own = latest(history.user, day)
  const company = latest(history.company, day)
  assert.ok(company, `the company has a version on ${day}`)
  const base = own ? own.targets[SHORT[weekday]] : company.targetMinutes[LONG[weekday]]
  let reduced = 0
  for (const absence of history.absences) {
    if (
      !absence.approved ||
      absence.kind === 'credit' ||
      (absence.kind === 'compensation' && !absence.compensationDeclined)
    )
      continue
    const from = Math.max(DateTime.fromISO(absence.startsAt).toMillis(), start.toMillis())
    const to = Math.min(DateTime.fromISO(absence.endsAt).toMillis(), end.toMillis())
    if (to <= from) continue
    reduced += absence.hourly ? Math.min((to - from) / 60000, base) : base
  }
  return Math.max(0, base - reduced)
}

type Row = Record<string, any>

const dayText = (value: unknown) => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value))
const dailyOf = (row: Row): [number, number][] =>
  typeof row.dailyFigures === 'string' ? JSON.parse(row.dailyFigures) : row.dailyFigures

/**
 * The stored target of every day that follows its inputs equals the oracle's: the day rows that
 * are not approved, and the days of months that are not locked (from the month's daily figures)
 * unless their row is approved. Approved days and locked months keep the figures they had.
 */
export function assertTargetsMatchOracle({ days, months }: { days: Row[]; months: Row[] }, history: History) {
  const approved = new Set(days.filter((row) => row.status === 'approved').map((row) => dayText(row.day)))
  const mismatches: string[] = []
  const check = (day: string, storedMs: number, where: string) => {
    const expected = expectedTarget(history, day)
    if (Number(storedMs) !== Math.round(expected * 60000))
      mismatches.push(`${day} (${where}): stored ${Number(storedMs) / 60000}, oracle ${expected}`)
  }
  for (const row of days) if (row.status !== 'approved') check(dayText(row.day), row.expectedDurationMs, 'day row')
  for (const month of months) {
    if (month.lockedAt !== null) continue
    const first = DateTime.fromISO(dayText(month.month))
    dailyOf(month).forEach(([, targetMs], i) => {
      const day = first.plus({ days: i }).toISODate()!
      if (!approved.has(day)) check(day, targetMs, `month ${dayText(month.month)}`)
    })
  }
  assert.deepEqual(mismatches, [], 'stored targets differ from the oracle')
}
