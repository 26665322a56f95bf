import assert from 'node:assert/strict'
import fc from 'fast-check'
import {
  AbsenceInput,
  computeDay,
  effectiveFigures,
  EntryInput,
  NO_OVERRIDES
} from '../../../src/timesheets/day-figures'
import { carryMonth, currentDifferenceMs, DayState, summarize, weekStatus } from '../../../src/timesheets/aggregates'
import { defaultWorkingTime, WorkingCalendar } from '../../../src/timesheets/working-time'
import { addMonths, horizonOf, monthDays, monthOf, monthsFrom, weekStartOf } from '../../../src/timesheets/periods'
import {
  assertMove,
  DAY_MOVES,
  MONTH_MOVES,
  moveColumns,
  SHEET_STATUSES,
  WEEK_MOVES
} from '../../../src/timesheets/workflow'

const MIN = 60000
type MonthInputArb = Parameters<typeof carryMonth>[1]
const de: WorkingCalendar = { ...defaultWorkingTime('DE'), timezone: 'Europe/Berlin' }
const it_: WorkingCalendar = { ...defaultWorkingTime('IT'), timezone: 'Europe/Rome' }
const at = (iso: string) => Date.parse(iso)
const work = (from: string, to: string | null, pauseMinutes = 0): EntryInput => ({
  startsAt: at(from),
  endsAt: to === null ? null : at(to),
  workedMs: to === null ? null : at(to) - at(from) - pauseMinutes * MIN
})
const absence = (from: string, to: string, kind: Partial<AbsenceInput> = {}): AbsenceInput => ({
  startsAt: at(from),
  endsAt: at(to),
  hourly: false,
  countAsWorkingTime: false,
  needCompensation: false,
  compensationDeclined: false,
  ...kind
})
const figures = (day: string, entries: EntryInput[], absences: AbsenceInput[] = [], calendar = de) =>
  effectiveFigures(computeDay(day, entries, absences, calendar), NO_OVERRIDES, calendar)

