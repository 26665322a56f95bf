import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../support/harness'
import { newUser } from '../support/users'

// PATCH merges the top-level fields of a record; the value of a field, an object or a list, is replaced whole
// (docs/decisions.md, "PATCH of objects and lists").
forEachDatabase('PATCH of nested objects and lists', (suite) => {
  let company: TestCompany
  before(async () => {
    company = await suite.company()
  })

  it('PATCH billingAddress: {city} replaces the whole address: the other fields become null', async () => {
    const created = await company.api.post('/v1/customers', {
      companyName: 'Elektro Müller GmbH',
      number: 'K-7',
      billingAddress: { street: 'Hauptstraße 1', zip: '10115', city: 'Berlin', country: 'DE' }
    })
    assert.equal(created.status, 201, created.text)
    const url = `/v1/customers/${created.body.id}`
    const patched = await company.api.patch(url, { billingAddress: { city: 'Potsdam' } })
    assert.equal(patched.status, 200, patched.text)
    const expected = {
      supplement: null,
      street: null,
      clarification: null,
      zip: null,
      city: 'Potsdam',
      state: null,
      country: null,
      externalId: null,
      latitude: null,
      longitude: null
    }
    assert.deepEqual(patched.body.billingAddress, expected)
    const read = (await company.api.get(url)).body
    assert.deepEqual(read.billingAddress, expected)
    // The other top-level fields are untouched: only the fields sent are written.
    assert.deepEqual([read.companyName, read.number], ['Elektro Müller GmbH', 'K-7'])
    // null clears the object.
    assert.equal((await company.api.patch(url, { billingAddress: null })).body.billingAddress, null)
  })

  it('PATCH of a list (emails) replaces the list; [] empties it, null clears it', async () => {
    const created = await company.api.post('/v1/customers', {
      companyName: 'Dach & Co',
      emails: [
        { label: 'Büro', emailAddress: 'buero@dach.test', isDefault: true },
        { label: 'Rechnung', emailAddress: 'rechnung@dach.test' }
      ],
      telephones: [{ telephoneNumber: '+49 30 1234' }]
    })
    assert.equal(created.status, 201, created.text)
    const url = `/v1/customers/${created.body.id}`
    const patched = await company.api.patch(url, { emails: [{ emailAddress: 'neu@dach.test' }] })
    assert.equal(patched.status, 200, patched.text)
    assert.deepEqual(patched.body.emails, [{ emailAddress: 'neu@dach.test' }])
    assert.deepEqual((await company.api.get(url)).body.emails, [{ emailAddress: 'neu@dach.test' }])
    assert.deepEqual((await company.api.get(url)).body.telephones, [{ telephoneNumber: '+49 30 1234' }])
    assert.deepEqual((await company.api.patch(url, { emails: [] })).body.emails, [])
    assert.equal((await company.api.patch(url, { emails: null })).body.emails, null)
  })

  it("PATCH of an assignment event's assignedUsers replaces the list", async () => {
    const [u1, u2, u3] = [await newUser(company), await newUser(company), await newUser(company)]
    const customer = await company.api.post('/v1/customers', { companyName: 'Kunde' })
    const assignment = await company.api.post('/v1/assignments', { name: 'Auftrag', customerId: customer.body.id })
    assert.equal(assignment.status, 201, assignment.text)
    const [work] = (await company.api.get('/v1/assignment-event-types')).body.items
    const event = await company.api.post('/v1/assignment-events', {
      assignmentId: assignment.body.id,
      typeId: work.id,
      assignedUsers: [u1, u2]
    })
    assert.equal(event.status, 201, event.text)
    const url = `/v1/assignment-events/${event.body.id}`
    assert.deepEqual((await company.api.patch(url, { assignedUsers: [u3] })).body.assignedUsers, [u3])
    assert.deepEqual((await company.api.get(url)).body.assignedUsers, [u3])
    assert.deepEqual((await company.api.patch(url, { assignedUsers: null })).body.assignedUsers, [])
  })
})
