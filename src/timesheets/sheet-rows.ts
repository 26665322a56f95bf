import type { Knex } from 'knex'
import type { Row } from '../resources/define-resource'
import { Day, millis } from './calendar'
import type { DayFigures, Overrides } from './day-figures'
import type { LockedFigures } from './aggregates'
import { addMonths, monthOf, monthsFrom, weekDays, weekStartOf } from './periods'

/**
 * The stored time-sheet rows: mapping between figures and columns, normalised comparison (so a
 * recomputation writes only what changed), and creating rows on demand.
 */
export type Db = Knex | Knex.Transaction

export const DAY_TABLE = 'time_sheet_days'
export const WEEK_TABLE = 'time_sheet_weeks'
export const MONTH_TABLE = 'time_sheet_months'

export const isoOrNull = (value: unknown): string | null =>
  value === null || value === undefined
    ? null
    : value instanceof Date
      ? value.toISOString()
      : new Date(value as string | number).toISOString()
export const numberOrNull = (value: unknown): number | null =>
  value === null || value === undefined ? null : Number(value)
const instantOrNull = (value: unknown): number | null =>
  value === null || value === undefined ? null : millis(value as string | Date)

// Note: knex's pluck() reads the snake_case key before the camelCase mapping, so rows are selected instead.

/** A calendar date column: text on SQLite, already text on PostgreSQL (see src/db/knex.ts). */
export const dayOf = (value: unknown): Day => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value))

export function dayFigureColumns(figures: DayFigures): Row {
  return {
    startsAt: isoOrNull(figures.startsAt),
    endsAt: isoOrNull(figures.endsAt),
    breakTimeMs: figures.breakTimeMs,
    durationMs: figures.durationMs,
    expectedDurationMs: figures.expectedDurationMs,
    breakTimeErrorType: figures.breakTimeErrorType,
    breakTimeErrorExpectedMs: figures.breakTimeErrorExpectedMs,
    breakTimeErrorValueMs: figures.breakTimeErrorValueMs,
    breakTimeErrorDurationMinMs: figures.breakTimeErrorDurationMinMs,
    durationErrorExpectedMs: figures.durationErrorExpectedMs,
    durationErrorValueMs: figures.durationErrorValueMs
  }
}

export function storedDayFigures(row: Row): DayFigures {
  return {
    startsAt: instantOrNull(row.startsAt),
    endsAt: instantOrNull(row.endsAt),
    breakTimeMs: numberOrNull(row.breakTimeMs),
    durationMs: Number(row.durationMs ?? 0),
    expectedDurationMs: Number(row.expectedDurationMs ?? 0),
    breakTimeErrorType: row.breakTimeErrorType ?? null,
    breakTimeErrorExpectedMs: numberOrNull(row.breakTimeErrorExpectedMs),
    breakTimeErrorValueMs: numberOrNull(row.breakTimeErrorValueMs),
    breakTimeErrorDurationMinMs: numberOrNull(row.breakTimeErrorDurationMinMs),
    durationErrorExpectedMs: numberOrNull(row.durationErrorExpectedMs),
    durationErrorValueMs: numberOrNull(row.durationErrorValueMs)
  }
}

export function overridesOf(row: Row): Overrides {
  return {
    startsAt: instantOrNull(row.manualStartsAt),
    endsAt: instantOrNull(row.manualEndsAt),
    breakTimeMs: numberOrNull(row.manualBreakTimeMs),
    durationMs: numberOrNull(row.manualDurationMs)
  }
}

export function lockedFigures(row: Row): LockedFigures | null {
  if (row.lockedAt === null || row.lockedAt === undefined) return null
  return {
    sumActualMs: Number(row.sumActualLockedMs),
    sumTargetMs: Number(row.sumTargetLockedMs),
    carryInMs: Number(row.carryInLockedMs),
    carryOutMs: Number(row.carryOutLockedMs)
  }
}

const ISO_INSTANT = /^\d{4}-\d\d-\d\dT/

/** One value as both databases return it and as the code writes it, for comparison. */
function normalise(value: unknown): unknown {
  if (value === undefined || value === null) return null
  if (value instanceof Date) return value.toISOString()
  if (typeof value === 'boolean') return value ? 1 : 0
  if (typeof value === 'string' && ISO_INSTANT.test(value)) {
    // A note may start like an instant ("2026-05-01T wrong start"): text that is no instant stays text.
    const ms = Date.parse(value)
    return Number.isNaN(ms) ? value : new Date(ms).toISOString()
  }
  if (typeof value === 'string' && (value.startsWith('[') || value.startsWith('{'))) return value
  if (typeof value === 'object') return JSON.stringify(value)
  return value
}

