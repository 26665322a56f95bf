import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { forEachDatabase, TestCompany } from '../support/harness'
import { HttpClient } from '../support/http'
import { socketClient } from '../support/socket'
import { eventually, until } from '../support/wait'
import { createApiKey, encryptApiKey, hashApiKey } from '../../src/auth/api-keys'
import { getServiceOptions } from '@feathersjs/feathers'
import { registryOf } from '../../src/resources/registry'

const PASSWORD = 'scopes secret'
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64'
)

/** Every stored file under `dir`, to prove a refused upload kept nothing. */
const storedFiles = (dir: string): string[] => {
  if (!fs.existsSync(dir)) return []
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => fs.statSync(path.join(dir, f)).isFile())
    .sort()
}

const png = () => {
  const body = new FormData()
  body.append('file', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'photo.png')
  return body
}

/** The 403 of a missing scope: named in the message and in `data.scope`. */
function assertMissingScope(res: { status: number; body: any; text: string }, scope: string) {
  assert.equal(res.status, 403, res.text)
  assert.equal(res.body.name, 'Forbidden')
  assert.equal(res.body.data?.scope, scope)
  assert.match(res.body.message, new RegExp(`lacks the scope ${scope.replace('*', '\\*')}`))
}

forEachDatabase('scoped API keys', (suite) => {
  let a: TestCompany
  let userId: number
  let assignmentId: number
  let assignmentEventId: number
  let customerId: number
  let workTypeId: number

  /** A key of company A with these scopes, as an HTTP client. */
  const keyWith = async (scopes: string[]) => {
    const { key, id } = await createApiKey(suite.server().knex, suite.server().app.get('appSecret'), {
      companyId: a.id,
      userId: a.adminUserId,
      scopes
    })
    return Object.assign(a.api.withKey(key), { keyId: id })
  }
  const plainCollections = () =>
    registryOf(suite.server().app)
      .resources.filter((r) => r.path.split('/').length === 2)
      .map((r) => ({ name: r.path.split('/')[1], methods: r.resource.methods }))
  /** Collections whose reads need their write scope too (CONTRACT §13.3: managing webhooks is one scope). */
  const READS_NEED_WRITE = ['webhook-subscriptions']
  const settingsLogin = async () => {
    const { email } = await suite.server().knex('users').where({ id: a.adminUserId }).first()
    const res = await suite.server().http.post('/authentication', { strategy: 'local', email, password: PASSWORD })
    assert.equal(res.status, 201, res.text)
    return suite.server().http.withKey(res.body.accessToken)
  }
  const timeEntry = (client: HttpClient, day = '2026-11-23') =>
    client.post('/v1/time-entries', {
      typeId: workTypeId,
      userId,
      startsAt: `${day}T08:00:00+01:00`,
      endsAt: `${day}T12:00:00+01:00`
    })

  before(async () => {
    a = await suite.company({ adminPassword: PASSWORD })
    const user = await a.api.post('/v1/users', {
      fullName: 'Scoped Worker',
      email: `scoped-${process.pid}-${Date.now()}@crew.test`
    })
    assert.equal(user.status, 201, user.text)
    userId = user.body.id
    const customer = await a.api.post('/v1/customers', { companyName: 'Scoped Kunde' })
    customerId = customer.body.id
    const assignment = await a.api.post('/v1/assignments', { name: 'Scoped Auftrag', customerId })
    assert.equal(assignment.status, 201, assignment.text)
    assignmentId = assignment.body.id
    const eventTypes = await a.api.get('/v1/assignment-event-types')
    const event = await a.api.post('/v1/assignment-events', { assignmentId, typeId: eventTypes.body.items[0].id })
    assert.equal(event.status, 201, event.text)
    assignmentEventId = event.body.id
    workTypeId = (await suite.server().knex('timeEntryTypes').where({ companyId: a.id }).orderBy('order').first()).id
    assert.equal((await timeEntry(a.api)).status, 201)
    assert.equal((await a.api.get('/v1/time-sheet-days/by-user', { userId, day: '2026-11-23' })).status, 200)
  })

  describe('a *:read key', () => {
    it('lists and gets every collection', async () => {
      const reader = await keyWith(['*:read'])
      const collections = plainCollections()
      assert.ok(collections.length >= 20, collections.map((c) => c.name).join())
      for (const { name, methods } of collections) {
        if (!methods.includes('find')) continue
        if (READS_NEED_WRITE.includes(name)) {
          assertMissingScope(await reader.get(`/v1/${name}`), `${name}:write`)
          continue
        }
        const list = await reader.get(`/v1/${name}`)
        assert.equal(list.status, 200, `${name}: ${list.text}`)
        const first = list.body.items[0]
        if (first && methods.includes('get'))
          assert.equal((await reader.get(`/v1/${name}/${first.id}`)).status, 200, name)
      }
    })

    it('gets 403 naming <collection>:write for every create, patch and delete, and changes nothing', async () => {
      const reader = await keyWith(['*:read'])
      for (const { name, methods } of plainCollections()) {
        const before = methods.includes('find') ? (await a.api.get(`/v1/${name}`, { size: 20 })).body : undefined
        const id = before?.items[0]?.id ?? 1
        if (methods.includes('create')) assertMissingScope(await reader.post(`/v1/${name}`, {}), `${name}:write`)
        if (methods.includes('patch')) assertMissingScope(await reader.patch(`/v1/${name}/${id}`, {}), `${name}:write`)
        if (methods.includes('remove')) assertMissingScope(await reader.delete(`/v1/${name}/${id}`), `${name}:write`)
        if (before) assert.deepEqual((await a.api.get(`/v1/${name}`, { size: 20 })).body, before, name)
      }
    })

    it('cannot change a record with a valid body either (verified with a full key)', async () => {
      const reader = await keyWith(['*:read'])
      const before = (await a.api.get(`/v1/customers/${customerId}`)).body
      assertMissingScope(
        await reader.patch(`/v1/customers/${customerId}`, { companyName: 'Hijacked' }),
        'customers:write'
      )
      assertMissingScope(await reader.delete(`/v1/customers/${customerId}`), 'customers:write')
      assertMissingScope(await reader.post('/v1/customers', { companyName: 'Sneaked in' }), 'customers:write')
      assert.deepEqual((await a.api.get(`/v1/customers/${customerId}`)).body, before)
      assert.equal((await a.api.get('/v1/customers', { companyName: 'Sneaked in' })).body.total, 0)
    })
  })

  describe('a time-entries:write key', () => {
    it('creates, patches, lists and gets time entries', async () => {
      const writer = await keyWith(['time-entries:write'])
      const created = await timeEntry(writer, '2026-11-24')
      assert.equal(created.status, 201, created.text)
      const patched = await writer.patch(`/v1/time-entries/${created.body.id}`, { note: 'scoped' })
      assert.equal(patched.status, 200, patched.text)
      assert.equal((await writer.get('/v1/time-entries')).status, 200)
      assert.equal((await writer.get(`/v1/time-entries/${created.body.id}`)).body.note, 'scoped')
      assert.equal((await writer.delete(`/v1/time-entries/${created.body.id}`)).status, 204)
    })

    it('gets 403 on customers, read and write', async () => {
      const writer = await keyWith(['time-entries:write'])
      assertMissingScope(await writer.get('/v1/customers'), 'customers:read')
      assertMissingScope(await writer.get(`/v1/customers/${customerId}`), 'customers:read')
      assertMissingScope(await writer.post('/v1/customers', { companyName: 'No' }), 'customers:write')
      assertMissingScope(await writer.patch(`/v1/customers/${customerId}`, { companyName: 'No' }), 'customers:write')
    })

    it('a read scope of one collection does not write it, nor read another', async () => {
      const reader = await keyWith(['customers:read'])
      assert.equal((await reader.get('/v1/customers')).status, 200)
      assertMissingScope(await reader.post('/v1/customers', { companyName: 'No' }), 'customers:write')
      assertMissingScope(await reader.get('/v1/time-entries'), 'time-entries:read')
    })
  })

  describe('routes besides the collections', () => {
    it('by-user look-ups need the read scope of their sheet collection, even when they create rows', async () => {
      const query = { userId, day: '2026-11-25' }
      const days = await keyWith(['time-sheet-days:read'])
      const weeks = await keyWith(['time-sheet-weeks:write'])
      const entries = await keyWith(['time-entries:write'])
      assertMissingScope(await entries.get('/v1/time-sheet-days/by-user', query), 'time-sheet-days:read')
      assertMissingScope(await weeks.get('/v1/time-sheet-days/by-user', query), 'time-sheet-days:read')
      const found = await days.get('/v1/time-sheet-days/by-user', query)
      assert.equal(found.status, 200, found.text)
      assert.equal(found.body.day, '2026-11-25')
      assert.equal((await weeks.get('/v1/time-sheet-weeks/by-user', { userId, weekStart: '2026-11-23' })).status, 200)
      assertMissingScope(
        await days.get('/v1/time-sheet-months/by-user', { userId, month: '2026-11-01' }),
        'time-sheet-months:read'
      )
    })

    it('uploads count as their parent: assignments:write to upload, assignments:read to list', async () => {
      const dir = suite.server().app.get('uploads').dir as string
      const base = `/v1/assignments/${assignmentId}/uploads`
      const reader = await keyWith(['assignments:read'])
      const writer = await keyWith(['assignments:write'])
      const other = await keyWith(['assignment-events:write', 'customers:write'])
      const files = storedFiles(dir)
      assertMissingScope(await reader.post(base, undefined, { raw: png() }), 'assignments:write')
      assertMissingScope(await other.post(base, undefined, { raw: png() }), 'assignments:write')
      assert.deepEqual(storedFiles(dir), files, 'a refused upload stores nothing')
      // Refused before the body is read: a file over the limit is a 403, not a 413.
      const config = suite.server().app.get('uploads')
      suite.server().app.set('uploads', { ...config, maxBytes: 1024 })
      try {
        const big = new FormData()
        big.append('file', new Blob([new Uint8Array(64 * 1024)]), 'big.bin')
        assertMissingScope(await reader.post(base, undefined, { raw: big }), 'assignments:write')
      } finally {
        suite.server().app.set('uploads', config)
      }
      const created = await writer.post(base, undefined, { raw: png() })
      assert.equal(created.status, 201, created.text)
      const list = await reader.get(base)
      assert.equal(list.status, 200, list.text)
      assert.deepEqual(
        list.body.items.map((u: any) => u.id),
        [created.body.id]
      )
      assert.equal((await reader.get(`${base}/${created.body.id}`)).status, 200)
      assertMissingScope(await reader.patch(`${base}/${created.body.id}`, { description: 'no' }), 'assignments:write')
      assertMissingScope(await reader.delete(`${base}/${created.body.id}`), 'assignments:write')
      assertMissingScope(await other.get(base), 'assignments:read')
      // The signed download link needs no key at all, so no scope either.
      const download = await fetch(created.body.downloadUrl)
      assert.equal(download.status, 200)
      assert.equal((await writer.delete(`${base}/${created.body.id}`)).status, 204)
    })

    it('every /v1 service but the spec routes checks the scope of its collection (a new route cannot forget it)', async () => {
      const unrelated = await keyWith(['time-entry-types:write'])
      const services = Object.keys((suite.server().app as any).services).filter(
        (p) => p.startsWith('v1/') && !p.endsWith('/spec')
      )
      assert.ok(
        services.some((p) => p.includes('/uploads')) && services.some((p) => p.endsWith('/by-user')),
        services.join()
      )
      const unchecked: string[] = []
      for (const service of services) {
        const collection = service.split('/')[1]
        // The change feed opens to any read scope and shows each key its collections (test/api/changes.test.ts).
        if (collection === 'time-entry-types' || service === 'v1/changes') continue
        const url =
          '/' +
          service
            .replace(':assignmentId', String(assignmentId))
            .replace(':assignmentEventId', String(assignmentEventId))
            .replace(':webhookSubscriptionId', '1')
        // A route that only creates (a replay) is called with POST: its scope is the collection's write.
        const createOnly = !getServiceOptions((suite.server().app as any).services[service]).methods?.includes('find')
        const res = createOnly
          ? await unrelated.post(url, {})
          : await unrelated.get(
              url,
              service.endsWith('/by-user')
                ? { userId, day: '2026-11-23', weekStart: '2026-11-23', month: '2026-11-01' }
                : undefined
            )
        // Webhook subscriptions are read with their write scope too (CONTRACT §13.3, docs/integrations.md).
        const access = createOnly || collection === 'webhook-subscriptions' ? 'write' : 'read'
        if (res.status !== 403 || res.body.data?.scope !== `${collection}:${access}`)
          unchecked.push(`${service} → ${res.status}`)
      }
      assert.deepEqual(unchecked, [])
    })

    it('uploads of an assignment event need the scope of assignment-events', async () => {
      const base = `/v1/assignment-events/${assignmentEventId}/uploads`
      assertMissingScope(
        await (await keyWith(['assignments:write'])).post(base, undefined, { raw: png() }),
        'assignment-events:write'
      )
      const created = await (await keyWith(['assignment-events:write'])).post(base, undefined, { raw: png() })
      assert.equal(created.status, 201, created.text)
      assert.equal((await (await keyWith(['assignment-events:read'])).get(base)).body.total, 1)
    })

    it('/v1/<collection>/spec needs only a valid key', async () => {
      const narrow = await keyWith(['time-entries:read'])
      for (const collection of ['customers', 'time-sheet-days', 'assignments']) {
        const res = await narrow.get(`/v1/${collection}/spec`)
        assert.equal(res.status, 200, `${collection}: ${res.text}`)
      }
      assert.equal((await a.api.withKey('ck_' + 'x'.repeat(43)).get('/v1/customers/spec')).status, 401)
    })

    it('every scoped operation declares 403 in the description, the spec route does not', async () => {
      const doc = (await suite.server().http.get('/openapi.json')).body
      const missing: string[] = []
      for (const [template, item] of Object.entries<any>(doc.paths)) {
        for (const [verb, operation] of Object.entries<any>(item)) {
          const keyless = Array.isArray(operation.security) && operation.security.length === 0
          const declares = '403' in operation.responses
          if (template.endsWith('/spec')) assert.ok(!declares, template)
          else if (!keyless && !declares) missing.push(`${verb} ${template}`)
        }
      }
      assert.deepEqual(missing, [])
    })
  })

  describe('stored scopes', () => {
    it('a key created before scopes (the column default) keeps full access', async () => {
      const key = 'ck_' + crypto.randomBytes(32).toString('base64url')
      const secret = suite.server().app.get('appSecret')
      await suite
        .server()
        .knex('api_keys')
        .insert({
          companyId: a.id,
          userId: a.adminUserId,
          name: 'legacy',
          keyHash: hashApiKey(key),
          keyEncrypted: encryptApiKey(key, secret),
          keyHint: key.slice(-4),
          createdAt: new Date().toISOString()
        })
      const legacy = a.api.withKey(key)
      const created = await legacy.post('/v1/customers', { companyName: 'Legacy GmbH' })
      assert.equal(created.status, 201, created.text)
      assert.equal((await legacy.delete(`/v1/customers/${created.body.id}`)).status, 204)
      assert.equal((await legacy.get('/v1/time-sheet-days/by-user', { userId, day: '2026-11-23' })).status, 200)
      assert.equal(
        (await legacy.post(`/v1/assignments/${assignmentId}/uploads`, undefined, { raw: png() })).status,
        201
      )
    })

    it('a tampered scopes column grants nothing but the spec route', async () => {
      const client = await keyWith(['*:write'])
      for (const stored of [
        'garbage',
        '{"*":"write"}',
        '["*:admin"]',
        '["customers"]',
        '["*:write:x"]',
        '["../customers:write"]',
        '[{"scope":"*:write"}]',
        ''
      ]) {
        await suite.server().knex('api_keys').where({ id: client.keyId }).update({ scopes: stored })
        // A hand-written UPDATE reaches PostgreSQL instances' key caches by its trigger's NOTIFY, a moment
        // later (docs/security.md); SQLite's next request sees it.
        if (suite.db.name === 'postgres')
          await eventually(
            () => client.get('/v1/customers'),
            (res) => res.status === 403
          )
        assertMissingScope(await client.get('/v1/customers'), 'customers:read')
        assertMissingScope(await client.post('/v1/customers', { companyName: 'No' }), 'customers:write')
        assert.equal((await client.get('/v1/customers/spec')).status, 200, stored)
      }
      // Well-formed entries beside garbage still count.
      await suite
        .server()
        .knex('api_keys')
        .where({ id: client.keyId })
        .update({ scopes: '["customers:read", 7, null]' })
      if (suite.db.name === 'postgres')
        await eventually(
          () => client.get('/v1/customers'),
          (res) => res.status === 200
        )
      assert.equal((await client.get('/v1/customers')).status, 200)
    })

    it('scoped requests, also refused ones, are counted per key', async () => {
      const reader = await keyWith(['*:read'])
      assert.equal((await reader.get('/v1/roles')).status, 200)
      assert.equal((await reader.post('/v1/customers', { companyName: 'No' })).status, 403)
      const usage = (await (await settingsLogin()).get('/settings/usage')).body.filter(
        (u: any) => u.apiKeyId === reader.keyId
      )
      assert.equal(usage[0]?.requestCount, 2)
    })
  })

  describe('settings/api-keys', () => {
    it('creates keys with the default ["*:write"] and lists the scopes', async () => {
      const admin = await settingsLogin()
      const created = await admin.post('/settings/api-keys', { name: 'Default' })
      assert.equal(created.status, 201, created.text)
      assert.deepEqual(created.body.scopes, ['*:write'])
      const listed = (await admin.get('/settings/api-keys')).body.find((k: any) => k.id === created.body.id)
      assert.deepEqual(listed.scopes, ['*:write'])
      assert.deepEqual((await admin.get(`/settings/api-keys/${created.body.id}`)).body.scopes, ['*:write'])
    })

    it('creates a scoped key (sorted, without repeats) that is held to its scopes', async () => {
      const admin = await settingsLogin()
      const created = await admin.post('/settings/api-keys', {
        name: 'Scoped',
        scopes: ['time-entries:write', 'customers:read', 'time-entries:write']
      })
      assert.equal(created.status, 201, created.text)
      assert.deepEqual(created.body.scopes, ['customers:read', 'time-entries:write'])
      const client = a.api.withKey(created.body.key)
      assert.equal((await client.get('/v1/customers')).status, 200)
      assertMissingScope(await client.post('/v1/customers', { companyName: 'No' }), 'customers:write')
      assertMissingScope(await client.get('/v1/users'), 'users:read')
    })

    it('rejects invalid scopes with 400 naming each entry, and creates nothing', async () => {
      const admin = await settingsLogin()
      const count = (await admin.get('/settings/api-keys')).body.length
      const cases: [unknown, string][] = [
        [['*:admin'], 'scopes.0'],
        [['../users:write'], 'scopes.0'],
        [['nope:read'], 'scopes.0'],
        [['uploads:write'], 'scopes.0'],
        [['Customers:read'], 'scopes.0'],
        [['customers:read', 'customers:write '], 'scopes.1'],
        [[42], 'scopes.0'],
        [[], 'scopes'],
        ['*:write', 'scopes'],
        [null, 'scopes']
      ]
      for (const [scopes, field] of cases) {
        const res = await admin.post('/settings/api-keys', { name: 'Bad', scopes })
        assert.equal(res.status, 400, `${JSON.stringify(scopes)}: ${res.text}`)
        assert.ok(res.body.data.validationErrors[field], `${JSON.stringify(scopes)}: ${JSON.stringify(res.body.data)}`)
      }
      assert.equal((await admin.get('/settings/api-keys')).body.length, count)
    })
  })

  describe('sockets', () => {
    it('a read-only socket finds but cannot create, also after the token replaced the key', async () => {
      const reader = await keyWith(['*:read'])
      const s = socketClient(suite.server().url)
      try {
        const auth = await s.client.authenticate({ strategy: 'apiKey', apiKey: reader.apiKey })
        assert.deepEqual(auth.apiKey.scopes, ['*:read'])
        const list = await s.client.service('v1/customers').find()
        assert.ok(list.total >= 1)
        await assert.rejects(s.client.service('v1/customers').create({ companyName: 'By socket' }), (error: any) => {
          assert.equal(error.code, 403)
          assert.equal(error.data?.scope, 'customers:write')
          return true
        })
        await assert.rejects(s.client.service('v1/customers').remove(customerId), (error: any) => error.code === 403)
        assert.equal((await a.api.get(`/v1/customers/${customerId}`)).status, 200)
        // The token minted for the socket is no key: replayed over REST it opens nothing.
        const token = a.api.withKey(auth.accessToken)
        assert.equal((await token.get('/v1/customers')).status, 401)
        assert.equal((await token.post('/v1/customers', { companyName: 'By token' })).status, 401)
      } finally {
        s.close()
      }
    })

    it('a time-entries:write socket writes time entries and is refused customers', async () => {
      const writer = await keyWith(['time-entries:write'])
      const s = socketClient(suite.server().url)
      try {
        await s.client.authenticate({ strategy: 'apiKey', apiKey: writer.apiKey })
        const created = await s.client
          .service('v1/time-entries')
          .create({ typeId: workTypeId, userId, startsAt: '2026-11-26T08:00:00Z', endsAt: '2026-11-26T09:00:00Z' })
        await s.client.service('v1/time-entries').remove(created.id)
        await assert.rejects(
          s.client.service('v1/customers').find(),
          (error: any) => error.code === 403 && error.data?.scope === 'customers:read'
        )
      } finally {
        s.close()
      }
    })

    it('delivers only the events of collections the key can read', async () => {
      const r = socketClient(suite.server().url)
      const t = socketClient(suite.server().url)
      try {
        await r.client.authenticate({ strategy: 'apiKey', apiKey: (await keyWith(['*:read'])).apiKey })
        await t.client.authenticate({ strategy: 'apiKey', apiKey: (await keyWith(['time-entries:write'])).apiKey })
        const seen = { r: [] as string[], t: [] as string[] }
        for (const [name, socket] of [
          ['r', r],
          ['t', t]
        ] as const) {
          for (const collection of [
            'customers',
            'time-entries',
            'time-sheet-days',
            'time-sheet-weeks',
            'time-sheet-months'
          ]) {
            for (const event of ['created', 'patched', 'removed'])
              socket.client.service(`v1/${collection}`).on(event, () => seen[name].push(`${collection} ${event}`))
          }
        }
        assert.equal((await a.api.post('/v1/customers', { companyName: 'Evented' })).status, 201)
        // Creates the day, week and month rows of a new period: time-sheet events.
        assert.equal((await a.api.get('/v1/time-sheet-days/by-user', { userId, day: '2026-12-07' })).status, 200)
        // The *:read socket hears the customer and the sheet rows.
        await until(() => seen.r.includes('customers created') && seen.r.includes('time-sheet-days created'))
        // Sent after the events above: once it arrives, anything sent to t before it has arrived too.
        assert.equal((await timeEntry(a.api, '2026-11-27')).status, 201)
        // Both sockets hear the time entry.
        await until(() => seen.t.includes('time-entries created') && seen.r.includes('time-entries created'))
        assert.deepEqual(
          seen.t.filter((e) => !e.startsWith('time-entries ')),
          [],
          'the time-entries:write socket hears nothing of customers or time sheets'
        )
      } finally {
        r.close()
        t.close()
      }
    })
  })
})
