import assert from 'node:assert/strict'
import { decodeRow } from '../../src/resources/codec'
import { assignmentResource } from '../../src/services/assignments/assignments.schema'

/** decodeRow keeps stored timestamps that are already canonical as they are (src/resources/codec.ts). */
describe('codec: a stored row as the response shows it', () => {
  const row = (fields: Record<string, unknown>) => ({
    id: 1,
    companyId: 1,
    number: '1',
    name: 'Reparatur',
    address: '{"street":"Hauptstraße 1","city":"Berlin"}',
    customerId: 2,
    createdAt: '2024-11-01T06:00:00.000Z',
    updatedAt: new Date('2024-11-02T07:30:00.000Z'),
    ...fields
  })

  it('timestamps come out as ISO 8601 UTC, from text or a Date', () => {
    const decoded = decodeRow(assignmentResource, row({}))
    assert.equal(decoded.createdAt, '2024-11-01T06:00:00.000Z')
    assert.equal(decoded.updatedAt, '2024-11-02T07:30:00.000Z')
  })

  it('text in another form, or a day a month may not have, is read as Date reads it', () => {
    const decode = (createdAt: string) => decodeRow(assignmentResource, row({ createdAt })).createdAt
    assert.equal(decode('2024-11-01 06:00:00Z'), '2024-11-01T06:00:00.000Z')
    assert.equal(decode('2024-11-01T08:00:00.000+02:00'), '2024-11-01T06:00:00.000Z')
    assert.equal(decode('2024-02-30T00:00:00.000Z'), '2024-03-01T00:00:00.000Z')
    assert.equal(decode('2024-01-31T23:59:59.999Z'), '2024-01-31T23:59:59.999Z')
    assert.throws(() => decode('2024-13-01T00:00:00.000Z'), RangeError)
  })

  it('documents get every property of their schema, null when absent; absent columns are null', () => {
    const decoded = decodeRow(assignmentResource, row({}))
    assert.deepEqual(decoded.address, {
      supplement: null,
      street: 'Hauptstraße 1',
      clarification: null,
      zip: null,
      city: 'Berlin',
      state: null,
      country: null,
      externalId: null,
      latitude: null,
      longitude: null
    })
    assert.equal(decoded.comment, null)
    assert.equal(decoded.customerId, 2)
  })
})
