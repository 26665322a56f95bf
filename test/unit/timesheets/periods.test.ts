import assert from 'node:assert/strict'
import fc from 'fast-check'
import { DateTime } from 'luxon'
import { addDays, addMonths, lastDayOfMonth, weekStartOf } from '../../../src/timesheets/periods'
import { isoWeekday, nextDay } from '../../../src/timesheets/calendar'

/**
 * The periods' date arithmetic is plain arithmetic on `YYYY-MM-DD` (issue #22: luxon's objects
 * were a fifth of a write's CPU); it must answer exactly as luxon does, for every day and for
 * what is not one.
 */
describe('timesheets/periods', () => {
  const luxon = (day: string) => DateTime.fromISO(day, { zone: 'UTC' })
  const anyDay = fc
    .integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(9999, 11, 31) })
    .map((ms) => new Date(ms - (ms % 86_400_000)).toISOString().slice(0, 10))
  const someDay = fc.oneof(
    anyDay,
    fc.constantFrom('2024-02-29', '2026-01-31', '9999-12-31', '1000-01-01', '2026-02-30', '2026-13-01', 'x', '')
  )

  it('adds days and months, finds month ends, weekdays and week starts as luxon does', () => {
    fc.assert(
      fc.property(someDay, fc.integer({ min: -800, max: 800 }), fc.integer({ min: -30, max: 30 }), (day, d, m) => {
        assert.equal(addDays(day, d), luxon(day).plus({ days: d }).toISODate())
        assert.equal(addMonths(day, m), luxon(day).plus({ months: m }).toISODate())
        assert.equal(lastDayOfMonth(day), luxon(day).endOf('month').toISODate())
        assert.equal(nextDay(day), luxon(day).plus({ days: 1 }).toISODate())
        const weekday = luxon(day).weekday
        if (Number.isNaN(weekday)) assert.ok(Number.isNaN(isoWeekday(day)))
        else {
          assert.equal(isoWeekday(day), weekday)
          assert.equal(weekStartOf(day), luxon(day).startOf('week').toISODate())
        }
      }),
      { numRuns: 3000 }
    )
  })

  it('clamps a month end like luxon (31 January plus one month is the end of February)', () => {
    assert.equal(addMonths('2026-01-31', 1), '2026-02-28')
    assert.equal(addMonths('2024-01-31', 1), '2024-02-29')
    assert.equal(addMonths('2026-03-31', -1), '2026-02-28')
  })
})