/** The columns whose values differ from the row's. */
export function changedColumns(row: Row, columns: Row): Row {
  const changed: Row = {}
  for (const [name, value] of Object.entries(columns)) {
    if (valueChanged(row[name], value)) changed[name] = value
  }
  return changed
}

/** Whether `value` differs from what a row holds (`stored`), as `changedColumns` compares. */
export const valueChanged = (stored: unknown, value: unknown) => normalise(stored) !== normalise(value)

/** A value as the database takes it: a JSON document (an array) as text. */
export const toDbValue = (value: unknown) => (Array.isArray(value) ? JSON.stringify(value) : value)

const insertedId = (inserted: unknown) =>
  Number(typeof inserted === 'object' && inserted !== null ? (inserted as Row).id : inserted)

/** A row created on demand: its id and its day, week start or month. */
export interface CreatedRow {
  id: number
  key: Day
}

export interface CreatedRows {
  days: CreatedRow[]
  weeks: CreatedRow[]
  months: CreatedRow[]
}

async function insertRows(db: Db, table: string, key: string, rows: Row[]): Promise<CreatedRow[]> {
  const created: CreatedRow[] = []
  for (const row of rows) {
    const now = new Date().toISOString()
    const [inserted] = await db(table).insert({ ...row, createdAt: now, updatedAt: now }, ['id'])
    created.push({ id: insertedId(inserted), key: row[key] })
  }
  return created
}

/**
 * Creates the missing month rows among `months` (CONTRACT §11.1, §11.6): a month at or after the
 * chain start brings every missing month from the chain start up to it (the chain is gap-free);
 * a month before the chain start is outside the chain and comes alone.
 */
async function ensureMonths(
  db: Db,
  companyId: number,
  userId: number,
  months: Day[],
  chainStart: Day
): Promise<CreatedRow[]> {
  if (months.length === 0) return []
  const existing = new Set(
    (await db(MONTH_TABLE).where({ companyId, userId }).select('month')).map((row: Row) => dayOf(row.month))
  )
  const inChain = months.filter((month) => month >= chainStart).sort()
  const wanted = new Set([
    ...months.filter((month) => month < chainStart),
    ...(inChain.length ? monthsFrom(chainStart, inChain[inChain.length - 1]) : [])
  ])
  const missing = [...wanted].sort().filter((month) => !existing.has(month))
  return insertRows(
    db,
    MONTH_TABLE,
    'month',
    missing.map((month) => ({ companyId, userId, month, dailyFigures: '[]' }))
  )
}

async function ensureByKey(
  db: Db,
  table: string,
  key: string,
  companyId: number,
  userId: number,
  values: Day[]
): Promise<CreatedRow[]> {
  if (values.length === 0) return []
  const sorted = [...new Set(values)].sort()
  const existing = new Set(
    (
      await db(table)
        .where({ companyId, userId })
        .where(key, '>=', sorted[0])
        .where(key, '<=', sorted[sorted.length - 1])
        .select(key)
    ).map((row: Row) => dayOf(row[key]))
  )
  return insertRows(
    db,
    table,
    key,
    sorted.filter((value) => !existing.has(value)).map((value) => ({ companyId, userId, [key]: value }))
  )
}

export interface WantedSheets {
  days?: Day[]
  weekStarts?: Day[]
  months?: Day[]
}

/**
 * Creates the missing rows of the given days (with their weeks and months), weeks (with the months
 * their days fall in) and months (`chainStart`: the first month of the user's carry chain). The caller holds the user's lock and recomputes what was created.
 */
export async function ensureSheets(
  db: Db,
  companyId: number,
  userId: number,
  wanted: WantedSheets,
  chainStart: Day
): Promise<CreatedRows> {
  const days = wanted.days ?? []
  const weekStarts = [...(wanted.weekStarts ?? []), ...days.map(weekStartOf)]
  const months = [
    ...(wanted.months ?? []),
    ...days.map(monthOf),
    ...weekStarts.flatMap((start) => weekDays(start).map(monthOf))
  ]
  return {
    days: await ensureByKey(db, DAY_TABLE, 'day', companyId, userId, days),
    weeks: await ensureByKey(db, WEEK_TABLE, 'weekStart', companyId, userId, weekStarts),
    months: await ensureMonths(db, companyId, userId, months, chainStart)
  }
}

/** The month before `month`, e.g. for the carry-in of a chain. */
export const previousMonth = (month: Day) => addMonths(month, -1)
