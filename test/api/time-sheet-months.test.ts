import assert from 'node:assert/strict'
import { DateTime } from 'luxon'
import { forEachDatabase, TestCompany } from '../support/harness'
import { changeWorkingTime, mondayHour, SheetTypes, sheetFixtures } from '../support/timesheets/fixtures'
import { addMonths, horizonOf, monthOf, today } from '../../src/timesheets/periods'

const MONTH_FIELDS = [
  'approvedAt',
  'approvedCount',
  'carryIn',
  'carryInComputed',
  'carryInCorrectionType',
  'carryInLocked',
  'carryOut',
  'carryOutComputed',
  'carryOutCorrectionType',
  'carryOutForfeited',
  'carryOutLocked',
  'computedAt',
  'createdAt',
  'currentDifference',
  'declinedAt',
  'declinedCount',
  'declinedNote',
  'externalId',
  'hasMultipleDayTimeEntryCount',
  'hasOpenTimeEntryCount',
  'id',
  'lockedAt',
  'month',
  'note',
  'openTimeEntryEarliestDay',
  'recomputableCount',
  'status',
  'submittedAt',
  'submittedCount',
  'submittedFirstAt',
  'sumActual',
  'sumActualComputed',
  'sumActualLocked',
  'sumTarget',
  'sumTargetComputed',
  'sumTargetLocked',
  'updatedAt',
  'userId'
]

const carry = (m: any) => ({
  carryInComputed: m.carryInComputed,
  carryIn: m.carryIn,
  sumActual: m.sumActual,
  sumTarget: m.sumTarget,
  carryOut: m.carryOut
})

