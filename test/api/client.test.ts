import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { getServiceOptions } from '@feathersjs/feathers'
import { io, Socket } from 'socket.io-client'
import { forEachDatabase, TestCompany } from '../support/harness'
import { newUser } from '../support/users'
import { until } from '../support/wait'
import { createClient, createRestClient, createSocketClient, SERVICE_METHODS } from '../../client/src'
import type { CrewclockClient, Upload } from '../../client/src'
import socketio from '@feathersjs/socketio-client'
import rest from '@feathersjs/rest-client'

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64'
)
const png = () => new Blob([new Uint8Array(PNG)], { type: 'image/png' })

/** A socket.io-client socket as an integrator opens it (socket.io's own reconnection off: the client's is tested). */
const openSocket = (url: string, reconnection = false): Socket =>
  io(url, { transports: ['websocket'], forceNew: true, reconnection })

/** Collects the events of one service of a client. */
function recorder<T>(service: {
  on(event: 'created' | 'patched' | 'removed', listener: (record: T) => void): unknown
}) {
  const events: { event: string; record: T }[] = []
  for (const event of ['created', 'patched', 'removed'] as const)
    service.on(event, (record) => events.push({ event, record }))
  return events
}

forEachDatabase('typed client', (suite) => {
  let a: TestCompany
  let b: TestCompany
  const sockets: Socket[] = []
  const socketClientOf = async (company: TestCompany) => {
    const socket = openSocket(suite.server().url)
    sockets.push(socket)
    return createSocketClient(socket, company.apiKey)
  }

  before(async () => {
    a = await suite.company()
    b = await suite.company()
  })

  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.close()
  })

  const newAssignment = async (client: CrewclockClient) => {
    const customer = await client.service('v1/customers').create({ companyName: 'Client Customer' })
    return client.service('v1/assignments').create({ name: 'Client assignment', customerId: customer.id })
  }

  it('lists every service the server registers, nested uploads included, with the same methods', () => {
    const app = suite.server().app
    const served: Record<string, string[]> = {}
    for (const [p, service] of Object.entries(app.services)) {
      if (!p.startsWith('v1/') || p.endsWith('/spec')) continue
      served[p] = [...(getServiceOptions(service).methods ?? [])].sort()
    }
    const declared = Object.fromEntries(Object.entries(SERVICE_METHODS).map(([p, m]) => [p, [...m].sort()]))
    assert.deepEqual(declared, served)
    assert.ok('v1/assignments/:assignmentId/uploads' in declared)
  })

  it('round-trips typed calls over REST; remove answers null (204); a wrong key is a 401', async () => {
    const client = createRestClient(suite.server().url, a.apiKey)
    assert.equal(client.transport, 'rest')
    assert.equal(client.state, 'live')
    const created = await client.service('v1/customers').create({ companyName: 'Client GmbH' })
    assert.equal(created.companyName, 'Client GmbH')
    const list = await client.service('v1/customers').find({ query: { companyName: { $like: 'client%' }, size: 5 } })
    assert.deepEqual(
      list.items.map((c) => c.id),
      [created.id]
    )
    const patched = await client.service('v1/customers').patch(created.id, { number: 'C-9' })
    assert.equal(patched.number, 'C-9')
    assert.equal(await client.service('v1/customers').remove(created.id), null)
    await assert.rejects(client.service('v1/customers').get(created.id), (e: any) => e.code === 404)
    await assert.rejects(
      createRestClient(suite.server().url, 'ck_nope').service('v1/customers').find(),
      (e: any) => e.code === 401
    )
    // The generator's style, with any Feathers REST connection.
    const generic = createClient(rest(suite.server().url).fetch(fetch), a.apiKey)
    assert.equal((await generic.service('v1/customers').find({ query: { id: created.id } })).total, 0)
  })

  it('round-trips typed calls over a socket with live events; remove answers the removed record', async () => {
    const client = await socketClientOf(a)
    assert.equal(client.transport, 'socket')
    assert.equal(client.state, 'live')
    const events = recorder(client.service('v1/projects'))
    const project = await client.service('v1/projects').create({ number: `SOCK-${Date.now()}` })
    const patched = await client.service('v1/projects').patch(project.id, { externalId: 'x-1' })
    assert.equal(patched.externalId, 'x-1')
    assert.equal((await client.service('v1/projects').get(project.id)).number, project.number)
    const removed = await client.service('v1/projects').remove(project.id)
    assert.equal(removed.id, project.id)
    await until(() => events.length === 3)
    assert.deepEqual(
      events.map((e) => [e.event, e.record.id]),
      [
        ['created', project.id],
        ['patched', project.id],
        ['removed', project.id]
      ]
    )
    // The generator's style: createClient(socketio(socket), apiKey), calls wait for the authentication.
    const socket = openSocket(suite.server().url)
    sockets.push(socket)
    const generic = createClient(socketio(socket), a.apiKey)
    assert.equal((await generic.service('v1/projects').find({ query: { id: project.id } })).total, 0)
    assert.equal(generic.state, 'live')
  })

  it('reads the change feed page by page with its cursor, and a subscription create answers its secret', async () => {
    for (const client of [createRestClient(suite.server().url, b.apiKey), await socketClientOf(b)]) {
      const start = (await client.service('v1/changes').find({ query: { size: 1 } })).next
      const made = [
        await client.service('v1/customers').create({ companyName: `Feed ${client.transport} 1` }),
        await client.service('v1/customers').create({ companyName: `Feed ${client.transport} 2` })
      ]
      const seen: number[] = []
      let after = start
      for (let page = 0; page < 10; page++) {
        const { items, next } = await client
          .service('v1/changes')
          .find({ query: { after, size: 1, types: 'customers.created' } })
        if (items.length === 0) break
        assert.equal(items[0].type, 'customers.created')
        assert.ok('apiKeyId' in items[0].actor)
        seen.push(Number(items[0].data.id))
        after = next
      }
      assert.deepEqual(
        seen.slice(-2),
        made.map((customer) => customer.id)
      )
      await assert.rejects(
        client.service('v1/changes').find({ query: { types: 'nothing.here' } }),
        (e: any) => e.code === 400 && 'types' in e.data.validationErrors
      )
      const subscription = await client
        .service('v1/webhook-subscriptions')
        .create({ url: `https://hooks.example.test/${client.transport}` })
      assert.match(subscription.secret, /^whsec_/)
      assert.equal('secret' in (await client.service('v1/webhook-subscriptions').get(subscription.id)), false)
    }
  })

  it('sends null filters so that the API reads them as null, over REST as over a socket', async () => {
    const userId = await newUser(a)
    const entryType = (await a.api.get('/v1/time-entry-types', { isUnassigned: true })).body.items[0]
    const start = (hour: number) => `2026-03-02T${String(hour).padStart(2, '0')}:00:00.000Z`
    const restClient = createRestClient(suite.server().url, a.apiKey)
    const closed = await restClient
      .service('v1/time-entries')
      .create({ userId, typeId: entryType.id, startsAt: start(7), endsAt: start(8) })
    const running = await restClient
      .service('v1/time-entries')
      .create({ userId, typeId: entryType.id, startsAt: start(9) })
    const socketClient = await socketClientOf(a)
    for (const client of [restClient, socketClient] as CrewclockClient[]) {
      const entries = client.service('v1/time-entries')
      const ids = async (query: Parameters<typeof entries.find>[0]) =>
        (await entries.find(query)).items.map((e) => e.id)
      assert.deepEqual(await ids({ query: { userId, endsAt: null } }), [running.id], client.transport)
      assert.deepEqual(await ids({ query: { userId, endsAt: { $eq: null } } }), [running.id], client.transport)
      assert.deepEqual(await ids({ query: { userId, endsAt: { $ne: null } } }), [closed.id], client.transport)
      assert.deepEqual(await ids({ query: { userId, endsAt: { $ne: null, $gte: start(8) } } }), [closed.id])
    }
    const activeUsers = await restClient.service('v1/users').find({ query: { id: userId, deactivatedAt: null } })
    assert.equal(activeUsers.total, 1)
  })

  it('creates uploads through the same client, and the nested service delivers their events', async () => {
    const client = await socketClientOf(a)
    const assignment = await newAssignment(client)
    const event = await client.service('v1/assignment-events').create({
      assignmentId: assignment.id,
      typeId: (await client.service('v1/assignment-event-types').find()).items[0].id
    })
    const onAssignments = recorder<Upload>(client.service('v1/assignments/:assignmentId/uploads'))
    const onEvents = recorder<Upload>(client.service('v1/assignment-events/:assignmentEventId/uploads'))
    const uploads = client.service('v1/assignments/:assignmentId/uploads')
    const route = { assignmentId: assignment.id }

    // Over a socket, the create is a multipart POST of the same client; the event comes over the socket.
    const created = await uploads.create({ file: png(), fileName: 'site.png', description: 'Site' }, { route })
    assert.deepEqual(
      [created.assignmentId, created.fileName, created.mimeType],
      [assignment.id, 'site.png', 'image/png']
    )
    const patched = await uploads.patch(created.id, { description: 'Roof' }, { route })
    assert.equal(patched.description, 'Roof')
    assert.deepEqual(
      (await uploads.find({ route, query: { id: created.id } })).items.map((u) => u.id),
      [created.id]
    )
    assert.equal((await uploads.get(created.id, { route })).description, 'Roof')
    const removed = await uploads.remove(created.id, { route })
    assert.equal(removed.id, created.id)
    await until(() => onAssignments.length === 3)
    assert.deepEqual(
      onAssignments.map((e) => [e.event, e.record.id, e.record.assignmentId]),
      [
        ['created', created.id, assignment.id],
        ['patched', created.id, assignment.id],
        ['removed', created.id, assignment.id]
      ]
    )

    // The helper per parent: the route filled in, events narrowed to that parent.
    const ofEvent = client.uploads('assignment-events', event.id)
    const narrowed: number[] = []
    ofEvent.on('created', (upload) => narrowed.push(upload.id))
    const otherEvent = await client
      .service('v1/assignment-events')
      .create({ assignmentId: assignment.id, typeId: event.typeId })
    await client.uploads('assignment-events', otherEvent.id).create({ file: png(), fileName: 'other.png' })
    const mine = await ofEvent.create({ file: new File([new Uint8Array(PNG)], 'event.png') })
    assert.equal(mine.fileName, 'event.png')
    await until(() => onEvents.length === 2 && narrowed.length === 1)
    assert.deepEqual(narrowed, [mine.id])
    assert.equal((await ofEvent.find()).total, 1)

    // Over REST too, and a bad upload answers the API's 400 naming the field.
    const restUploads = createRestClient(suite.server().url, a.apiKey).uploads('assignments', assignment.id)
    const viaRest = await restUploads.create({ file: png(), description: 'REST' })
    assert.equal(viaRest.fileName, 'upload')
    assert.equal(await restUploads.remove(viaRest.id), null)
    await assert.rejects(
      restUploads.create({ file: new Blob([]) }),
      (e: any) => e.code === 400 && /empty/.test(e.data.validationErrors.file)
    )
    await until(() => onAssignments.length === 5)
  })

  it("never delivers another company's upload events, and a parent of another company is 404", async () => {
    const clientA = await socketClientOf(a)
    const clientB = await socketClientOf(b)
    const seenByB = recorder<Upload>(clientB.service('v1/assignments/:assignmentId/uploads'))
    const seenByA = recorder<Upload>(clientA.service('v1/assignments/:assignmentId/uploads'))
    const assignmentA = await newAssignment(clientA)
    const assignmentB = await newAssignment(clientB)
    await clientA.uploads('assignments', assignmentA.id).create({ file: png() })
    await clientB.uploads('assignments', assignmentB.id).create({ file: png() })
    await until(() => seenByA.length === 1 && seenByB.length === 1)
    assert.equal(seenByA[0].record.assignmentId, assignmentA.id)
    assert.equal(seenByB[0].record.assignmentId, assignmentB.id)
    await assert.rejects(clientB.uploads('assignments', assignmentA.id).find(), (e: any) => e.code === 404)
    await assert.rejects(
      clientB.uploads('assignments', assignmentA.id).create({ file: png() }),
      (e: any) => e.code === 404
    )
  })
})

describe('package subpath crewclock/client', () => {
  it('resolves to the built client, a re-export of @crewclock/client', function () {
    const built = path.resolve(__dirname, '..', '..', 'lib', 'src', 'client.js')
    if (!fs.existsSync(built)) this.skip()
    assert.equal(require.resolve('crewclock/client'), built)
    const subpath = require('crewclock/client')
    for (const name of ['createClient', 'createRestClient', 'createSocketClient', 'uploadFile'])
      assert.equal(typeof subpath[name], 'function', name)
    assert.ok(subpath.SERVICE_METHODS['v1/assignments/:assignmentId/uploads'])
  })
})
