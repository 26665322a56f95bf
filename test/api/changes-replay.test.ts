import assert from 'node:assert/strict'
import fc from 'fast-check'
import { forEachDatabase, TestCompany } from '../support/harness'
import type { HttpClient } from '../support/http'
import { headOf, readAll } from '../support/changes'

const RUNS = Number(process.env.FC_RUNS ?? 15)

/** Every record of a list, page by page. */
async function listAll(api: HttpClient, collection: string) {
  const items: any[] = []
  for (let page = 0; ; page++) {
    const res = await api.get(`/v1/${collection}`, { page, size: 20 })
    assert.equal(res.status, 200, res.text)
    items.push(...res.body.items)
    if (page + 1 >= res.body.pages) return items
  }
}

/** The state the feed's events describe: each record's last event, without the removed ones. */
function fold(events: any[], collection: string) {
  const records = new Map<number, any>()
  for (const event of events) {
    const [type, action] = event.type.split('.')
    if (type !== collection) continue
    if (action === 'removed') records.delete(event.data.id)
    else records.set(event.data.id, event.data)
  }
  return [...records.values()].sort((x, y) => x.id - y.id)
}

type Operation =
  | { kind: 'create'; name: string }
  | { kind: 'patch'; pick: number; number: string | null }
  | { kind: 'remove'; pick: number }

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), name: fc.string({ minLength: 1, maxLength: 12 }) }),
  fc.record({
    kind: fc.constant('patch' as const),
    pick: fc.nat(),
    number: fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: null })
  }),
  fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() })
)

forEachDatabase('change feed: replay', (suite) => {
  let company: TestCompany

  before(async () => {
    company = await suite.company()
  })

  it('folding the feed from the start reproduces the collection (random creates, patches, removes)', async () => {
    const property = fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 12 }), async (operations) => {
      const live: number[] = (await listAll(company.api, 'customers')).map((customer) => customer.id)
      for (const op of operations) {
        if (op.kind === 'create' || live.length === 0) {
          const res = await company.api.post('/v1/customers', {
            companyName: op.kind === 'create' ? op.name.trim() || 'x' : 'x'
          })
          assert.equal(res.status, 201, res.text)
          live.push(res.body.id)
        } else if (op.kind === 'patch') {
          const res = await company.api.patch(`/v1/customers/${live[op.pick % live.length]}`, { number: op.number })
          assert.equal(res.status, 200, res.text)
        } else {
          const [id] = live.splice(op.pick % live.length, 1)
          assert.equal((await company.api.delete(`/v1/customers/${id}`)).status, 204)
        }
      }
      const { items } = await readAll(company.api, '0')
      assert.deepEqual(fold(items, 'customers'), await listAll(company.api, 'customers'))
    })
    await fc.assert(property, { numRuns: RUNS, ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}) })
  })

  it('folding from a cursor taken before a full listing reproduces it too (first sync, then incremental)', async () => {
    const cursor = await headOf(company.api)
    const snapshot = new Map((await listAll(company.api, 'customers')).map((record) => [record.id, record]))
    const created = await company.api.post('/v1/customers', { companyName: 'Later GmbH' })
    const [first] = snapshot.keys()
    if (first !== undefined) await company.api.delete(`/v1/customers/${first}`)
    await company.api.patch(`/v1/customers/${created.body.id}`, { number: 'L-9' })
    for (const event of (await readAll(company.api, cursor)).items) {
      if (event.type === 'customers.removed') snapshot.delete(event.data.id)
      else if (event.type.startsWith('customers.')) snapshot.set(event.data.id, event.data)
    }
    assert.deepEqual(
      [...snapshot.values()].sort((x, y) => x.id - y.id),
      await listAll(company.api, 'customers')
    )
  })
})
