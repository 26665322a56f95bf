import assert from 'node:assert/strict'
import {
  calendarDay,
  dayBounds,
  dayLengthMinutes,
  daysCovered,
  isoWeekday,
  nextDay,
  uniqueDays
} from '../../../src/timesheets/calendar'

describe('timesheets/calendar', () => {
  it('puts an instant on the calendar day of the company timezone, not of UTC', () => {
    assert.equal(calendarDay('2026-11-22T23:30:00Z', 'Europe/Berlin'), '2026-11-23')
    assert.equal(calendarDay('2026-11-22T23:30:00Z', 'UTC'), '2026-11-22')
    assert.equal(calendarDay(new Date('2026-07-01T21:59:59.999Z'), 'Europe/Rome'), '2026-07-01')
    assert.equal(calendarDay('2026-07-01T22:00:00Z', 'Europe/Rome'), '2026-07-02')
  })

  it('gives a 23-hour day when the clocks go forward (Europe/Berlin, Europe/Rome)', () => {
    for (const zone of ['Europe/Berlin', 'Europe/Rome']) {
      const { start, end } = dayBounds('2026-03-29', zone)
      assert.equal(start.toISOString(), '2026-03-28T23:00:00.000Z')
      assert.equal(end.toISOString(), '2026-03-29T22:00:00.000Z')
      assert.equal(dayLengthMinutes('2026-03-29', zone), 1380)
    }
  })

  it('gives a 25-hour day when the clocks go back', () => {
    for (const zone of ['Europe/Berlin', 'Europe/Rome']) {
      const { start, end } = dayBounds('2026-10-25', zone)
      assert.equal(start.toISOString(), '2026-10-24T22:00:00.000Z')
      assert.equal(end.toISOString(), '2026-10-25T23:00:00.000Z')
      assert.equal(dayLengthMinutes('2026-10-25', zone), 1500)
    }
    assert.equal(dayLengthMinutes('2026-10-26', 'Europe/Berlin'), 1440)
  })

  it('starts a day at the first local instant where DST changes at midnight (America/Santiago)', () => {
    const { start, end } = dayBounds('2026-09-06', 'America/Santiago')
    assert.equal(start.toISOString(), '2026-09-06T04:00:00.000Z') // 01:00 local: 00:00 does not exist
    assert.equal(end.toISOString(), '2026-09-07T03:00:00.000Z')
    assert.equal(dayLengthMinutes('2026-09-06', 'America/Santiago'), 1380)
  })

  it('lists the days a half-open interval intersects, the end being exclusive', () => {
    // Friday 22:00 to Monday 06:00 Berlin time.
    assert.deepEqual(daysCovered('2026-11-20T21:00:00Z', '2026-11-23T05:00:00Z', 'Europe/Berlin'), [
      '2026-11-20',
      '2026-11-21',
      '2026-11-22',
      '2026-11-23'
    ])
    // Exactly one local day, 23 hours long: a UTC-based split would give two days.
    assert.deepEqual(daysCovered('2026-03-28T23:00:00Z', '2026-03-29T22:00:00Z', 'Europe/Berlin'), ['2026-03-29'])
    // Exactly one local day, 25 hours long: 24-hour steps would spill into the next day.
    assert.deepEqual(daysCovered('2026-10-24T22:00:00Z', '2026-10-25T23:00:00Z', 'Europe/Rome'), ['2026-10-25'])
    // An empty interval belongs to its start day.
    assert.deepEqual(daysCovered('2026-11-22T23:00:00Z', '2026-11-22T23:00:00Z', 'Europe/Berlin'), ['2026-11-23'])
    assert.throws(() => daysCovered('2026-11-23T00:00:00Z', '2026-11-22T00:00:00Z', 'UTC'))
  })

  it('names weekdays and steps across month and year ends', () => {
    assert.equal(isoWeekday('2026-11-23'), 1)
    assert.equal(isoWeekday('2026-03-29'), 7)
    assert.equal(nextDay('2026-12-31'), '2027-01-01')
    assert.equal(nextDay('2028-02-28'), '2028-02-29')
    assert.deepEqual(uniqueDays(['2026-11-23', '2026-11-22'], ['2026-11-22']), ['2026-11-22', '2026-11-23'])
  })

  it('rejects days that do not exist', () => {
    assert.throws(() => dayBounds('2026-02-30', 'Europe/Berlin'))
  })
})
