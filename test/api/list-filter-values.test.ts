import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../support/harness'

/**
 * Filter values as CONTRACT §3.1 writes them (issue #17): `null` matches records without a value
 * on every filter, enum-typed ones included; an empty value is a 400 naming the parameter, never
 * a null in disguise.
 */
forEachDatabase('list filter values', (suite) => {
  let a: TestCompany
  let userId: number

  before(async () => {
    a = await suite.company({ country: 'DE' })
    const user = await a.api.post('/v1/users', {
      fullName: 'Filter Probe',
      email: `filters-${process.pid}-${Date.now()}@crew.test`
    })
    assert.equal(user.status, 201, user.text)
    userId = user.body.id
    // The day, its week and its month.
    assert.equal((await a.api.get('/v1/time-sheet-days/by-user', { userId, day: '2026-11-02' })).status, 200)
    const typeId = (await a.api.get('/v1/user-absence-types', { size: 1 })).body.items[0].id
    const absence = await a.api.post('/v1/user-absences', {
      typeId,
      userId,
      startsAt: '2026-11-09T00:00:00+01:00',
      endsAt: '2026-11-10T00:00:00+01:00'
    })
    assert.equal(absence.status, 201, absence.text)
  })

  for (const collection of ['time-sheet-days', 'time-sheet-weeks', 'time-sheet-months', 'user-absences']) {
    it(`${collection}: status=null matches the records without a status (none: it is never null)`, async () => {
      const all = await a.api.get(`/v1/${collection}`, { userId })
      assert.equal(all.status, 200, all.text)
      assert.ok(all.body.total >= 1)
      const none = await a.api.get(`/v1/${collection}`, { userId, status: 'null' })
      assert.equal(none.status, 200, none.text)
      assert.equal(none.body.total, 0)
      const some = await a.api.get(`/v1/${collection}`, { userId, 'status[$ne]': 'null' })
      assert.equal(some.status, 200, some.text)
      assert.equal(some.body.total, all.body.total)
      // Still only the statuses (or null) of the enum.
      const bad = await a.api.get(`/v1/${collection}`, { userId, status: 'nothing' })
      assert.equal(bad.status, 400)
      assert.ok(bad.body.data.validationErrors.status, bad.text)
    })
  }

  it('answers an empty filter value with 400 naming the parameter', async () => {
    const cases: [string, Record<string, string | string[]>, string][] = [
      ['assignments', { customerId: '' }, 'customerId'],
      ['assignments', { 'customerId[$ne]': '' }, 'customerId[$ne]'],
      ['assignments', { 'id[$in]': ['1', ''] }, 'id[$in][1]'],
      ['user-absences', { 'startsAt[$gte]': '' }, 'startsAt[$gte]'],
      ['customers', { 'companyName[$like]': '' }, 'companyName[$like]'],
      ['customers', { companyName: '' }, 'companyName'],
      ['customers', { page: '' }, 'page'],
      ['customers', { size: '' }, 'size'],
      ['time-sheet-days', { status: '' }, 'status']
    ]
    for (const [collection, query, parameter] of cases) {
      const res = await a.api.get(`/v1/${collection}`, query)
      assert.equal(res.status, 400, `${collection} ${JSON.stringify(query)}: ${res.text}`)
      assert.deepEqual(Object.keys(res.body.data.validationErrors), [parameter], res.text)
      assert.match(res.body.data.validationErrors[parameter], /must not be empty/)
    }
  })

  it('answers an empty by-user parameter with 400 naming it', async () => {
    for (const [path, query] of [
      ['/v1/time-sheet-days/by-user', { userId: '', day: '2026-11-02' }],
      ['/v1/time-sheet-weeks/by-user', { userId, weekStart: '' }],
      ['/v1/time-sheet-months/by-user', { userId: '', month: '2026-11-01' }]
    ] as const) {
      const res = await a.api.get(path, query)
      assert.equal(res.status, 400, `${path} ${res.text}`)
      const [param] = Object.entries(query).find(([, value]) => value === '')!
      assert.equal(res.body.data.validationErrors[param], 'must not be empty', res.text)
    }
  })

  it('refuses numbers written other than in plain decimal, once per parameter, and hints at null only where null means something', async () => {
    for (const value of ['0x10', '1e3', '+1', ' 5', '1,5', 'Infinity']) {
      const res = await a.api.get('/v1/assignments', { customerId: value })
      assert.equal(res.status, 400, `customerId=${value}: ${res.text}`)
      assert.deepEqual(res.body.data.validationErrors, { customerId: 'must be a decimal number' })
    }
    for (const [query, param] of [
      [{ page: ' ' }, 'page'],
      [{ size: '0x5' }, 'size'],
      [{ 'id[$gte]': '1e2' }, 'id[$gte]']
    ] as const) {
      const res = await a.api.get('/v1/assignments', query)
      assert.equal(res.status, 400, res.text)
      assert.deepEqual(Object.keys(res.body.data.validationErrors), [param])
    }
    const byUser = await a.api.get('/v1/time-sheet-days/by-user', { userId: '0x1', day: '2026-11-02' })
    assert.equal(byUser.status, 400)
    assert.deepEqual(byUser.body.data.validationErrors, { userId: 'must be a decimal integer' })
    // One entry for one mistake, and the null hint only where null is a value of the field.
    const emptyIn = await a.api.get('/v1/assignments', { 'customerId[$in]': '' })
    assert.equal(emptyIn.status, 400)
    assert.equal(Object.keys(emptyIn.body.data.validationErrors).length, 1, emptyIn.text)
    const size = await a.api.get('/v1/assignments', { size: '' })
    assert.deepEqual(size.body.data.validationErrors, { size: 'must not be empty' })
    const nullable = await a.api.get('/v1/assignments', { projectId: '' })
    assert.match(nullable.body.data.validationErrors.projectId, /send `null`/)
    assert.equal((await a.api.get('/v1/assignments', { customerId: '1', 'id[$gte]': '2', size: '20' })).status, 200)
  })

  it('still reads customerId=null as "without a customer"', async () => {
    const res = await a.api.get('/v1/assignments', { customerId: 'null' })
    assert.equal(res.status, 200, res.text)
  })

  it('$ne and $nin match the records without a value too (null differs from every value); $ne=null is "has a value"', async () => {
    const tag = `EXCL-${process.pid}-${Date.now()}`
    const ids: Record<string, number> = {}
    for (const [name, number] of [
      ['first', `${tag}-1`],
      ['second', `${tag}-2`],
      ['without', null]
    ] as const) {
      const created = await a.api.post('/v1/customers', { companyName: `${tag} ${name}`, number })
      assert.equal(created.status, 201, created.text)
      ids[name] = created.body.id
    }
    const found = async (query: Record<string, string | string[]>) => {
      const res = await a.api.get('/v1/customers', { 'companyName[$like]': `${tag}%`, ...query })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.total, res.body.items.length)
      return res.body.items.map((item: { id: number }) => item.id)
    }
    assert.deepEqual(await found({ 'number[$ne]': `${tag}-1` }), [ids.second, ids.without])
    assert.deepEqual(await found({ 'number[$nin]': [`${tag}-1`, `${tag}-2`] }), [ids.without])
    assert.deepEqual(await found({ 'number[$nin]': 'nothing' }), [ids.first, ids.second, ids.without])
    assert.deepEqual(await found({ 'number[$ne]': 'null' }), [ids.first, ids.second])
    assert.deepEqual(await found({ number: 'null' }), [ids.without])
    // With other operators of the same field, each still applies.
    assert.deepEqual(await found({ 'number[$ne]': `${tag}-1`, 'number[$nin]': `${tag}-2` }), [ids.without])
    assert.deepEqual(await found({ 'number[$ne]': `${tag}-1`, 'number[$in]': [`${tag}-1`, `${tag}-2`] }), [ids.second])
    assert.deepEqual(await found({ 'number[$ne]': `${tag}-1`, 'number[$like]': `${tag}%` }), [ids.second])
    // On another field, where every record has a value.
    assert.deepEqual(await found({ 'companyName[$ne]': `${tag} first` }), [ids.second, ids.without])
  })
})
