import assert from 'node:assert/strict'
import { DateTime } from 'luxon'
import { forEachDatabase } from '../../support/harness'
import { sheetFixtures } from '../../support/timesheets/fixtures'
import { assertConsistent, assertMatchesRecomputation } from '../../support/timesheets/invariants'
import { userWorkingTimes as versions } from '../../support/timesheets/user-working-times'
import { daysFrom } from '../../../src/timesheets/periods'

/**
 * docs/timesheets.md, "A worked example: an account from its first day": the story replayed
 * through the API, every figure the page shows asserted as it shows it. Change one, change both.
 */
const ZONE = 'Europe/Berlin'
const at = (day: string, time: string) => DateTime.fromISO(`${day}T${time}`, { zone: ZONE }).toISO()!
const isWeekday = (day: string) => DateTime.fromISO(day).weekday <= 5

forEachDatabase('the worked example of docs/timesheets.md', (suite) => {
  const f = sheetFixtures(suite)

  it('replays Mia’s first two months and shows the figures of the page', async () => {
    const c = await suite.company({ country: 'DE' })
    const types = await f.typesOf(c)
    const mia = await f.newUser(c, { employedFrom: '2026-09-16', openingBalance: 600 })
    const entry = async (day: string, from: string, to: string) =>
      (await f.entry(c, types, mia, at(day, from), at(day, to))).id as number

    // Full time from Wednesday 16 September to Wednesday 14 October: 07:30–12:00 and 12:30–16:00,
    // except Tuesday 29 September, 07:00–12:00 and 12:45–17:15.
    for (const day of daysFrom('2026-09-16', '2026-10-14').filter(isWeekday)) {
      if (day === '2026-09-29') {
        await entry(day, '07:00', '12:00')
        await entry(day, '12:45', '17:15')
      } else {
        await entry(day, '07:30', '12:00')
        await entry(day, '12:30', '16:00')
      }
    }
    // From Thursday 15 October 08:00–12:00; Friday 16 off (overtime compensation); Tuesday 20 until 12:30.
    let tuesday = 0
    for (const day of daysFrom('2026-10-15', '2026-10-31').filter(isWeekday)) {
      if (day === '2026-10-20') tuesday = await entry(day, '08:00', '12:30')
      else if (day !== '2026-10-16') await entry(day, '08:00', '12:00')
    }
    const compensation = await f.absence(c, types.overtime, mia, at('2026-10-16', '00:00'), at('2026-10-17', '00:00'))
    assert.deepEqual([compensation.status, compensation.workDays], ['approved', 1])

    // Before the part-time version October has 22 full-time days.
    assert.equal((await f.month(c, mia, '2026-10-01')).sumTarget, 10_560)
    const version = await versions.create(c, mia, {
      validFrom: '2026-10-15',
      targets: { mon: 240, tue: 240, wed: 240, thu: 240, fri: 240, sat: 0, sun: 0 },
      note: '20 h a week'
    })
    assert.equal(version.status, 201, version.text)
    assert.equal((await f.month(c, mia, '2026-10-01')).sumTarget, 7_680)
    assert.deepEqual(await figures('2026-10-20'), { duration: 270, expectedDuration: 240, breakTime: 0 })
    assert.equal((await f.month(c, mia, '2026-10-01')).carryOut, 480)

    // The pause she forgot to record, added afterwards.
    const paused = await c.api.patch(`/v1/time-entries/${tuesday}`, {
      pauses: [{ startsAt: at('2026-10-20', '10:00'), endsAt: at('2026-10-20', '10:30') }]
    })
    assert.equal(paused.status, 200, paused.text)
    assert.equal(paused.body.duration, 240)

    async function figures(day: string) {
      const { duration, expectedDuration, breakTime } = await f.day(c, mia, day)
      return { duration, expectedDuration, breakTime }
    }

    // The days.
    assert.deepEqual(await figures('2026-09-14'), { duration: 0, expectedDuration: 0, breakTime: null })
    assert.deepEqual(await figures('2026-09-16'), { duration: 480, expectedDuration: 480, breakTime: 30 })
    assert.deepEqual(await figures('2026-09-29'), { duration: 570, expectedDuration: 480, breakTime: 45 })
    assert.deepEqual(await figures('2026-10-14'), { duration: 480, expectedDuration: 480, breakTime: 30 })
    assert.deepEqual(await figures('2026-10-15'), { duration: 240, expectedDuration: 240, breakTime: 0 })
    assert.deepEqual(await figures('2026-10-16'), { duration: 0, expectedDuration: 240, breakTime: null })
    assert.deepEqual(await figures('2026-10-20'), { duration: 240, expectedDuration: 240, breakTime: 30 })
    const checks = await f.day(c, mia, '2026-09-29')
    assert.deepEqual([checks.breakTimeErrorType, checks.durationErrorValue], [null, null])

    // The weeks.
    const week = async (weekStart: string) => {
      const { sumActual, sumTarget } = await f.week(c, mia, weekStart)
      return [sumActual, sumTarget]
    }
    assert.deepEqual(await week('2026-09-14'), [1_440, 1_440])
    assert.deepEqual(await week('2026-10-12'), [1_680, 1_920])
    assert.deepEqual(await week('2026-10-19'), [1_200, 1_200])

    // The months and the carry chain.
    const month = async (first: string) => {
      const { carryInComputed, carryIn, sumActual, sumTarget, carryOut } = await f.month(c, mia, first)
      return { carryInComputed, carryIn, sumActual, sumTarget, carryOut }
    }
    const september = { carryInComputed: 600, carryIn: 600, sumActual: 5_370, sumTarget: 5_280, carryOut: 690 }
    assert.deepEqual(await month('2026-09-01'), september)
    assert.deepEqual(await month('2026-10-01'), {
      carryInComputed: 690,
      carryIn: 690,
      sumActual: 7_440,
      sumTarget: 7_680,
      carryOut: 450
    })
    assert.equal((await f.month(c, mia, '2026-11-01')).carryIn, 450)

    // A look-up of the week of 31 August creates August outside the chain and moves nothing.
    assert.deepEqual(await week('2026-08-31'), [0, 0])
    const august = await month('2026-08-01')
    assert.deepEqual([august.carryInComputed, august.sumTarget], [0, 0])
    assert.deepEqual(await month('2026-09-01'), september)
    assertConsistent(await assertMatchesRecomputation(suite.server().knex, c.id, mia))

    // Approving the compensation records the decision and changes no figure.
    const approved = await c.api.patch(`/v1/user-absences/${compensation.id}`, {
      compensationApprovedAt: '2026-10-19T09:00:00Z'
    })
    assert.equal(approved.status, 200, approved.text)
    assert.deepEqual(await figures('2026-10-16'), { duration: 0, expectedDuration: 240, breakTime: null })
    assert.equal((await f.month(c, mia, '2026-10-01')).carryOut, 450)

    // Had the office declined it, Friday would be time off and the balance kept.
    const declined = await c.api.patch(`/v1/user-absences/${compensation.id}`, {
      compensationApprovedAt: null,
      compensationDeclinedAt: '2026-10-19T09:00:00Z'
    })
    assert.equal(declined.status, 200, declined.text)
    assert.deepEqual(await figures('2026-10-16'), { duration: 0, expectedDuration: 0, breakTime: null })
    assert.equal((await f.month(c, mia, '2026-10-01')).carryOut, 690)
    assert.equal((await f.month(c, mia, '2026-11-01')).carryIn, 690)
    assertConsistent(await assertMatchesRecomputation(suite.server().knex, c.id, mia))
  })
})
