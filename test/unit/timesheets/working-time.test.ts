import assert from 'node:assert/strict'
import { absenceCoverage, absenceStatus, absenceWorkDays } from '../../../src/timesheets/absences'
import {
  applicableBreakRule,
  defaultWorkingTime,
  targetMinutes,
  WorkingTimeModel
} from '../../../src/timesheets/working-time'
import { FIRST_VERSION_DAY, Schedule } from '../../../src/timesheets/schedule'

const berlin = (overrides: Partial<WorkingTimeModel> = {}, employedFrom: string | null = null) =>
  new Schedule(
    'Europe/Berlin',
    [{ validFrom: FIRST_VERSION_DAY, ...defaultWorkingTime('DE'), ...overrides }],
    [],
    employedFrom
  )

describe('timesheets/working-time', () => {
  it('seeds 480 minutes Monday to Friday and the break rules and maximum of the country', () => {
    const de = defaultWorkingTime('DE')
    assert.equal(targetMinutes(de, '2026-11-23'), 480) // Monday
    assert.equal(targetMinutes(de, '2026-11-27'), 480) // Friday
    assert.equal(targetMinutes(de, '2026-11-28'), 0) // Saturday
    assert.equal(targetMinutes(de, '2026-11-29'), 0) // Sunday
    assert.equal(de.maxDailyMinutes, 600)
    assert.equal(de.carryOverCapMinutes, null)
    const it_ = defaultWorkingTime('IT')
    assert.deepEqual(it_.breakRules, [{ afterMinutes: 360, minBreakMinutes: 10 }])
    assert.equal(it_.maxDailyMinutes, 780)
    assert.deepEqual(defaultWorkingTime('FR').breakRules, de.breakRules)
  })

  it('applies the strictest break rule the worked minutes exceed', () => {
    const de = defaultWorkingTime('DE')
    assert.equal(applicableBreakRule(de, 360), null)
    assert.deepEqual(applicableBreakRule(de, 361), { afterMinutes: 360, minBreakMinutes: 30 })
    assert.deepEqual(applicableBreakRule(de, 541), { afterMinutes: 540, minBreakMinutes: 45 })
  })

  it('takes the model of a day from the company version in effect, the targets of the user over it, and no target before employedFrom', () => {
    const de = defaultWorkingTime('DE')
    const company = [
      { validFrom: FIRST_VERSION_DAY, ...de },
      { validFrom: '2026-06-01', ...de, maxDailyMinutes: 540, targetMinutes: { ...de.targetMinutes, friday: 240 } }
    ]
    const partTime = { monday: 240, tuesday: 240, wednesday: 0, thursday: 0, friday: 0, saturday: 0, sunday: 0 }
    const schedule = new Schedule(
      'Europe/Berlin',
      company,
      [{ validFrom: '2026-09-07', targetMinutes: partTime }],
      '2026-01-05'
    )
    assert.equal(targetMinutes(schedule.on('2026-01-02'), '2026-01-02'), 0) // Friday before employedFrom
    assert.equal(targetMinutes(schedule.on('2026-05-29'), '2026-05-29'), 480) // Friday, first version
    assert.equal(targetMinutes(schedule.on('2026-06-05'), '2026-06-05'), 240) // Friday, second version
    assert.equal(schedule.on('2026-06-05').maxDailyMinutes, 540)
    assert.equal(targetMinutes(schedule.on('2026-09-07'), '2026-09-07'), 240) // Monday, the user's version
    assert.equal(targetMinutes(schedule.on('2026-09-09'), '2026-09-09'), 0) // Wednesday, the user's version
    assert.equal(schedule.on('2026-09-09').maxDailyMinutes, 540) // the rules stay the company's
    assert.deepEqual(schedule.changesWithin('2026-01-01', '2026-12-31'), ['2026-01-05', '2026-06-01', '2026-09-07'])
  })
})