describe('time-sheet day figures (pure)', () => {
  it('takes start, end, worked minutes and the break between entries and pauses', () => {
    const day = computeDay(
      '2026-11-23',
      [work('2026-11-23T07:00:00Z', '2026-11-23T11:00:00Z'), work('2026-11-23T11:45:00Z', '2026-11-23T16:00:00Z', 15)],
      [],
      de
    )
    assert.equal(day.startsAt, at('2026-11-23T07:00:00Z'))
    assert.equal(day.endsAt, at('2026-11-23T16:00:00Z'))
    assert.equal(day.workedMs, (240 + 240) * MIN)
    assert.equal(day.breakTimeMs, 60 * MIN)
    assert.equal(day.expectedDurationMs, 480 * MIN)
    assert.equal(day.hasOpenTimeEntry, false)
  })

  it('counts a running entry for the start but not for worked time; flags entries that end on a later day', () => {
    const running = computeDay('2026-11-23', [work('2026-11-23T07:00:00Z', null)], [], de)
    // CONTRACT §11.5: no gap before the only (running) entry, so no break yet.
    assert.deepEqual(
      [running.startsAt, running.endsAt, running.durationMs, running.breakTimeMs, running.hasOpenTimeEntry],
      [at('2026-11-23T07:00:00Z'), null, 0, 0, true]
    )
    // A finished entry then a running one: no end yet, the break is the gap up to the running entry's start.
    const second = computeDay(
      '2026-11-23',
      [work('2026-11-23T06:00:00Z', '2026-11-23T10:00:00Z', 10), work('2026-11-23T10:30:00Z', null)],
      [],
      de
    )
    assert.deepEqual([second.endsAt, second.workedMs, second.breakTimeMs], [null, 230 * MIN, 40 * MIN])
    const night = computeDay('2026-11-23', [work('2026-11-23T20:00:00Z', '2026-11-24T02:00:00Z')], [], de)
    assert.equal(night.hasMultipleDayTimeEntry, true)
    // Ending exactly at local midnight does not touch the next day (half-open spans).
    const toMidnight = computeDay('2026-11-23', [work('2026-11-23T20:00:00Z', '2026-11-23T23:00:00Z')], [], de)
    assert.equal(toMidnight.hasMultipleDayTimeEntry, false)
  })

  it('checks the German break rules: missing, too short, enough; and the daily maximum', () => {
    const long = figures('2026-11-23', [work('2026-11-23T06:00:00Z', '2026-11-23T13:00:00Z')])
    assert.deepEqual(
      [
        long.breakTimeErrorType,
        long.breakTimeErrorExpectedMs,
        long.breakTimeErrorValueMs,
        long.breakTimeErrorDurationMinMs
      ],
      ['missing', 30 * MIN, 0, 360 * MIN]
    )
    const short = figures('2026-11-23', [
      work('2026-11-23T06:00:00Z', '2026-11-23T10:00:00Z'),
      work('2026-11-23T10:20:00Z', '2026-11-23T13:20:00Z')
    ])
    assert.deepEqual([short.breakTimeErrorType, short.breakTimeErrorValueMs], ['tooShort', 20 * MIN])
    const tenHours = figures('2026-11-23', [
      work('2026-11-23T05:00:00Z', '2026-11-23T10:00:00Z'),
      work('2026-11-23T10:45:00Z', '2026-11-23T15:45:00Z')
    ])
    assert.equal(tenHours.breakTimeErrorType, null)
    assert.equal(tenHours.durationErrorExpectedMs, null)
    const over = figures('2026-11-23', [
      work('2026-11-23T04:00:00Z', '2026-11-23T10:00:00Z'),
      work('2026-11-23T10:45:00Z', '2026-11-23T15:46:00Z')
    ])
    assert.deepEqual(
      [over.breakTimeErrorType, over.durationErrorExpectedMs, over.durationErrorValueMs],
      [null, 600 * MIN, 661 * MIN]
    )
    const ninePlus = figures('2026-11-23', [
      work('2026-11-23T05:00:00Z', '2026-11-23T10:00:00Z'),
      work('2026-11-23T10:30:00Z', '2026-11-23T15:00:00Z')
    ])
    assert.deepEqual(
      [ninePlus.breakTimeErrorType, ninePlus.breakTimeErrorExpectedMs, ninePlus.breakTimeErrorDurationMinMs],
      ['tooShort', 45 * MIN, 540 * MIN]
    )
  })

  it('checks the Italian rules: 10 minutes after 6 hours, 13 hours at most', () => {
    const day = figures(
      '2026-11-23',
      [work('2026-11-23T06:00:00Z', '2026-11-23T12:00:00Z'), work('2026-11-23T12:05:00Z', '2026-11-23T13:00:00Z')],
      [],
      it_
    )
    assert.deepEqual([day.breakTimeErrorType, day.breakTimeErrorExpectedMs], ['tooShort', 10 * MIN])
    const twelve = figures(
      '2026-11-23',
      [work('2026-11-23T05:00:00Z', '2026-11-23T11:00:00Z'), work('2026-11-23T11:10:00Z', '2026-11-23T17:10:00Z')],
      [],
      it_
    )
    assert.deepEqual([twelve.breakTimeErrorType, twelve.durationErrorValueMs], [null, null])
  })

  it('applies overrides to their own figure; the checks follow them', () => {
    const computed = computeDay('2026-11-23', [work('2026-11-23T06:00:00Z', '2026-11-23T13:00:00Z')], [], de)
    const fixed = effectiveFigures(computed, { ...NO_OVERRIDES, breakTimeMs: 30 * MIN, durationMs: 390 * MIN }, de)
    assert.deepEqual(
      [fixed.durationMs, fixed.breakTimeMs, fixed.breakTimeErrorType, fixed.startsAt],
      [390 * MIN, 30 * MIN, null, at('2026-11-23T06:00:00Z')]
    )
  })

  it('lets approved absences change target and credit', () => {
    // Vacation takes the whole target; the weekend has none to take.
    assert.equal(
      figures('2026-11-23', [], [absence('2026-11-22T23:00:00Z', '2026-11-24T23:00:00Z')]).expectedDurationMs,
      0
    )
    // A partly covered day is a whole absence day for a daily type.
    assert.equal(
      figures('2026-11-23', [], [absence('2026-11-23T12:00:00Z', '2026-11-24T12:00:00Z')]).expectedDurationMs,
      0
    )
    // Hourly: the covered minutes.
    assert.equal(
      figures('2026-11-23', [], [absence('2026-11-23T08:00:00Z', '2026-11-23T10:00:00Z', { hourly: true })])
        .expectedDurationMs,
      360 * MIN
    )
    // countAsWorkingTime credits the covered target as worked; the break check ignores credited time.
    const training = figures(
      '2026-11-23',
      [],
      [absence('2026-11-22T23:00:00Z', '2026-11-23T23:00:00Z', { countAsWorkingTime: true })]
    )
    assert.deepEqual(
      [training.durationMs, training.expectedDurationMs, training.breakTimeErrorType],
      [480 * MIN, 480 * MIN, null]
    )
    // Overtime compensation (CONTRACT §11.5): the target stays from approval on (the time off comes
    // out of the balance); a declined compensation makes it time off like vacation.
    const compensation = absence('2026-11-22T23:00:00Z', '2026-11-23T23:00:00Z', { needCompensation: true })
    assert.equal(figures('2026-11-23', [], [compensation]).expectedDurationMs, 480 * MIN)
    assert.equal(figures('2026-11-23', [], [{ ...compensation, compensationDeclined: true }]).expectedDurationMs, 0)
  })

  it('uses the local calendar day on DST days (23 and 25 hours)', () => {
    const spring = computeDay('2026-03-29', [work('2026-03-28T23:30:00Z', '2026-03-29T01:30:00Z')], [], de)
    assert.equal(spring.workedMs, 120 * MIN)
    assert.equal(
      figures('2026-03-29', [], [absence('2026-03-28T23:00:00Z', '2026-03-29T22:00:00Z', { hourly: true })])
        .expectedDurationMs,
      0
    )
  })
})

