import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../support/harness'

forEachDatabase('customers', (suite) => {
  let a: TestCompany
  let b: TestCompany

  before(async () => {
    a = await suite.company()
    b = await suite.company()
  })

  it('creates a customer with nested lists and a billing address (201, full shape)', async () => {
    const res = await a.api.post('/v1/customers', {
      companyName: 'Elektro Müller GmbH',
      number: 'K-1001',
      telephones: [{ label: 'Büro', isDefault: true, telephoneNumber: '+49 30 123456' }],
      emails: [{ label: 'Rechnung', isDefault: true, emailAddress: 'rechnung@mueller.test' }],
      urls: [{ label: 'Web', url: 'https://mueller.test' }],
      billingAddress: { street: 'Hauptstraße 1', zip: '10115', city: 'Berlin', country: 'DE' }
    })
    assert.equal(res.status, 201)
    assert.equal(res.body.companyName, 'Elektro Müller GmbH')
    assert.deepEqual(res.body.telephones, [{ label: 'Büro', isDefault: true, telephoneNumber: '+49 30 123456' }])
    assert.equal(res.body.billingAddress.city, 'Berlin')
    assert.equal(res.body.billingAddress.latitude, null)
    assert.match(res.body.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    assert.equal('companyId' in res.body, false)
    const got = await a.api.get(`/v1/customers/${res.body.id}`)
    assert.equal(got.status, 200)
    assert.deepEqual(got.body, res.body)
  })

  it('requires companyName or surname', async () => {
    const res = await a.api.post('/v1/customers', { firstName: 'Anna' })
    assert.equal(res.status, 400)
    assert.ok(res.body.data.validationErrors.companyName)
    const ok = await a.api.post('/v1/customers', { firstName: 'Anna', surname: 'Rossi' })
    assert.equal(ok.status, 201)
  })

  it('rejects a second default entry and a malformed email, naming the field path', async () => {
    const res = await a.api.post('/v1/customers', {
      companyName: 'X',
      emails: [
        { isDefault: true, emailAddress: 'a@x.test' },
        { isDefault: true, emailAddress: 'not-an-email' }
      ]
    })
    assert.equal(res.status, 400)
    assert.equal(res.body.data.validationErrors['emails.1.emailAddress'], 'must be an email address')
  })

  it('patches fields, clears with null and keeps the rest', async () => {
    const created = await a.api.post('/v1/customers', { companyName: 'Patch Me', number: 'P-1', title: 'Dr.' })
    const res = await a.api.patch(`/v1/customers/${created.body.id}`, { number: null, salutation: 'Frau' })
    assert.equal(res.status, 200)
    assert.equal(res.body.number, null)
    assert.equal(res.body.title, 'Dr.')
    assert.equal(res.body.salutation, 'Frau')
    assert.ok(res.body.updatedAt >= created.body.updatedAt)
  })

  it('deletes with 204 and no body; the record is gone', async () => {
    const created = await a.api.post('/v1/customers', { companyName: 'Delete Me' })
    const res = await a.api.delete(`/v1/customers/${created.body.id}`)
    assert.equal(res.status, 204)
    assert.equal(res.text, '')
    assert.equal((await a.api.get(`/v1/customers/${created.body.id}`)).status, 404)
  })

  it('filters by every listed field with operators and sorts', async () => {
    const tag = `F${Date.now()}`
    for (const [i, name] of ['Alpha', 'beta', 'Gamma'].entries()) {
      await a.api.post('/v1/customers', {
        companyName: `${tag} ${name}`,
        number: `${tag}-${i}`,
        externalId: `${tag}-ext-${i}`
      })
    }
    const like = await a.api.get('/v1/customers', { 'companyName[$like]': `%${tag} B%` })
    assert.equal(like.status, 200)
    assert.deepEqual(
      like.body.items.map((c: any) => c.companyName),
      [`${tag} beta`]
    )
    const sorted = await a.api.get('/v1/customers', { 'number[$in]': [`${tag}-0`, `${tag}-2`], '$sort[number]': -1 })
    assert.deepEqual(
      sorted.body.items.map((c: any) => c.number),
      [`${tag}-2`, `${tag}-0`]
    )
    const ext = await a.api.get('/v1/customers', { externalId: `${tag}-ext-1` })
    assert.equal(ext.body.total, 1)
    const nin = await a.api.get('/v1/customers', { 'number[$like]': `${tag}-%`, 'number[$nin]': `${tag}-1` })
    assert.equal(nin.body.total, 2)
  })

  it('is isolated: company B can neither see nor change company A customers', async () => {
    const created = await a.api.post('/v1/customers', { companyName: 'Only A' })
    const id = created.body.id
    assert.equal((await b.api.get(`/v1/customers/${id}`)).status, 404)
    assert.equal((await b.api.patch(`/v1/customers/${id}`, { companyName: 'Hacked' })).status, 404)
    assert.equal((await b.api.delete(`/v1/customers/${id}`)).status, 404)
    const listB = await b.api.get('/v1/customers', { id })
    assert.equal(listB.body.total, 0)
    assert.equal((await a.api.get(`/v1/customers/${id}`)).body.companyName, 'Only A')
  })
})