describe('timesheets/absences', () => {
  it('derives the status from the decisions', () => {
    assert.equal(absenceStatus({}), 'draft')
    assert.equal(absenceStatus({ requestedAt: '2026-11-01T00:00:00Z' }), 'idle')
    assert.equal(absenceStatus({ requestedAt: 'x', approvedAt: 'y' }), 'approved')
    assert.equal(absenceStatus({ requestedAt: 'x', declinedAt: 'y' }), 'declined')
  })

  it('covers every calendar day it intersects, with the minutes of each', () => {
    // Friday 14:00 to Monday 10:00 Berlin time.
    assert.deepEqual(absenceCoverage('2026-11-27T13:00:00Z', '2026-11-30T09:00:00Z', 'Europe/Berlin'), [
      { day: '2026-11-27', minutes: 600 },
      { day: '2026-11-28', minutes: 1440 },
      { day: '2026-11-29', minutes: 1440 },
      { day: '2026-11-30', minutes: 600 }
    ])
    // The whole of the 25-hour day.
    assert.deepEqual(absenceCoverage('2026-10-25T00:00:00+02:00', '2026-10-26T00:00:00+01:00', 'Europe/Rome'), [
      { day: '2026-10-25', minutes: 1500 }
    ])
  })

  it('counts covered days with a target, skipping the weekend', () => {
    // Thursday 00:00 to Tuesday 00:00: Thu, Fri, Mon count; Sat and Sun have no target.
    assert.equal(
      absenceWorkDays({ startsAt: '2026-11-26T00:00:00+01:00', endsAt: '2026-12-01T00:00:00+01:00' }, false, berlin()),
      3
    )
    // A partial day counts as a whole day for a daily type.
    assert.equal(
      absenceWorkDays({ startsAt: '2026-11-23T10:00:00+01:00', endsAt: '2026-11-23T12:00:00+01:00' }, false, berlin()),
      1
    )
    assert.equal(
      absenceWorkDays({ startsAt: '2026-11-28T00:00:00+01:00', endsAt: '2026-11-30T00:00:00+01:00' }, false, berlin()),
      0
    )
  })

  it('counts an hourly type as its hours ÷ the day target, at most 1 a day', () => {
    assert.equal(
      absenceWorkDays({ startsAt: '2026-11-23T08:00:00+01:00', endsAt: '2026-11-23T10:00:00+01:00' }, true, berlin()),
      0.25
    )
    assert.equal(
      absenceWorkDays({ startsAt: '2026-11-23T08:00:00+01:00', endsAt: '2026-11-23T10:40:00+01:00' }, true, berlin()),
      0.33
    )
    // Monday 00:00 to Tuesday 12:00: a full Monday caps at 1, Tuesday has 12 h of an 8 h target.
    assert.equal(
      absenceWorkDays({ startsAt: '2026-11-23T00:00:00+01:00', endsAt: '2026-11-24T12:00:00+01:00' }, true, berlin()),
      2
    )
  })

  it('uses the local day on DST changes', () => {
    const sundays = berlin({ targetMinutes: { ...defaultWorkingTime('DE').targetMinutes, sunday: 240 } })
    // The 23-hour Sunday, exactly: one day, not two UTC days.
    assert.equal(
      absenceWorkDays({ startsAt: '2026-03-29T00:00:00+01:00', endsAt: '2026-03-30T00:00:00+02:00' }, false, sundays),
      1
    )
    // The 25-hour Sunday, exactly: Monday is not touched.
    assert.equal(
      absenceWorkDays({ startsAt: '2026-10-25T00:00:00+02:00', endsAt: '2026-10-26T00:00:00+01:00' }, false, sundays),
      1
    )
    assert.equal(
      absenceWorkDays({ startsAt: '2026-10-25T00:00:00+02:00', endsAt: '2026-10-26T00:00:00+01:00' }, false, berlin()),
      0
    )
    // Two hours on the short day: 01:00–04:00 local is 2 hours of real time.
    assert.equal(
      absenceWorkDays({ startsAt: '2026-03-29T01:00:00+01:00', endsAt: '2026-03-29T04:00:00+02:00' }, true, sundays),
      0.5
    )
  })
})