const state = (
  status: DayState['status'],
  durationMin: number,
  targetMin: number,
  extra: Partial<DayState> = {}
): DayState => ({
  day: '2026-11-23',
  status,
  figures: { ...figures('2026-11-23', []), durationMs: durationMin * MIN, expectedDurationMs: targetMin * MIN },
  recomputable: false,
  hasOpenTimeEntry: false,
  hasMultipleDayTimeEntry: false,
  submittedAt: null,
  submittedFirstAt: null,
  approvedAt: null,
  declinedAt: null,
  declinedNote: null,
  ...extra
})

describe('time-sheet aggregates and the carry chain (pure)', () => {
  it('derives the week status from its days', () => {
    const week = (...statuses: DayState['status'][]) => weekStatus(statuses.map((status) => ({ status })))
    assert.equal(week('approved', 'approved'), 'approved')
    assert.equal(week('approved', 'declined', 'submitted'), 'declined')
    assert.equal(week('approved', 'submitted'), 'submitted')
    assert.equal(week('submitted', 'draft'), 'draft')
  })

  it('sums figures and counts days', () => {
    const days = [
      state('submitted', 500, 480),
      state('approved', 480, 480, { recomputable: true }),
      state('draft', 0, 0, { day: '2026-11-25', hasOpenTimeEntry: true }),
      state('draft', 0, 0, { day: '2026-11-24', hasOpenTimeEntry: true })
    ]
    assert.deepEqual(summarize(days), {
      sumActualMs: 980 * MIN,
      sumTargetMs: 960 * MIN,
      submittedCount: 1,
      approvedCount: 1,
      declinedCount: 0,
      hasMultipleDayTimeEntryCount: 0,
      recomputableCount: 1,
      hasOpenTimeEntryCount: 2,
      openTimeEntryEarliestDay: '2026-11-24'
    })
  })

  it('chains carry-in from the previous carry-out, with manual values, the cap and locks', () => {
    const month = {
      sumActualComputedMs: 10000 * MIN,
      sumTargetComputedMs: 9600 * MIN,
      carryInManualMs: null,
      carryOutManualMs: null,
      locked: null
    }
    const first = carryMonth(null, month, null)
    assert.deepEqual(
      [first.carryInComputedMs, first.carryInMs, first.carryOutMs, first.carryOutCorrectionType],
      [0, 0, 400 * MIN, null]
    )
    const second = carryMonth(first.carryOutMs, month, 600 * MIN)
    assert.deepEqual(
      [
        second.carryInMs,
        second.carryOutComputedMs,
        second.carryOutMs,
        second.carryOutForfeitedMs,
        second.carryOutCorrectionType
      ],
      [400 * MIN, 800 * MIN, 600 * MIN, 200 * MIN, 'capped']
    )
    const manual = carryMonth(first.carryOutMs, { ...month, carryInManualMs: -60 * MIN, carryOutManualMs: 5 * MIN }, 0)
    assert.deepEqual(
      [
        manual.carryInMs,
        manual.carryInCorrectionType,
        manual.carryOutMs,
        manual.carryOutCorrectionType,
        manual.carryOutForfeitedMs
      ],
      [-60 * MIN, 'manual', 5 * MIN, 'manual', 0]
    )
    // A negative balance is never capped.
    assert.equal(carryMonth(-1000 * MIN, month, 0).carryOutMs, -600 * MIN)
    const locked = carryMonth(
      999 * MIN,
      {
        ...month,
        locked: { sumActualMs: 100 * MIN, sumTargetMs: 50 * MIN, carryInMs: 10 * MIN, carryOutMs: 40 * MIN }
      },
      40 * MIN
    )
    assert.deepEqual(
      [
        locked.carryInComputedMs,
        locked.carryInMs,
        locked.sumActualMs,
        locked.carryOutComputedMs,
        locked.carryOutMs,
        locked.carryOutCorrectionType,
        locked.carryOutForfeitedMs
      ],
      [999 * MIN, 10 * MIN, 100 * MIN, 60 * MIN, 40 * MIN, 'capped', 20 * MIN]
    )
  })

  it('chains every combination of manual values, cap and lock by the rules written out case by case (property)', () => {
    // The rules written out case by case. From CONTRACT §7.6: the carry-in is the manual one or the
    // previous carry-out; the carry-out the manual one, or the computed one capped from above, the
    // excess forfeited; a locked month keeps its snapshot. Our reading where §7.6 is silent: a locked
    // carry-out below what the snapshot's figures give was capped when the month locked, and says so
    // (the oracle states the rules, it does not check what the contract leaves open).
    const expected = (previous: number | null, month: MonthInputArb, capMs: number | null) => {
      const carryInComputedMs = previous ?? 0
      const { locked, carryInManualMs: inManual, carryOutManualMs: outManual } = month
      const sumActualMs = locked ? locked.sumActualMs : month.sumActualComputedMs
      const sumTargetMs = locked ? locked.sumTargetMs : month.sumTargetComputedMs
      const carryInMs = locked ? locked.carryInMs : inManual !== null ? inManual : carryInComputedMs
      const carryOutComputedMs = carryInMs + sumActualMs - sumTargetMs
      let carryOutMs: number
      let capped = false
      if (locked) {
        carryOutMs = locked.carryOutMs
        capped = outManual === null && carryOutMs < carryOutComputedMs
      } else if (outManual !== null) carryOutMs = outManual
      else if (capMs !== null && carryOutComputedMs > capMs) [carryOutMs, capped] = [capMs, true]
      else carryOutMs = carryOutComputedMs
      return {
        sumActualMs,
        sumTargetMs,
        carryInComputedMs,
        carryInMs,
        carryOutComputedMs,
        carryOutMs,
        carryOutForfeitedMs: capped ? carryOutComputedMs - carryOutMs : 0,
        carryInCorrectionType: inManual !== null ? 'manual' : null,
        carryOutCorrectionType: outManual !== null ? 'manual' : capped ? 'capped' : null
      }
    }
    // Small values make the boundaries (a carry-out equal to the cap, or to the locked one) frequent.
    const ms = fc
      .oneof(fc.integer({ min: -3, max: 3 }), fc.integer({ min: -500_000, max: 500_000 }))
      .map((minutes) => minutes * MIN)
    const orNull = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null, freq: 2 })
    const month = fc.record({
      sumActualComputedMs: ms,
      sumTargetComputedMs: ms,
      carryInManualMs: orNull(ms),
      carryOutManualMs: orNull(ms),
      locked: orNull(fc.record({ sumActualMs: ms, sumTargetMs: ms, carryInMs: ms, carryOutMs: ms }))
    })
    fc.assert(
      fc.property(orNull(ms), month, orNull(ms), (previous, input, capMs) => {
        assert.deepEqual(carryMonth(previous, input, capMs), expected(previous, input, capMs))
      }),
      { numRuns: 5000 }
    )
  })

  it('takes the current difference up to today', () => {
    const daily: [number, number][] = monthDays('2026-11-01').map((_, i) => [i, 1])
    assert.equal(currentDifferenceMs('2026-11-01', daily, '2026-11-03'), 0 + 1 + 2 - 3)
    assert.equal(currentDifferenceMs('2026-11-01', daily, '2026-10-31'), 0)
    assert.equal(
      currentDifferenceMs('2026-11-01', daily, '2027-01-01'),
      daily.reduce((s, [a, t]) => s + a - t, 0)
    )
  })
})

