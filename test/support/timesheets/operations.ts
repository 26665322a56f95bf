import fc from 'fast-check'
import { DateTime } from 'luxon'
import type { ShortTargets } from './user-working-times'
import { daysFrom } from '../../../src/timesheets/periods'
import { SHEET_STATUSES } from '../../../src/timesheets/workflow'
import { WEEKDAYS } from '../../../src/timesheets/working-time'

/**
 * The steps of the time-sheet property test (properties.test.ts) as fast-check arbitraries: days
 * are indexes into four months with a DST change, entries and pauses quarter hours and shares of a
 * span, so that a failing sequence shrinks to readable values. Weights favour the writes that
 * change figures; some steps are refused by design (400, 409) and the test accepts that.
 */
export const ZONE = 'Europe/Berlin'
export const DAYS = daysFrom('2026-02-02', '2026-05-31')

export const day = fc.integer({ min: 0, max: DAYS.length - 1 })
const status = fc.constantFrom(...SHEET_STATUSES)
const pick = fc.nat()
export const local = (index: number, minutes: number) =>
  DateTime.fromISO(DAYS[index], { zone: ZONE }).plus({ minutes }).toISO()!
export const DECIDED = '2026-01-15T09:00:00Z'

/** Pauses as shares of the entry's span (8 h for a running entry): some outside it, overlapping or open, which is 400. */
export const pauses = fc.array(
  fc.record({
    at: fc.integer({ min: 0, max: 100 }),
    length: fc.integer({ min: 0, max: 40 }),
    open: fc.integer({ min: 0, max: 7 }).map((n) => n === 0)
  }),
  { maxLength: 3 }
)
export type Pauses = typeof pauses extends fc.Arbitrary<infer T> ? T : never
const quarterHours = fc.integer({ min: 0, max: 40 }).map((n) => n * 15)
const companyTargets = fc
  .tuple(...WEEKDAYS.map(() => quarterHours))
  .map((minutes) => Object.fromEntries(WEEKDAYS.map((day, i) => [day, minutes[i]])))
const SHORT = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const
const PART_TIME: ShortTargets = { mon: 240, tue: 240, wed: 240, thu: 240, fri: 240, sat: 0, sun: 0 }
const userTargets = fc.oneof(
  fc.constant(PART_TIME),
  fc
    .tuple(...SHORT.map(() => quarterHours))
    .map((minutes) => Object.fromEntries(SHORT.map((day, i) => [day, minutes[i]])) as ShortTargets)
)
const versionAction = fc.constantFrom('create' as const, 'create' as const, 'patch' as const, 'delete' as const)

export const operation = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('entry' as const),
      day,
      start: fc.integer({ min: 0, max: 95 }),
      quarters: fc.integer({ min: 1, max: 48 }),
      running: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
      pauses: fc.option(pauses, { freq: 2 })
    })
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('pauses' as const), pick, pauses }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('moveEntry' as const),
      pick,
      day,
      start: fc.integer({ min: 0, max: 95 }),
      quarters: fc.integer({ min: 1, max: 48 })
    })
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('deleteEntry' as const), pick }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('absence' as const),
      type: fc.constantFrom('vacation', 'sick', 'training', 'overtime', 'overtime', 'hourly'),
      day,
      length: fc.integer({ min: 1, max: 4 }),
      approved: fc.boolean(),
      compensation: fc.constantFrom(null, 'approved' as const, 'declined' as const)
    })
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('decideAbsence' as const), pick, approve: fc.boolean() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('compensate' as const),
      pick,
      day,
      decision: fc.constantFrom('approve' as const, 'decline' as const, 'clear' as const)
    })
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteAbsence' as const), pick }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('lookUp' as const), period: fc.constantFrom('day', 'week', 'month'), day })
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('override' as const),
      day,
      field: fc.constantFrom('duration', 'breakTime', 'startsAt', 'endsAt'),
      value: fc.option(fc.integer({ min: 0, max: 1440 }), { freq: 3 })
    })
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('dayStatus' as const), day, to: status, submitFirst: fc.boolean() })
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('weekStatus' as const), day, to: status, submitFirst: fc.boolean() })
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('monthStatus' as const), day, to: status, submitFirst: fc.boolean() })
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('monthCarry' as const),
      day,
      field: fc.constantFrom('carryInManual', 'carryOutManual'),
      value: fc.option(fc.integer({ min: -3000, max: 3000 }))
    })
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('account' as const),
      day: fc.option(day),
      openingBalance: fc.option(fc.integer({ min: -3000, max: 3000 }))
    })
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('companyVersion' as const),
      action: versionAction,
      day,
      pick,
      move: fc.boolean(),
      targets: companyTargets,
      cap: fc.option(fc.integer({ min: 0, max: 900 }))
    })
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('userVersion' as const),
      action: versionAction,
      day,
      pick,
      move: fc.boolean(),
      targets: userTargets
    })
  }
)

export type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never