forEachDatabase('time-sheet-months', (suite) => {
  const f = sheetFixtures(suite)
  let a: TestCompany
  let b: TestCompany
  /** Targets: 60 minutes on Mondays only. */
  let c: TestCompany
  let typesC: SheetTypes

  before(async () => {
    a = await suite.company({ country: 'DE' })
    b = await suite.company({ country: 'DE' })
    c = await suite.company({ country: 'DE' })
    typesC = await f.typesOf(c)
    await changeWorkingTime(suite, c, mondayHour)
  })

  const patch = (company: TestCompany, id: number, body: Record<string, unknown>) =>
    company.api.patch(`/v1/time-sheet-months/${id}`, body)
  const monthsOf = async (company: TestCompany, userId: number) =>
    (await company.api.get('/v1/time-sheet-months', { userId, size: 20, '$sort[month]': 1 })).body.items as any[]

  it('looks a month up by user (full shape) and keeps the chain of months gap-free from the month of employedFrom', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-06-01' })
    const res = await a.api.get('/v1/time-sheet-months/by-user', { userId, month: '2026-06-01' })
    assert.equal(res.status, 200, res.text)
    assert.deepEqual(Object.keys(res.body).sort(), MONTH_FIELDS)
    assert.deepEqual(carry(res.body), {
      carryInComputed: 0,
      carryIn: 0,
      sumActual: 0,
      sumTarget: 10560,
      carryOut: -10560
    })
    assert.deepEqual(
      [
        res.body.status,
        res.body.lockedAt,
        res.body.carryInCorrectionType,
        res.body.carryOutForfeited,
        res.body.sumActualLocked
      ],
      ['draft', null, null, 0, null]
    )
    await f.month(a, userId, '2026-09-01')
    assert.deepEqual(
      (await monthsOf(a, userId)).map((m) => m.month),
      ['2026-06-01', '2026-07-01', '2026-08-01', '2026-09-01']
    )
    // A month before employedFrom is outside the chain (CONTRACT §11.1): created alone, it moves no balance.
    const before = await monthsOf(a, userId)
    await f.month(a, userId, '2026-04-01')
    const months = await monthsOf(a, userId)
    assert.deepEqual(
      months.map((m) => m.month),
      ['2026-04-01', '2026-06-01', '2026-07-01', '2026-08-01', '2026-09-01']
    )
    assert.deepEqual(carry(months[0]), { carryInComputed: 0, carryIn: 0, sumActual: 0, sumTarget: 0, carryOut: 0 })
    assert.deepEqual(months.slice(1), before)
    for (let i = 2; i < months.length; i++) assert.equal(months[i].carryIn, months[i - 1].carryOut)
  })

  it('validates the by-user query: the first of a month within 3 months, a known user', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-06-01' })
    const mid = await a.api.get('/v1/time-sheet-months/by-user', { userId, month: '2026-06-15' })
    assert.equal(mid.status, 400)
    assert.match(mid.body.data.validationErrors.month, /first day of a month/)
    const last = monthOf(horizonOf('Europe/Berlin'))
    assert.equal((await a.api.get('/v1/time-sheet-months/by-user', { userId, month: last })).status, 200)
    const beyond = await a.api.get('/v1/time-sheet-months/by-user', { userId, month: addMonths(last, 1) })
    assert.equal(beyond.status, 400)
    assert.match(beyond.body.data.validationErrors.month, /3 calendar months/)
    assert.equal(
      (await a.api.get('/v1/time-sheet-months/by-user', { userId: 2147483000, month: '2026-06-01' })).status,
      404
    )
  })

  it('carries the balance from month to month and recomputes later months when an earlier one changes', async () => {
    const userId = await f.newUser(c, { employedFrom: '2026-08-01' })
    await f.entry(c, typesC, userId, '2026-08-03T08:00:00+02:00', '2026-08-03T10:00:00+02:00')
    await f.entry(c, typesC, userId, '2026-09-07T08:00:00+02:00', '2026-09-07T12:00:00+02:00')
    await f.entry(c, typesC, userId, '2026-09-08T08:00:00+02:00', '2026-09-08T09:00:00+02:00')
    await f.entry(c, typesC, userId, '2026-10-05T08:00:00+02:00', '2026-10-05T11:00:00+02:00')
    await f.month(c, userId, '2026-08-01')
    await f.month(c, userId, '2026-10-01')
    let [aug, sep, oct] = await monthsOf(c, userId)
    assert.deepEqual(carry(aug), { carryInComputed: 0, carryIn: 0, sumActual: 120, sumTarget: 300, carryOut: -180 })
    assert.deepEqual(carry(sep), {
      carryInComputed: -180,
      carryIn: -180,
      sumActual: 300,
      sumTarget: 240,
      carryOut: -120
    })
    assert.deepEqual(carry(oct), {
      carryInComputed: -120,
      carryIn: -120,
      sumActual: 180,
      sumTarget: 240,
      carryOut: -180
    })
    await f.entry(c, typesC, userId, '2026-08-04T08:00:00+02:00', '2026-08-04T11:00:00+02:00')
    ;[aug, sep, oct] = await monthsOf(c, userId)
    assert.deepEqual([aug.carryOut, sep.carryIn, sep.carryOut, oct.carryIn, oct.carryOut], [0, 0, 60, 60, 0])
    assert.ok(oct.computedAt >= sep.createdAt)
  })

  it('takes manual carries (write-only, correction type manual) and a company cap (capped, forfeited)', async () => {
    const userId = await f.newUser(c, { employedFrom: '2026-08-01' })
    await f.entry(c, typesC, userId, '2026-09-07T08:00:00+02:00', '2026-09-07T12:00:00+02:00')
    await f.entry(c, typesC, userId, '2026-09-08T08:00:00+02:00', '2026-09-08T09:00:00+02:00')
    await f.month(c, userId, '2026-08-01')
    await f.month(c, userId, '2026-10-01')
    const sepBefore = await f.month(c, userId, '2026-09-01')
    assert.deepEqual([sepBefore.carryIn, sepBefore.carryOut], [-300, -240])
    const manual = await patch(c, sepBefore.id, { carryInManual: 30.5 })
    assert.equal(manual.status, 200, manual.text)
    assert.equal('carryInManual' in manual.body, false)
    assert.deepEqual(
      [manual.body.carryIn, manual.body.carryInComputed, manual.body.carryInCorrectionType, manual.body.carryOut],
      [30.5, -300, 'manual', 90.5]
    )
    let [, , oct] = await monthsOf(c, userId)
    assert.equal(oct.carryIn, 90.5)
    const out = await patch(c, sepBefore.id, { carryOutManual: -15 })
    assert.deepEqual(
      [out.body.carryOut, out.body.carryOutComputed, out.body.carryOutCorrectionType],
      [-15, 90.5, 'manual']
    )
    ;[, , oct] = await monthsOf(c, userId)
    assert.equal(oct.carryIn, -15)
    const cleared = await patch(c, sepBefore.id, { carryInManual: null, carryOutManual: null })
    assert.deepEqual(
      [
        cleared.body.carryIn,
        cleared.body.carryOut,
        cleared.body.carryInCorrectionType,
        cleared.body.carryOutCorrectionType
      ],
      [-300, -240, null, null]
    )
    assert.equal((await patch(c, sepBefore.id, { carryInManual: 'x' })).status, 400)
    assert.equal((await patch(c, sepBefore.id, { carryOut: 5 })).body.data.validationErrors.carryOut, 'is read-only')

    // A cap only cuts a positive carry-out.
    await patch(c, sepBefore.id, { carryInManual: 100 })
    await changeWorkingTime(suite, c, (model) => {
      model.carryOverCapMinutes = 50
    })
    try {
      const [aug, sep] = await monthsOf(c, userId)
      assert.deepEqual([aug.carryOut, aug.carryOutCorrectionType], [-300, null])
      assert.deepEqual(
        [sep.carryOutComputed, sep.carryOut, sep.carryOutForfeited, sep.carryOutCorrectionType],
        [160, 50, 110, 'capped']
      )
      ;[, , oct] = await monthsOf(c, userId)
      assert.equal(oct.carryIn, 50)
    } finally {
      await changeWorkingTime(suite, c, mondayHour)
    }
  })

  it('approves a submitted month: days approved, month locked with a snapshot; locked periods refuse changes (409)', async () => {
    const userId = await f.newUser(c, { employedFrom: '2026-08-01' })
    await f.entry(c, typesC, userId, '2026-08-03T08:00:00+02:00', '2026-08-03T09:00:00+02:00')
    const entry = await f.entry(c, typesC, userId, '2026-09-07T08:00:00+02:00', '2026-09-07T12:00:00+02:00')
    await f.month(c, userId, '2026-08-01')
    const sep = await f.month(c, userId, '2026-09-01')
    await f.month(c, userId, '2026-10-01')
    assert.equal((await patch(c, sep.id, { status: 'approved' })).status, 409)
    const submitted = await patch(c, sep.id, { status: 'submitted', note: 'September' })
    assert.equal(submitted.status, 200, submitted.text)
    assert.deepEqual(
      [submitted.body.submittedCount, submitted.body.note, submitted.body.lockedAt],
      [30, 'September', null]
    )
    assert.ok(submitted.body.submittedFirstAt)
    const approved = await patch(c, sep.id, { status: 'approved' })
    assert.equal(approved.status, 200, approved.text)
    assert.deepEqual(
      [approved.body.status, approved.body.approvedCount, approved.body.sumActualLocked, approved.body.sumTargetLocked],
      ['approved', 30, 240, 240]
    )
    assert.deepEqual(
      [approved.body.carryInLocked, approved.body.carryOutLocked, approved.body.carryIn, approved.body.carryOut],
      [-240, -240, -240, -240]
    )
    assert.ok(approved.body.lockedAt && approved.body.approvedAt)
    const days = (
      await c.api.get('/v1/time-sheet-days', { userId, 'day[$gte]': '2026-09-01', 'day[$lte]': '2026-09-30', size: 20 })
    ).body
    assert.equal(days.total, 30)
    assert.ok(days.items.every((d: any) => d.status === 'approved'))

    const refused = [
      await c.api.post('/v1/time-entries', {
        typeId: typesC.work,
        userId,
        startsAt: '2026-09-09T08:00:00+02:00',
        endsAt: '2026-09-09T09:00:00+02:00'
      }),
      await c.api.patch(`/v1/time-entries/${entry.id}`, { endsAt: '2026-09-07T11:00:00+02:00' }),
      await c.api.post('/v1/user-absences', {
        typeId: typesC.vacation,
        userId,
        startsAt: '2026-09-30T12:00:00+02:00',
        endsAt: '2026-10-01T12:00:00+02:00'
      }),
      await patch(c, sep.id, { carryInManual: 10 }),
      await c.api.patch(`/v1/time-sheet-days/${days.items[0].id}`, { status: 'draft' }),
      await patch(c, sep.id, { status: 'declined' })
    ]
    assert.deepEqual(
      refused.map((r) => r.status),
      [409, 409, 409, 409, 409, 409]
    )

    // An earlier month changes: the locked month keeps its figures, later months chain from its locked carry-out.
    await f.entry(c, typesC, userId, '2026-08-04T08:00:00+02:00', '2026-08-04T10:00:00+02:00')
    let [aug, sepAfter, oct] = await monthsOf(c, userId)
    assert.equal(aug.carryOut, -120)
    assert.deepEqual([sepAfter.carryInComputed, sepAfter.carryIn, sepAfter.carryOut], [-120, -240, -240])
    assert.equal(oct.carryIn, -240)

    const reopened = await patch(c, sep.id, { status: 'draft' })
    assert.equal(reopened.status, 200, reopened.text)
    assert.deepEqual(
      [
        reopened.body.lockedAt,
        reopened.body.carryInLocked,
        reopened.body.approvedAt,
        reopened.body.carryIn,
        reopened.body.carryOut
      ],
      [null, null, null, -120, -120]
    )
    ;[aug, sepAfter, oct] = await monthsOf(c, userId)
    assert.equal(oct.carryIn, -120)
    assert.equal((await c.api.get('/v1/time-sheet-days', { userId, status: 'approved' })).body.total, 0)
  })

  it('declines a submitted month and its submitted days; approving needs every day submitted (409)', async () => {
    const userId = await f.newUser(c, { employedFrom: '2026-07-01' })
    const month = await f.month(c, userId, '2026-07-01')
    await patch(c, month.id, { status: 'submitted' })
    const day = await f.day(c, userId, '2026-07-15')
    await c.api.patch(`/v1/time-sheet-days/${day.id}`, { status: 'declined', declinedNote: 'Bitte Pause eintragen' })
    await c.api.patch(`/v1/time-sheet-days/${day.id}`, { status: 'draft' })
    const refused = await patch(c, month.id, { status: 'approved' })
    assert.equal(refused.status, 409)
    assert.deepEqual(refused.body.data.days, ['2026-07-15'])
    assert.equal((await f.month(c, userId, '2026-07-01')).lockedAt, null)
    await c.api.patch(`/v1/time-sheet-days/${day.id}`, { status: 'submitted' })
    await c.api.patch(`/v1/time-sheet-days/${day.id}`, { status: 'declined', declinedNote: 'Pause fehlt' })
    const declined = await patch(c, month.id, { status: 'declined' })
    assert.equal(declined.status, 200, declined.text)
    assert.deepEqual(
      [declined.body.status, declined.body.declinedCount, declined.body.declinedNote],
      ['declined', 31, 'Pause fehlt']
    )
    assert.ok(declined.body.declinedAt)
    const draft = await patch(c, month.id, { status: 'draft' })
    assert.deepEqual(
      [draft.body.status, draft.body.declinedAt, draft.body.declinedCount, draft.body.declinedNote],
      ['draft', null, 0, null]
    )
  })

  it('recomputes after a working-time change; approved days stay frozen and count as recomputable', async () => {
    const d = await suite.company({ country: 'DE' })
    const typesD = await f.typesOf(d)
    await changeWorkingTime(suite, d, mondayHour)
    const userId = await f.newUser(d, { employedFrom: '2026-09-01' })
    await f.entry(d, typesD, userId, '2026-09-07T08:00:00+02:00', '2026-09-07T09:00:00+02:00')
    const week = await f.week(d, userId, '2026-09-07')
    await d.api.patch(`/v1/time-sheet-weeks/${week.id}`, { status: 'submitted' })
    await d.api.patch(`/v1/time-sheet-weeks/${week.id}`, { status: 'approved' })
    const monthBefore = await f.month(d, userId, '2026-09-01')
    assert.deepEqual([monthBefore.sumTarget, monthBefore.recomputableCount], [240, 0])
    await changeWorkingTime(suite, d, (model) => {
      model.targetMinutes.monday = 120
      model.targetMinutes.tuesday = 30
    })
    const frozenWeek = (await d.api.get(`/v1/time-sheet-weeks/${week.id}`)).body
    assert.deepEqual([frozenWeek.sumTarget, frozenWeek.recomputableCount], [60, 2])
    const monday = await f.day(d, userId, '2026-09-07')
    assert.deepEqual([monday.expectedDuration, monday.status], [60, 'approved'])
    const month = await f.month(d, userId, '2026-09-01')
    // Frozen Monday 7th and Tuesday 8th (60 + 0), the other Mondays and Tuesdays at the new targets (3 × 120 + 4 × 30).
    assert.deepEqual([month.sumTarget, month.recomputableCount], [60 + 360 + 120, 2])
    await d.api.patch(`/v1/time-sheet-weeks/${week.id}`, { status: 'draft' })
    const reopened = (await d.api.get(`/v1/time-sheet-weeks/${week.id}`)).body
    assert.deepEqual([reopened.sumTarget, reopened.recomputableCount], [150, 0])
    assert.equal((await f.month(d, userId, '2026-09-01')).sumTarget, 4 * 120 + 5 * 30)
  })

  it('shows the difference up to today: all days of a past month, none of a future one', async () => {
    const zone = 'Europe/Berlin'
    const current = monthOf(today(zone))
    const userId = await f.newUser(a, { employedFrom: addMonths(current, -1) })
    const month = await f.month(a, userId, current)
    let expected = 0
    for (
      let day = DateTime.fromISO(current, { zone: 'UTC' });
      day.toISODate()! <= today(zone);
      day = day.plus({ days: 1 })
    ) {
      if (day.weekday <= 5) expected -= 480
    }
    assert.equal(month.currentDifference, expected)
    const past = await f.month(a, userId, addMonths(current, -1))
    assert.equal(past.currentDifference, past.sumActual - past.sumTarget)
    assert.equal((await f.month(a, userId, addMonths(current, 1))).currentDifference, 0)
  })

  it('offers no POST, DELETE or PUT (405)', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-05-01' })
    const month = await f.month(a, userId, '2026-05-01')
    assert.equal((await a.api.post('/v1/time-sheet-months', { userId, month: '2026-06-01' })).status, 405)
    assert.equal((await a.api.delete(`/v1/time-sheet-months/${month.id}`)).status, 405)
    assert.equal((await a.api.put(`/v1/time-sheet-months/${month.id}`, {})).status, 405)
    assert.equal((await a.api.get('/v1/time-sheet-months', { userId, month: '2026-05-01' })).body.items[0].id, month.id)
  })

  it("is isolated: company B can neither see, change nor look up company A's months", async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-05-01' })
    const month = await f.month(a, userId, '2026-05-01')
    assert.equal((await b.api.get(`/v1/time-sheet-months/${month.id}`)).status, 404)
    assert.equal((await patch(b, month.id, { carryInManual: 100 })).status, 404)
    assert.equal((await b.api.get('/v1/time-sheet-months', { userId })).body.total, 0)
    assert.equal((await b.api.get('/v1/time-sheet-months/by-user', { userId, month: '2026-05-01' })).status, 404)
    assert.equal((await a.api.get(`/v1/time-sheet-months/${month.id}`)).body.carryIn, 0)
  })
})