describe('time-sheet periods and workflows (pure)', () => {
  it('finds ISO weeks, months and the 3-month horizon', () => {
    assert.equal(weekStartOf('2026-11-22'), '2026-11-16')
    assert.equal(weekStartOf('2026-11-23'), '2026-11-23')
    assert.equal(weekStartOf('2027-01-01'), '2026-12-28')
    assert.equal(monthOf('2026-11-22'), '2026-11-01')
    assert.equal(addMonths('2026-01-31', 1), '2026-02-28')
    assert.deepEqual(monthsFrom('2026-11-15', '2027-01-01'), ['2026-11-01', '2026-12-01', '2027-01-01'])
    assert.equal(monthDays('2028-02-01').length, 29)
    assert.equal(horizonOf('Europe/Berlin', Date.parse('2026-11-30T23:30:00Z')), '2027-03-01')
    assert.equal(horizonOf('UTC', Date.parse('2026-11-30T23:30:00Z')), '2027-02-28')
  })

  it('allows exactly the moves of each table; the same status is no move', () => {
    for (const table of [DAY_MOVES, WEEK_MOVES, MONTH_MOVES]) {
      for (const from of SHEET_STATUSES) {
        for (const to of SHEET_STATUSES) {
          const allowed = from === to || table[from].includes(to)
          if (allowed) assertMove(table, 'x', from, to)
          else
            assert.throws(
              () => assertMove(table, 'x', from, to),
              (e: any) => e.code === 409 && typeof e.data.validationErrors.status === 'string'
            )
        }
      }
    }
    assert.deepEqual(DAY_MOVES.approved, ['draft'])
    assert.deepEqual(DAY_MOVES.draft, ['submitted'])
  })

  it('records when and by whom, and clears the pair a move leaves', () => {
    const move = { now: 'T', actingUserId: 7, submittedFirstAt: null, withDeciders: true }
    assert.deepEqual(moveColumns('draft', 'submitted', move), {
      status: 'submitted',
      submittedAt: 'T',
      submittedFirstAt: 'T'
    })
    assert.deepEqual(moveColumns('declined', 'submitted', { ...move, submittedFirstAt: 'S' }), {
      status: 'submitted',
      declinedAt: null,
      declinedById: null,
      submittedAt: 'T'
    })
    assert.deepEqual(moveColumns('submitted', 'approved', move), {
      status: 'approved',
      approvedAt: 'T',
      approvedById: 7
    })
    assert.deepEqual(moveColumns('approved', 'draft', { ...move, withDeciders: false }), {
      status: 'draft',
      approvedAt: null
    })
  })
})
