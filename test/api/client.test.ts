import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { getServiceOptions } from '@feathersjs/feathers'
import { io } from 'socket.io-client'
import { forEachDatabase, TestCompany } from '../support/harness'
import { until } from '../support/wait'
import { createRestClient, createSocketClient, SERVICE_METHODS, CrewclockClient } from '../../src/client'

/** Type-level checks: `npm test` type-checks this file, so a wrong client typing fails the build. */
export async function typeChecks(client: CrewclockClient) {
  const customer = await client.service('v1/customers').get(1)
  const name: string | null = customer.companyName
  const id: number = customer.id
  // @ts-expect-error users have no DELETE
  void client.service('v1/users').remove(1)
  // @ts-expect-error not a field of Customer
  await client.service('v1/customers').create({ nope: 1 })
  // @ts-expect-error roles are read-only
  void client.service('v1/roles').create({})
  const entries = await client.service('v1/time-entries').find({ query: { userId: 1, size: 5 } })
  const minutes: number | null | undefined = entries.items[0]?.duration
  return [name, id, minutes]
}

forEachDatabase('typed client', (suite) => {
  let a: TestCompany

  before(async () => {
    a = await suite.company()
  })

  it('lists every service the server registers, with the same methods', () => {
    const app = suite.server().app
    const served: Record<string, string[]> = {}
    for (const [p, service] of Object.entries(app.services)) {
      if (!p.startsWith('v1/') || p.endsWith('/spec') || p.includes(':')) continue
      served[p] = [...(getServiceOptions(service).methods ?? [])].sort()
    }
    const declared = Object.fromEntries(Object.entries(SERVICE_METHODS).map(([p, m]) => [p, [...m].sort()]))
    assert.deepEqual(declared, served)
  })

  it('works over REST with the API key', async () => {
    const client = createRestClient(suite.server().url, a.apiKey)
    const created = await client.service('v1/customers').create({ companyName: 'Client GmbH' })
    assert.equal(created.companyName, 'Client GmbH')
    const list = await client.service('v1/customers').find({ query: { companyName: { $like: 'client%' }, size: 5 } })
    assert.equal(list.total, 1)
    assert.equal(list.items[0].id, created.id)
    const patched = await client.service('v1/customers').patch(created.id, { number: 'C-9' })
    assert.equal(patched.number, 'C-9')
    await client.service('v1/customers').remove(created.id)
    await assert.rejects(client.service('v1/customers').get(created.id), (e: any) => e.code === 404)
    await assert.rejects(
      createRestClient(suite.server().url, 'ck_nope').service('v1/customers').find(),
      (e: any) => e.code === 401
    )
  })

  it('works over socket.io and receives live events', async () => {
    const socket = io(suite.server().url, { transports: ['websocket'], forceNew: true, reconnection: false })
    try {
      const client = await createSocketClient(socket, a.apiKey)
      const seen: string[] = []
      client.service('v1/projects').on('created', (project) => seen.push(project.number as string))
      const project = await client.service('v1/projects').create({ number: `SOCK-${Date.now()}` })
      await until(() => seen.includes(project.number as string))
      assert.deepEqual(seen, [project.number])
      assert.equal((await client.service('v1/projects').get(project.id)).number, project.number)
    } finally {
      socket.close()
    }
  })
})

describe('package subpath crewclock/client', () => {
  it('resolves to the built client', function () {
    const built = path.resolve(__dirname, '..', '..', 'lib', 'src', 'client.js')
    if (!fs.existsSync(built)) this.skip()
    assert.equal(require.resolve('crewclock/client'), built)
    assert.equal(typeof require('crewclock/client').createRestClient, 'function')
  })
})
