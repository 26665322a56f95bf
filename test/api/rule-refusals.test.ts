import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../support/harness'
import { FaultInjector } from '../support/fault-injection'
import { sheetFixtures, SheetTypes } from '../support/timesheets/fixtures'

/**
 * What a declaration's `beforeWrite` throws when the body also has invalid fields (issue #19):
 * the 400 of the invalid fields decides (CONTRACT §2), a rule's refusal adds the fields it names
 * to that 400 instead of vanishing, and a rule that fails is never answered with a 400 at all.
 */
forEachDatabase('rule refusals and field errors', (suite) => {
  const f = sheetFixtures(suite)
  let a: TestCompany
  let types: SheetTypes
  let userId: number

  before(async () => {
    a = await suite.company()
    types = await f.typesOf(a)
    userId = await f.newUser(a)
  })

  const count = async (path: string) => (await a.api.get(path)).body.total as number

  it('a 409 that names a field joins the 400 of a reference error: the client hears of both, nothing is stored', async () => {
    // Approved without being requested: the absence rules refuse it with a 409 naming approvedAt.
    const body = {
      typeId: types.vacation,
      userId,
      startsAt: '2026-04-13T00:00:00Z',
      endsAt: '2026-04-14T00:00:00Z',
      approvedAt: '2026-04-01T08:00:00Z'
    }
    const refused = await a.api.post('/v1/user-absences', body)
    assert.equal(refused.status, 409, refused.text)
    assert.deepEqual(refused.body.data.validationErrors, { approvedAt: 'needs requestedAt' })

    const before = await count('/v1/user-absences')
    const res = await a.api.post('/v1/user-absences', { ...body, needApprovalById: 2147483000 })
    assert.equal(res.status, 400, res.text)
    assert.deepEqual(res.body.data.validationErrors, {
      needApprovalById: 'references no record of this company (id 2147483000)',
      approvedAt: 'needs requestedAt'
    })
    assert.equal(await count('/v1/user-absences'), before)
  })

  it('a refusal that names no field leaves the 400 as it is', async () => {
    // A running entry of the user: a second running one is refused with a 409 that names no field.
    const running = await a.api.post('/v1/time-entries', {
      typeId: types.work,
      userId,
      startsAt: '2026-04-20T07:00:00Z'
    })
    assert.equal(running.status, 201, running.text)
    const second = { typeId: types.work, userId, startsAt: '2026-04-21T07:00:00Z' }
    const refused = await a.api.post('/v1/time-entries', second)
    assert.equal(refused.status, 409, refused.text)
    assert.equal(refused.body.data.validationErrors, undefined)

    const res = await a.api.post('/v1/time-entries', { ...second, eventTypeId: 2147483000 })
    assert.equal(res.status, 400, res.text)
    assert.deepEqual(res.body.data.validationErrors, {
      eventTypeId: 'references no record of this company (id 2147483000)'
    })
  })

  it('a rule that fails (here its database statement) is a 500 even when a reference error is also in the body', async () => {
    const body = { name: 'failing rule', customerId: 2147483000 }
    const injector = new FaultInjector(suite.server().knex)
    try {
      // The statements of the write as it goes: the reference check, then the rule's catalogue look-up.
      injector.arm(Infinity)
      const plain = await a.api.post('/v1/assignments', body)
      injector.disarm()
      assert.equal(plain.status, 400, plain.text)
      const rule = injector.statements.findIndex((statement) => /assignment_types/.test(statement.sql)) + 1
      assert.ok(rule > 1, `the rule's look-up follows the reference check: ${JSON.stringify(injector.statements)}`)

      const before = await count('/v1/assignments')
      injector.arm(rule)
      const res = await a.api.post('/v1/assignments', body)
      injector.disarm()
      assert.ok(injector.fired)
      assert.equal(res.status, 500, res.text)
      assert.equal(res.body.message, 'Internal error')
      assert.equal(await count('/v1/assignments'), before)
    } finally {
      injector.uninstall()
    }
  })
})
