import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../support/harness'
import { changeWorkingTime } from '../support/timesheets/fixtures'
import { newUser } from '../support/users'

const ABSENCE_FIELDS = [
  'approvedAt',
  'compensatedById',
  'compensationApprovedAt',
  'compensationDeclinedAt',
  'createdAt',
  'declinedAt',
  'declinedById',
  'declinedNote',
  'endsAt',
  'externalId',
  'id',
  'needApprovalById',
  'noteForApproval',
  'requestedAt',
  'startsAt',
  'status',
  'typeId',
  'updatedAt',
  'userId',
  'workDays'
]

interface AbsenceTypes {
  vacation: number
  sick: number
  training: number
  overtime: number
  hourly: number
}

forEachDatabase('user-absences', (suite) => {
  let a: TestCompany
  let b: TestCompany
  let types: AbsenceTypes

  /** The seeded types in catalogue order, plus an hourly type (no seeded type is hourly). */
  const typesOf = async (company: TestCompany): Promise<AbsenceTypes> => {
    const knex = suite.server().knex
    const [vacation, sick, training, overtime] = (
      await knex('userAbsenceTypes').where({ companyId: company.id }).orderBy('order')
    ).map((t: any) => t.id)
    const now = new Date().toISOString()
    const [hourly] = await knex('userAbsenceTypes').insert(
      {
        companyId: company.id,
        name: 'Arzttermin',
        order: 10,
        needApproval: false,
        needCompensation: false,
        countAsWorkingTime: false,
        isAbsenceHourly: true,
        createdAt: now,
        updatedAt: now
      },
      ['id']
    )
    return { vacation, sick, training, overtime, hourly: hourly.id }
  }

  const setWorkingTime = (company: TestCompany, change: (model: any) => void) =>
    changeWorkingTime(suite, company, change)

  const absence = (company: TestCompany, body: Record<string, unknown>) =>
    company.api.post('/v1/user-absences', { typeId: types.vacation, ...body })

  before(async () => {
    a = await suite.company({ country: 'DE' })
    b = await suite.company({ country: 'DE' })
    types = await typesOf(a)
  })

  it('creates a draft absence with its work days (201, full shape)', async () => {
    // Employed before the absence: the account would otherwise start today, and days before it are no work days.
    const userId = await newUser(a, { employedFrom: '2026-01-01' })
    // Thursday to Tuesday (exclusive): Thu, Fri, Mon are work days; the weekend is not.
    const res = await absence(a, {
      userId,
      startsAt: '2026-11-26T00:00:00+01:00',
      endsAt: '2026-12-01T00:00:00+01:00',
      noteForApproval: 'Familienbesuch',
      externalId: 'UA-1'
    })
    assert.equal(res.status, 201, res.text)
    assert.deepEqual(Object.keys(res.body).sort(), ABSENCE_FIELDS)
    assert.equal(res.body.status, 'draft')
    assert.equal(res.body.workDays, 3)
    assert.equal(res.body.startsAt, '2026-11-25T23:00:00.000Z')
    assert.equal(res.body.requestedAt, null)
    assert.equal(res.body.needApprovalById, null)
    const got = await a.api.get(`/v1/user-absences/${res.body.id}`)
    assert.equal(got.status, 200)
    assert.deepEqual(got.body, res.body)
  })

  it('moves draft → idle → approved, recording the acting user as the approver', async () => {
    const userId = await newUser(a)
    const { body } = await absence(a, {
      userId,
      startsAt: '2026-12-07T00:00:00+01:00',
      endsAt: '2026-12-08T00:00:00+01:00'
    })
    const requested = await a.api.patch(`/v1/user-absences/${body.id}`, { requestedAt: '2026-11-20T10:00:00Z' })
    assert.equal(requested.status, 200)
    assert.equal(requested.body.status, 'idle')
    assert.equal(requested.body.approvedAt, null)
    const approved = await a.api.patch(`/v1/user-absences/${body.id}`, { approvedAt: '2026-11-21T10:00:00Z' })
    assert.equal(approved.status, 200)
    assert.equal(approved.body.status, 'approved')
    assert.equal(approved.body.needApprovalById, a.adminUserId)
    const both = await a.api.patch(`/v1/user-absences/${body.id}`, { declinedAt: '2026-11-22T10:00:00Z' })
    assert.equal(both.status, 400)
    assert.ok(both.body.data.validationErrors.declinedAt)
    // Moving from approved to declined clears the approval (and its approver) in the same PATCH.
    const declined = await a.api.patch(`/v1/user-absences/${body.id}`, {
      approvedAt: null,
      declinedAt: '2026-11-22T10:00:00Z',
      declinedNote: 'Engpass'
    })
    assert.equal(declined.status, 200)
    assert.equal(declined.body.status, 'declined')
    assert.equal(declined.body.declinedById, a.adminUserId)
    assert.equal(declined.body.needApprovalById, null)
    assert.equal(declined.body.declinedNote, 'Engpass')
    const listed = await a.api.get('/v1/user-absences', { userId, status: 'declined' })
    assert.deepEqual(
      listed.body.items.map((x: any) => x.id),
      [body.id]
    )
  })

  it('keeps an explicit approver and refuses one of another company', async () => {
    const userId = await newUser(a)
    const approver = await newUser(a)
    const res = await absence(a, {
      userId,
      startsAt: '2026-12-09T00:00:00+01:00',
      endsAt: '2026-12-10T00:00:00+01:00',
      requestedAt: '2026-11-20T10:00:00Z',
      approvedAt: '2026-11-20T11:00:00Z',
      needApprovalById: approver
    })
    assert.equal(res.status, 201, res.text)
    assert.equal(res.body.needApprovalById, approver)
    const foreign = await a.api.patch(`/v1/user-absences/${res.body.id}`, { needApprovalById: await newUser(b) })
    assert.equal(foreign.status, 400)
    assert.ok(foreign.body.data.validationErrors.needApprovalById)
  })

  it('refuses approving or declining an absence that was never requested (409)', async () => {
    const userId = await newUser(a)
    const onCreate = await absence(a, {
      userId,
      startsAt: '2026-12-11T00:00:00+01:00',
      endsAt: '2026-12-12T00:00:00+01:00',
      approvedAt: '2026-11-20T10:00:00Z'
    })
    assert.equal(onCreate.status, 409)
    const { body } = await absence(a, {
      userId,
      startsAt: '2026-12-11T00:00:00+01:00',
      endsAt: '2026-12-12T00:00:00+01:00'
    })
    assert.equal(
      (await a.api.patch(`/v1/user-absences/${body.id}`, { declinedAt: '2026-11-20T10:00:00Z' })).status,
      409
    )
    assert.equal((await a.api.get(`/v1/user-absences/${body.id}`)).body.status, 'draft')
  })

  it('approves a type without needApproval as soon as it is requested', async () => {
    const userId = await newUser(a, { employedFrom: '2026-01-01' })
    const res = await absence(a, {
      userId,
      typeId: types.sick,
      startsAt: '2026-12-14T00:00:00+01:00',
      endsAt: '2026-12-16T00:00:00+01:00',
      requestedAt: '2026-12-14T07:00:00+01:00'
    })
    assert.equal(res.status, 201)
    assert.equal(res.body.status, 'approved')
    assert.equal(res.body.approvedAt, res.body.requestedAt)
    assert.equal(res.body.needApprovalById, a.adminUserId)
    assert.equal(res.body.workDays, 2)
    const draft = await absence(a, {
      userId,
      typeId: types.sick,
      startsAt: '2026-12-17T00:00:00+01:00',
      endsAt: '2026-12-18T00:00:00+01:00'
    })
    assert.equal(draft.body.status, 'draft')
    const requested = await a.api.patch(`/v1/user-absences/${draft.body.id}`, { requestedAt: '2026-12-17T06:00:00Z' })
    assert.equal(requested.body.status, 'approved')
    assert.equal(requested.body.approvedAt, '2026-12-17T06:00:00.000Z')
  })

  it('records compensation decisions only for needCompensation types', async () => {
    const userId = await newUser(a)
    const res = await absence(a, {
      userId,
      typeId: types.overtime,
      startsAt: '2026-12-21T08:00:00+01:00',
      endsAt: '2026-12-21T12:00:00+01:00',
      requestedAt: '2026-12-01T08:00:00Z'
    })
    assert.equal(res.status, 201)
    const compensated = await a.api.patch(`/v1/user-absences/${res.body.id}`, {
      approvedAt: '2026-12-02T08:00:00Z',
      compensationApprovedAt: '2026-12-02T08:00:00Z'
    })
    assert.equal(compensated.status, 200)
    assert.equal(compensated.body.compensatedById, a.adminUserId)
    const clash = await a.api.patch(`/v1/user-absences/${res.body.id}`, {
      compensationDeclinedAt: '2026-12-03T08:00:00Z'
    })
    assert.equal(clash.status, 400)
    assert.ok(clash.body.data.validationErrors.compensationDeclinedAt)
    const vacation = await absence(a, {
      userId,
      startsAt: '2026-12-22T00:00:00+01:00',
      endsAt: '2026-12-23T00:00:00+01:00',
      requestedAt: '2026-12-01T08:00:00Z',
      compensationApprovedAt: '2026-12-02T08:00:00Z'
    })
    assert.equal(vacation.status, 400)
    assert.ok(vacation.body.data.validationErrors.compensationApprovedAt)
  })

  it('requires endsAt after startsAt and refuses create-only, read-only and unknown fields', async () => {
    const userId = await newUser(a)
    const equal = await absence(a, { userId, startsAt: '2026-12-28T08:00:00Z', endsAt: '2026-12-28T08:00:00Z' })
    assert.equal(equal.status, 400)
    assert.equal(equal.body.data.validationErrors.endsAt, 'must be after startsAt')
    const missing = await a.api.post('/v1/user-absences', { userId })
    assert.equal(missing.status, 400)
    for (const field of ['typeId', 'startsAt', 'endsAt'])
      assert.equal(missing.body.data.validationErrors[field], 'is required')
    const created = await absence(a, { userId, startsAt: '2026-12-28T08:00:00Z', endsAt: '2026-12-28T12:00:00Z' })
    const patch = await a.api.patch(`/v1/user-absences/${created.body.id}`, {
      typeId: types.sick,
      userId,
      status: 'approved',
      workDays: 1,
      colour: 'red'
    })
    assert.equal(patch.status, 400)
    const errors = patch.body.data.validationErrors
    assert.equal(errors.typeId, 'can only be set on create')
    assert.equal(errors.userId, 'can only be set on create')
    assert.equal(errors.status, 'is read-only')
    assert.equal(errors.workDays, 'is read-only')
    assert.match(errors.colour, /is not a field/)
    const backwards = await a.api.patch(`/v1/user-absences/${created.body.id}`, { startsAt: '2026-12-28T13:00:00Z' })
    assert.equal(backwards.status, 400)
    assert.ok(backwards.body.data.validationErrors.startsAt)
    assert.deepEqual((await a.api.get(`/v1/user-absences/${created.body.id}`)).body, created.body)
  })

  it('refuses overlapping absences of a user (409); declined ones and other users do not block', async () => {
    const userId = await newUser(a)
    const first = await absence(a, {
      userId,
      startsAt: '2027-01-04T00:00:00+01:00',
      endsAt: '2027-01-09T00:00:00+01:00'
    })
    assert.equal(first.status, 201)
    const overlapping = await absence(a, {
      userId,
      typeId: types.sick,
      startsAt: '2027-01-08T00:00:00+01:00',
      endsAt: '2027-01-12T00:00:00+01:00'
    })
    assert.equal(overlapping.status, 409)
    const touching = await absence(a, {
      userId,
      startsAt: '2027-01-09T00:00:00+01:00',
      endsAt: '2027-01-10T00:00:00+01:00'
    })
    assert.equal(touching.status, 201)
    assert.equal(
      (
        await absence(a, {
          userId: await newUser(a),
          startsAt: '2027-01-04T00:00:00+01:00',
          endsAt: '2027-01-09T00:00:00+01:00'
        })
      ).status,
      201
    )
    const moved = await a.api.patch(`/v1/user-absences/${touching.body.id}`, { startsAt: '2027-01-08T12:00:00+01:00' })
    assert.equal(moved.status, 409)
    await a.api.patch(`/v1/user-absences/${first.body.id}`, {
      requestedAt: '2026-12-01T08:00:00Z',
      declinedAt: '2026-12-02T08:00:00Z'
    })
    assert.equal(
      (await absence(a, { userId, startsAt: '2027-01-05T00:00:00+01:00', endsAt: '2027-01-06T00:00:00+01:00' })).status,
      201
    )
    // Taking the decline back would make it overlap again.
    assert.equal((await a.api.patch(`/v1/user-absences/${first.body.id}`, { declinedAt: null })).status, 409)
  })

  it('counts an hourly type as its hours ÷ the day target', async () => {
    const userId = await newUser(a, { employedFrom: '2026-01-01' })
    const res = await absence(a, {
      userId,
      typeId: types.hourly,
      startsAt: '2027-01-11T08:00:00+01:00',
      endsAt: '2027-01-11T10:00:00+01:00'
    })
    assert.equal(res.status, 201)
    assert.equal(res.body.workDays, 0.25)
    const longer = await a.api.patch(`/v1/user-absences/${res.body.id}`, { endsAt: '2027-01-11T14:00:00+01:00' })
    assert.equal(longer.body.workDays, 0.75)
  })

  it('counts absences across the weekend and follows the company working-time model', async () => {
    const company = await suite.company({ country: 'DE' })
    const typesC = await typesOf(company)
    const userId = await newUser(company, { employedFrom: '2026-01-01' })
    // Friday 14:00 to Monday 10:00: Friday and Monday.
    const weekend = await company.api.post('/v1/user-absences', {
      typeId: typesC.vacation,
      userId,
      startsAt: '2027-01-15T14:00:00+01:00',
      endsAt: '2027-01-18T10:00:00+01:00'
    })
    assert.equal(weekend.body.workDays, 2)
    await setWorkingTime(company, (model) => {
      model.targetMinutes.saturday = 240
    })
    assert.equal((await company.api.get(`/v1/user-absences/${weekend.body.id}`)).body.workDays, 3)
  })

  for (const [country, zone] of [
    ['DE', 'Europe/Berlin'],
    ['IT', 'Europe/Rome']
  ] as const) {
    it(`uses the local calendar day on the DST days of ${zone}`, async () => {
      const company = await suite.company({ country })
      const typesC = await typesOf(company)
      // Days before employedFrom have no target (CONTRACT §11.1): the account covers both DST days.
      const userId = await newUser(company, { employedFrom: '2026-01-01' })
      const post = (typeId: number, startsAt: string, endsAt: string) =>
        company.api.post('/v1/user-absences', { typeId, userId, startsAt, endsAt })
      // Exactly the 25-hour Sunday, midnight to midnight: Monday is not touched.
      const autumn = await post(typesC.vacation, '2026-10-25T00:00:00+02:00', '2026-10-26T00:00:00+01:00')
      assert.equal(autumn.status, 201)
      assert.equal(autumn.body.workDays, 0)
      // Sunday to Tuesday across the change: Monday only.
      const across = await post(typesC.sick, '2026-10-26T00:00:00+01:00', '2026-10-27T00:00:00+01:00')
      assert.equal(across.body.workDays, 1)
      await setWorkingTime(company, (model) => {
        model.targetMinutes.sunday = 240
      })
      assert.equal((await company.api.get(`/v1/user-absences/${autumn.body.id}`)).body.workDays, 1)
      // Exactly the 23-hour Sunday: one day, although it spans two UTC dates.
      const spring = await post(typesC.vacation, '2026-03-29T00:00:00+01:00', '2026-03-30T00:00:00+02:00')
      assert.equal(spring.body.workDays, 1)
      // 01:00–04:00 local on the short day is 2 hours (not 3) of a 4-hour target.
      const other = await newUser(company, { employedFrom: '2026-01-01' })
      const hourly = await company.api.post('/v1/user-absences', {
        typeId: typesC.hourly,
        userId: other,
        startsAt: '2026-03-29T01:00:00+01:00',
        endsAt: '2026-03-29T04:00:00+02:00'
      })
      assert.equal(hourly.body.workDays, 0.5)
      const short = await company.api.patch(`/v1/user-absences/${spring.body.id}`, {
        startsAt: '2026-03-29T01:00:00+01:00',
        endsAt: '2026-03-29T04:00:00+02:00'
      })
      assert.equal(short.body.workDays, 1)
    })
  }

  it('deletes with 204 and frees the period', async () => {
    const userId = await newUser(a)
    const { body } = await absence(a, {
      userId,
      startsAt: '2027-02-01T00:00:00+01:00',
      endsAt: '2027-02-02T00:00:00+01:00'
    })
    const res = await a.api.delete(`/v1/user-absences/${body.id}`)
    assert.equal(res.status, 204)
    assert.equal(res.text, '')
    assert.equal((await a.api.get(`/v1/user-absences/${body.id}`)).status, 404)
    assert.equal(
      (await absence(a, { userId, startsAt: '2027-02-01T00:00:00+01:00', endsAt: '2027-02-02T00:00:00+01:00' })).status,
      201
    )
  })

  it('filters by the listed fields and sorts', async () => {
    const userId = await newUser(a)
    await absence(a, {
      userId,
      startsAt: '2027-03-01T00:00:00+01:00',
      endsAt: '2027-03-02T00:00:00+01:00',
      externalId: 'AF-1'
    })
    await absence(a, {
      userId,
      typeId: types.sick,
      startsAt: '2027-03-03T00:00:00+01:00',
      endsAt: '2027-03-04T00:00:00+01:00',
      requestedAt: '2027-03-03T06:00:00Z'
    })
    await absence(a, {
      userId,
      startsAt: '2027-03-05T00:00:00+01:00',
      endsAt: '2027-03-06T00:00:00+01:00',
      requestedAt: '2027-02-01T06:00:00Z'
    })
    const sorted = await a.api.get('/v1/user-absences', { userId, '$sort[startsAt]': -1 })
    assert.deepEqual(
      sorted.body.items.map((x: any) => x.status),
      ['idle', 'approved', 'draft']
    )
    assert.equal((await a.api.get('/v1/user-absences', { userId, 'status[$in]': ['idle', 'draft'] })).body.total, 2)
    assert.equal((await a.api.get('/v1/user-absences', { userId, typeId: types.sick })).body.total, 1)
    assert.equal((await a.api.get('/v1/user-absences', { userId, needApprovalById: a.adminUserId })).body.total, 1)
    assert.equal((await a.api.get('/v1/user-absences', { userId, approvedAt: 'null' })).body.total, 2)
    assert.equal(
      (await a.api.get('/v1/user-absences', { userId, 'startsAt[$gte]': '2027-03-03T00:00:00+01:00' })).body.total,
      2
    )
    assert.equal((await a.api.get('/v1/user-absences', { userId, externalId: 'AF-1' })).body.total, 1)
    const bad = await a.api.get('/v1/user-absences', { status: 'open' })
    assert.equal(bad.status, 400)
    assert.ok(bad.body.data.validationErrors.status)
    assert.equal((await a.api.get('/v1/user-absences', { workDays: 1 })).status, 400)
  })

  it('is isolated: company B can neither see, change, delete nor reference company A absences, users or types', async () => {
    const userId = await newUser(a)
    const created = await absence(a, {
      userId,
      startsAt: '2027-04-05T00:00:00+02:00',
      endsAt: '2027-04-06T00:00:00+02:00'
    })
    const id = created.body.id
    assert.equal((await b.api.get(`/v1/user-absences/${id}`)).status, 404)
    assert.equal((await b.api.patch(`/v1/user-absences/${id}`, { externalId: 'x' })).status, 404)
    assert.equal((await b.api.delete(`/v1/user-absences/${id}`)).status, 404)
    assert.equal((await b.api.get('/v1/user-absences', { id })).body.total, 0)
    const typesB = await typesOf(b)
    const foreignUser = await b.api.post('/v1/user-absences', {
      typeId: typesB.vacation,
      userId,
      startsAt: '2027-04-05T00:00:00+02:00',
      endsAt: '2027-04-06T00:00:00+02:00'
    })
    assert.equal(foreignUser.status, 400)
    assert.ok(foreignUser.body.data.validationErrors.userId)
    const userB = await newUser(b)
    const foreignType = await b.api.post('/v1/user-absences', {
      typeId: types.vacation,
      userId: userB,
      startsAt: '2027-04-05T00:00:00+02:00',
      endsAt: '2027-04-06T00:00:00+02:00'
    })
    assert.equal(foreignType.status, 400)
    assert.ok(foreignType.body.data.validationErrors.typeId)
    assert.deepEqual((await a.api.get(`/v1/user-absences/${id}`)).body, created.body)
  })

  it('refuses deactivated types and users (400)', async () => {
    const knex = suite.server().knex
    const userId = await newUser(a)
    const now = new Date().toISOString()
    const [old] = await knex('userAbsenceTypes').insert(
      {
        companyId: a.id,
        name: 'Alt',
        order: 20,
        needApproval: false,
        needCompensation: false,
        countAsWorkingTime: false,
        isAbsenceHourly: false,
        deactivatedAt: now,
        createdAt: now,
        updatedAt: now
      },
      ['id']
    )
    const typeRes = await absence(a, {
      userId,
      typeId: old.id,
      startsAt: '2027-05-03T00:00:00+02:00',
      endsAt: '2027-05-04T00:00:00+02:00'
    })
    assert.equal(typeRes.status, 400)
    assert.match(typeRes.body.data.validationErrors.typeId, /deactivated/)
    const gone = await newUser(a)
    await a.api.patch(`/v1/users/${gone}`, { deactivatedAt: now })
    const userRes = await absence(a, {
      userId: gone,
      startsAt: '2027-05-03T00:00:00+02:00',
      endsAt: '2027-05-04T00:00:00+02:00'
    })
    assert.equal(userRes.status, 400)
    assert.match(userRes.body.data.validationErrors.userId, /deactivated/)
  })
})
