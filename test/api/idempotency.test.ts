import assert from 'node:assert/strict'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import type { Server } from 'node:http'
import knex, { Knex } from 'knex'
import { forEachDatabase, TestCompany } from '../support/harness'
import { HttpClient, HttpResponse } from '../support/http'
import { FaultInjector } from '../support/fault-injection'
import { startServe, stopProcess } from '../support/cli'
import { eventually, until } from '../support/wait'
import { Conflict } from '@feathersjs/errors'
import { createApiKey } from '../../src/auth/api-keys'
import { createApp, ConfigOverrides } from '../../src/app'
import type { Application } from '../../src/declarations'

const HEADER = 'Idempotency-Key'
const newKey = () => `key-${randomUUID()}`
const keyed = (key: string) => ({ headers: { [HEADER]: key } })
const replayed = (res: HttpResponse) => res.headers.get('idempotent-replayed')

/** Sends raw bytes as one HTTP/1.1 request (with `Connection: close`) and returns the status and body of the answer. */
function rawRequest(url: string, bytes: Buffer): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(bytes))
    let answer = ''
    socket.on('data', (chunk) => (answer += chunk.toString('utf8')))
    socket.on('end', () => {
      const [head, ...body] = answer.split('\r\n\r\n')
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), body: body.join('\r\n\r\n') })
    })
    socket.on('error', reject)
  })
}

/** A POST of `body` to /v1/customers whose header lines are written byte for byte. */
const rawPost = (apiKey: string, headerLines: Buffer[], body: string) =>
  Buffer.concat([
    Buffer.from(
      'POST /v1/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n' +
        `Authorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`,
      'latin1'
    ),
    ...headerLines.flatMap((line) => [line, Buffer.from('\r\n')]),
    Buffer.from(`\r\n${body}`)
  ])

forEachDatabase('Idempotency-Key (CONTRACT §13.4)', (suite) => {
  let a: TestCompany
  let b: TestCompany

  before(async () => {
    a = await suite.company()
    b = await suite.company()
  })

  /** The company's customers of that name, as its API counts them. */
  const customersNamed = async (company: TestCompany, name: string): Promise<number> => {
    const res = await company.api.get('/v1/customers', { companyName: name })
    assert.equal(res.status, 200)
    return res.body.total
  }

  /** Stored responses under a key string, any company (the storage itself, to see what expiry and pruning leave). */
  const storedRows = async (key: string): Promise<number> => {
    const [{ n }] = await suite.server().knex('idempotency_keys').where({ idempotencyKey: key }).count({ n: '*' })
    return Number(n)
  }

  it('replays the first response of a POST to a repeat, with Idempotent-Replayed, and writes nothing again', async () => {
    const key = newKey()
    const name = `Replay ${key}`
    const first = await a.api.post('/v1/customers', { companyName: name, number: 'R-1' }, keyed(key))
    assert.equal(first.status, 201)
    assert.equal(replayed(first), null)
    const again = await a.api.post('/v1/customers', { companyName: name, number: 'R-1' }, keyed(key))
    assert.equal(again.status, 201)
    assert.equal(replayed(again), 'true')
    assert.equal(again.text, first.text)
    assert.equal(again.headers.get('content-type'), first.headers.get('content-type'))
    // A replay is a request of the key like any other: it is counted and says so (docs/decisions.md).
    assert.ok(again.headers.get('ratelimit-remaining'))
    assert.equal(await customersNamed(a, name), 1)
    // Without the header every request is its own.
    assert.equal((await a.api.post('/v1/customers', { companyName: name })).status, 201)
    assert.equal(await customersNamed(a, name), 2)
  })

  it('logs the events of an idempotent write once, with its request id; a replay logs nothing (CONTRACT §13.1)', async () => {
    const company = await suite.company()
    const key = newKey()
    const body = { companyName: `Logged ${key}` }
    const first = await company.api.post('/v1/customers', body, keyed(key))
    assert.equal(first.status, 201)
    const patchKey = newKey()
    const patched = await company.api.patch(`/v1/customers/${first.body.id}`, { number: 'L-1' }, keyed(patchKey))
    assert.equal(patched.status, 200)
    for (const [path, method, sent, k] of [
      ['/v1/customers', 'post', body, key],
      [`/v1/customers/${first.body.id}`, 'patch', { number: 'L-1' }, patchKey]
    ] as const)
      assert.equal(replayed(await (company.api as any)[method](path, sent, keyed(k))), 'true')
    const feed = await company.api.get('/v1/changes?types=customers.*')
    assert.deepEqual(
      feed.body.items.map((e: any) => [e.type, e.data.id, e.data.number, e.requestId]),
      [
        ['customers.created', first.body.id, null, first.headers.get('x-request-id')],
        ['customers.patched', first.body.id, 'L-1', patched.headers.get('x-request-id')]
      ]
    )
  })

  it('compares bodies as JSON values: key order, nesting and spacing do not make another request', async () => {
    const key = newKey()
    const name = `Order ${key}`
    const body = { companyName: name, number: 'O-1', billingAddress: { street: 'Hauptstraße 1', city: 'Berlin' } }
    const first = await a.api.post('/v1/customers', body, keyed(key))
    assert.equal(first.status, 201)
    const reordered = { billingAddress: { city: 'Berlin', street: 'Hauptstraße 1' }, number: 'O-1', companyName: name }
    const again = await a.api.post('/v1/customers', reordered, keyed(key))
    assert.equal(replayed(again), 'true')
    assert.deepEqual(again.body, first.body)
    const spaced = `{ "number" : "O-1",\n  "companyName": ${JSON.stringify(name)}, "billingAddress": {"city":"Berlin","street":"Hauptstraße 1"} }`
    const raw = await a.api.post('/v1/customers', undefined, {
      raw: spaced,
      headers: { [HEADER]: key, 'content-type': 'application/json' }
    })
    assert.equal(replayed(raw), 'true')
    assert.equal(await customersNamed(a, name), 1)
  })

  it('refuses the key for another body, path or method (422 naming the header) and keeps replaying the first', async () => {
    const key = newKey()
    const name = `Reuse ${key}`
    const first = await a.api.post('/v1/customers', { companyName: name }, keyed(key))
    assert.equal(first.status, 201)
    const refusals = [
      await a.api.post('/v1/customers', { companyName: `${name} (changed)` }, keyed(key)),
      await a.api.post('/v1/customers', { companyName: name, number: null }, keyed(key)),
      await a.api.post('/v1/customers?page=0', { companyName: name }, keyed(key)),
      await a.api.patch(`/v1/customers/${first.body.id}`, { companyName: name }, keyed(key)),
      await a.api.delete(`/v1/customers/${first.body.id}`, keyed(key))
    ]
    for (const res of refusals) {
      assert.equal(res.status, 422, res.text)
      assert.equal(res.body.name, 'UnprocessableEntity')
      assert.equal(res.body.className, 'unprocessable-entity')
      assert.match(res.body.data.validationErrors[HEADER], /^was first used for POST \/v1\/customers/)
      assert.equal(replayed(res), null)
    }
    assert.match(refusals[0].body.message, /body differs/)
    assert.match(refusals[2].body.message, /path differs/)
    assert.match(refusals[3].body.message, /method differs/)
    const again = await a.api.post('/v1/customers', { companyName: name }, keyed(key))
    assert.equal(replayed(again), 'true')
    assert.equal(again.status, 201)
    assert.equal((await a.api.get(`/v1/customers/${first.body.id}`)).status, 200, 'the DELETE did not run')
    assert.equal(await customersNamed(a, name), 1)
  })

  it('stores refusals: a retried 400 or 409 gets the stored answer, even once the state would allow the write', async () => {
    const invalidKey = newKey()
    const invalid = await a.api.post('/v1/customers', { companyName: 'X', emails: 'none' }, keyed(invalidKey))
    assert.equal(invalid.status, 400)
    assert.ok(invalid.body.data.validationErrors.emails)
    const invalidAgain = await a.api.post('/v1/customers', { companyName: 'X', emails: 'none' }, keyed(invalidKey))
    assert.equal(invalidAgain.status, 400)
    assert.equal(replayed(invalidAgain), 'true')
    assert.equal(invalidAgain.text, invalid.text)

    // A delete refused while an assignment references the customer stays refused under its key.
    const customer = await a.api.post('/v1/customers', { companyName: `Referenced ${randomUUID()}` })
    const assignment = await a.api.post('/v1/assignments', { name: 'Holds it', customerId: customer.body.id })
    assert.equal(assignment.status, 201)
    const key = newKey()
    const item = `/v1/customers/${customer.body.id}`
    const refused = await a.api.delete(item, keyed(key))
    assert.equal(refused.status, 409)
    assert.equal(refused.body.data.reason, 'still-referenced')
    assert.equal((await a.api.delete(`/v1/assignments/${assignment.body.id}`)).status, 204)
    const retried = await a.api.delete(item, keyed(key))
    assert.equal(retried.status, 409)
    assert.equal(replayed(retried), 'true')
    assert.equal(retried.text, refused.text)
    assert.equal((await a.api.get(item)).status, 200)
    // A new key is a new request: now it succeeds.
    assert.equal((await a.api.delete(item, keyed(newKey()))).status, 204)
  })

  it('replays a PATCH without patching again, and a DELETE after its record is gone (the stored 204, not a 404)', async () => {
    const created = await a.api.post('/v1/customers', { companyName: `Patch ${randomUUID()}` })
    const item = `/v1/customers/${created.body.id}`
    const patchKey = newKey()
    const patched = await a.api.patch(item, { number: 'P-1' }, keyed(patchKey))
    assert.equal(patched.status, 200)
    assert.equal((await a.api.patch(item, { number: 'P-2' })).status, 200)
    const patchedAgain = await a.api.patch(item, { number: 'P-1' }, keyed(patchKey))
    assert.equal(patchedAgain.status, 200)
    assert.equal(replayed(patchedAgain), 'true')
    assert.equal(patchedAgain.body.number, 'P-1')
    assert.equal((await a.api.get(item)).body.number, 'P-2', 'the replay did not patch')

    const deleteKey = newKey()
    const deleted = await a.api.delete(item, keyed(deleteKey))
    assert.equal(deleted.status, 204)
    const deletedAgain = await a.api.delete(item, keyed(deleteKey))
    assert.equal(deletedAgain.status, 204)
    assert.equal(deletedAgain.text, '')
    assert.equal(replayed(deletedAgain), 'true')
    assert.equal((await a.api.delete(item, keyed(newKey()))).status, 404)
  })

  it('keeps keys per API key: another key of the company and another company use the same string on their own', async () => {
    const key = newKey()
    const name = `Shared ${key}`
    const { key: secondKey } = await createApiKey(suite.server().knex, suite.server().app.get('appSecret'), {
      companyId: a.id,
      userId: a.adminUserId
    })
    const second = a.api.withKey(secondKey)
    const first = await a.api.post('/v1/customers', { companyName: name }, keyed(key))
    const sameCompany = await second.post('/v1/customers', { companyName: name, number: 'other body' }, keyed(key))
    const otherCompany = await b.api.post('/v1/customers', { companyName: name }, keyed(key))
    for (const res of [first, sameCompany, otherCompany]) {
      assert.equal(res.status, 201)
      assert.equal(replayed(res), null)
    }
    assert.equal(await customersNamed(a, name), 2)
    assert.equal(await customersNamed(b, name), 1)
    // Each key replays its own response only.
    const [againA, againSecond, againB] = [
      await a.api.post('/v1/customers', { companyName: name }, keyed(key)),
      await second.post('/v1/customers', { companyName: name, number: 'other body' }, keyed(key)),
      await b.api.post('/v1/customers', { companyName: name }, keyed(key))
    ]
    assert.deepEqual(
      [againA.body.id, againSecond.body.id, againB.body.id],
      [first.body.id, sameCompany.body.id, otherCompany.body.id]
    )
    assert.ok([againA, againSecond, againB].every((res) => replayed(res) === 'true'))
    assert.equal((await b.api.get(`/v1/customers/${first.body.id}`)).status, 404)
  })

  it('refuses a malformed key with 400 naming the header: empty, 256 characters, non-ASCII, control characters, twice', async () => {
    const name = `Malformed ${randomUUID()}`
    for (const bad of ['', 'x'.repeat(256), 'schlüssel', 'tab\there', 'ключ']) {
      // fetch sends a string of code points up to U+00FF as its bytes; others are refused before sending.
      if ([...bad].some((c) => c.charCodeAt(0) > 0xff)) continue
      const res = await a.api.post('/v1/customers', { companyName: name }, keyed(bad))
      assert.equal(res.status, 400, JSON.stringify(bad))
      assert.equal(res.body.name, 'BadRequest')
      assert.match(res.body.data.validationErrors[HEADER], /must be 1 to 255 printable ASCII characters/)
    }
    const body = JSON.stringify({ companyName: name })
    const header = (value: Buffer) => Buffer.concat([Buffer.from(`${HEADER}: `), value])
    // Sent byte for byte: UTF-8, a header sent twice (fetch would join the two into one value).
    const sent: [Buffer[], string][] = [
      [[header(Buffer.from('ключ', 'utf8'))], 'must be 1 to 255 printable ASCII characters'],
      [[header(Buffer.from('one')), header(Buffer.from('two'))], 'must be sent once']
    ]
    for (const [lines, message] of sent) {
      const res = await rawRequest(a.api.baseUrl, rawPost(a.apiKey, lines, body))
      assert.equal(res.status, 400)
      assert.equal(JSON.parse(res.body).data.validationErrors[HEADER], message)
    }
    // Control characters other than a tab never reach the app: Node's HTTP parser refuses the request.
    for (const control of [0x01, 0x7f])
      assert.equal(
        (await rawRequest(a.api.baseUrl, rawPost(a.apiKey, [header(Buffer.from([0x6b, control]))], body))).status,
        400
      )
    assert.equal(await customersNamed(a, name), 0)
    // Every printable ASCII character, up to 255 of them, is fine.
    const printable = String.fromCharCode(...Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => 0x21 + i))
    for (const good of [`${printable} ${randomUUID()}`, `${randomUUID()}`.padEnd(255, '~')])
      assert.equal((await a.api.post('/v1/customers', { companyName: name }, keyed(good))).status, 201, good)
  })

  it('never runs a key twice while its first request runs: 409 on PostgreSQL, on SQLite the repeat waits and replays', async () => {
    const server = suite.server()
    const created = await a.api.post('/v1/customers', { companyName: `In flight ${randomUUID()}` })
    const item = `/v1/customers/${created.body.id}`
    const key = newKey()
    const lock = await holdWriteLock(suite.db.name, suite.db.url, server.knex, created.body.id)
    let first: Promise<HttpResponse> | undefined
    let waiting: Promise<HttpResponse> | undefined
    try {
      const looked = watchStatements(server.knex, /idempotency_keys/)
      first = a.api.patch(item, { number: 'F-1' }, keyed(key))
      await until(() => looked.seen)
      looked.stop()
      if (suite.db.name === 'postgres') {
        // The first holds the key's advisory lock and waits for the customer's row lock.
        const second = await a.api.patch(item, { number: 'F-1' }, keyed(key))
        assert.equal(second.status, 409)
        assert.equal(second.body.name, 'Conflict')
        assert.equal(second.body.data.reason, 'idempotency-in-flight')
        assert.ok(second.body.data.validationErrors[HEADER])
        const otherBody = await a.api.patch(item, { number: 'F-2' }, keyed(key))
        assert.equal(otherBody.status, 409)
      } else {
        // The first holds the process's one connection and waits for the write lock: the repeat
        // queues behind it for the connection.
        const pool = (server.knex.client as { pool: { numPendingAcquires(): number } }).pool
        waiting = a.api.patch(item, { number: 'F-1' }, keyed(key))
        await until(() => pool.numPendingAcquires() > 0)
      }
    } finally {
      await lock.release()
    }
    const done = await first!
    assert.equal(done.status, 200)
    assert.equal(replayed(done), null)
    const again = await (waiting ?? a.api.patch(item, { number: 'F-1' }, keyed(key)))
    assert.equal(again.status, 200)
    assert.equal(replayed(again), 'true')
    assert.equal(again.text, done.text)
  })

  it('runs a key once when its first request is refused while a repeat waits: the repeat gets the refusal (SQLite) or 409 in flight (PostgreSQL)', async () => {
    const server = suite.server()
    const marker = `Refused once ${randomUUID()}`
    let runs = 0
    // A create of this name is slow, and refused on its first run only (a state that has gone by the second).
    server.app.service('v1/customers').hooks({
      before: {
        create: [
          async (context: { data?: { companyName?: string } }) => {
            if (context.data?.companyName !== marker) return
            const run = ++runs
            await new Promise((resolve) => setTimeout(resolve, 300))
            if (run === 1) throw new Conflict('refused on its first run')
          }
        ]
      }
    })
    const key = newKey()
    const first = a.api.post('/v1/customers', { companyName: marker }, keyed(key))
    await until(() => runs === 1)
    const repeat = await a.api.post('/v1/customers', { companyName: marker }, keyed(key))
    const refused = await first
    assert.equal(refused.status, 409)
    if (suite.db.name === 'postgres') {
      assert.equal(repeat.status, 409)
      assert.equal(repeat.body.data.reason, 'idempotency-in-flight')
    } else {
      assert.equal(repeat.status, 409, repeat.text)
      assert.equal(replayed(repeat), 'true')
      assert.equal(repeat.text, refused.text)
    }
    assert.equal(runs, 1, 'the write ran once')
    assert.equal(await customersNamed(a, marker), 0)
    const later = await a.api.post('/v1/customers', { companyName: marker }, keyed(key))
    assert.equal(replayed(later), 'true')
    assert.equal(later.text, refused.text)
  })

  it('answers a keyed write whose COMMIT fails with a 5xx, stores neither the write nor the key, and runs a retry', async () => {
    const server = suite.server()
    const client = server.knex.client as { query: (connection: unknown, query: unknown) => Promise<unknown> }
    const proto = Object.getPrototypeOf(client)
    const own = Object.hasOwn(proto, 'query')
    const query = proto.query
    let failed = 0
    // The COMMIT fails as each database fails it (a full disk, a deferred constraint): PostgreSQL
    // ends the transaction itself, SQLite leaves it open.
    proto.query = function (this: unknown, connection: unknown, sql: string | { sql: string }) {
      if ((typeof sql === 'string' ? sql : sql.sql) !== 'COMMIT;' || failed > 0)
        return query.call(this, connection, sql)
      failed++
      const error = Object.assign(new Error('injected: the COMMIT failed'), { code: 'SQLITE_FULL' })
      return suite.db.name === 'postgres'
        ? query.call(this, connection, 'ROLLBACK;').then(() => Promise.reject(error))
        : Promise.reject(error)
    }
    const key = newKey()
    const name = `Commit fails ${key}`
    let answer: HttpResponse
    try {
      answer = await a.api.post('/v1/customers', { companyName: name }, keyed(key))
    } finally {
      if (own) proto.query = query
      else delete proto.query
    }
    assert.equal(failed, 1)
    assert.ok(answer.status >= 500, `answered ${answer.status}: ${answer.text}`)
    assert.equal(await customersNamed(a, name), 0)
    assert.equal(await storedRows(key), 0)
    const retried = await a.api.post('/v1/customers', { companyName: name }, keyed(key))
    assert.equal(retried.status, 201)
    assert.equal(replayed(retried), null)
    assert.equal(await customersNamed(a, name), 1)
  })

  it('stores no 5xx: when storing the response fails the write rolls back with it, and a retry runs again', async () => {
    const server = suite.server()
    const injector = new FaultInjector(server.knex)
    try {
      // Which statement of a keyed create stores its response.
      injector.arm(Infinity)
      assert.equal((await a.api.post('/v1/customers', { companyName: 'Probe' }, keyed(newKey()))).status, 201)
      const storing = injector.statements.findIndex((s) => /^update\b.*idempotency_keys/i.test(s.sql)) + 1
      assert.ok(storing > 1, injector.statements.map((s) => s.sql).join('\n'))

      const key = newKey()
      const name = `Fault ${key}`
      injector.arm(storing)
      const failed = await a.api.post('/v1/customers', { companyName: name }, keyed(key))
      assert.ok(injector.fired)
      injector.disarm()
      assert.equal(failed.status, 500)
      assert.equal(await customersNamed(a, name), 0, 'the write rolled back with the stored response')
      assert.equal(await storedRows(key), 0)
      const retried = await a.api.post('/v1/customers', { companyName: name }, keyed(key))
      assert.equal(retried.status, 201)
      assert.equal(replayed(retried), null)
      assert.equal(await customersNamed(a, name), 1)
    } finally {
      injector.uninstall()
    }
  })

  it('treats a stored response as gone after the retention (a repeat runs again), and prunes it on schedule', async () => {
    // Retention of one second instead of a day; the first app never prunes during the test.
    const keeping = await ownServer(suite.db.url, {
      idempotency: { retentionHours: 1 / 3600, pruneIntervalSeconds: 3600 }
    })
    try {
      const api = new HttpClient(keeping.url, a.apiKey)
      const key = newKey()
      const name = `Expiry ${key}`
      const first = await api.post('/v1/customers', { companyName: name }, keyed(key))
      assert.equal(first.status, 201)
      const storedAt = Date.now()
      await until(() => Date.now() > storedAt + 1000)
      assert.equal(await storedRows(key), 1, 'not pruned yet')
      const later = await api.post('/v1/customers', { companyName: name }, keyed(key))
      assert.equal(later.status, 201)
      assert.equal(replayed(later), null)
      assert.notEqual(later.body.id, first.body.id)
      assert.equal(await customersNamed(a, name), 2)
      assert.equal(await storedRows(key), 1, 'the expired row was taken over')
    } finally {
      await keeping.stop()
    }

    const pruning = await ownServer(suite.db.url, {
      idempotency: { retentionHours: 1 / 3600, pruneIntervalSeconds: 0.1 }
    })
    try {
      const key = newKey()
      assert.equal(
        (await new HttpClient(pruning.url, a.apiKey).post('/v1/customers', { companyName: `Prune ${key}` }, keyed(key)))
          .status,
        201
      )
      await eventually(
        () => storedRows(key),
        (n) => n === 0
      )
    } finally {
      await pruning.stop()
    }
  })

  it('replays an upload create and keeps no second file; another file under the key is a 422', async () => {
    const customer = await a.api.post('/v1/customers', { companyName: `Uploads ${randomUUID()}` })
    const assignment = await a.api.post('/v1/assignments', { name: 'Keyed upload', customerId: customer.body.id })
    assert.equal(assignment.status, 201)
    const base = `/v1/assignments/${assignment.body.id}/uploads`
    const dir = suite.server().app.get('uploads').dir as string
    const files = () =>
      fs.existsSync(dir)
        ? (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile())
            .length
        : 0
    const form = (name: string, bytes = 'plain text') => {
      const body = new FormData()
      body.append('file', new Blob([bytes], { type: 'text/plain' }), name)
      return body
    }
    const key = newKey()
    const first = await a.api.post(base, undefined, { raw: form('notes.txt'), headers: { [HEADER]: key } })
    assert.equal(first.status, 201, first.text)
    const before = files()
    const again = await a.api.post(base, undefined, { raw: form('notes.txt'), headers: { [HEADER]: key } })
    assert.equal(again.status, 201)
    assert.equal(replayed(again), 'true')
    assert.equal(again.body.id, first.body.id)
    const other = await a.api.post(base, undefined, { raw: form('other.txt'), headers: { [HEADER]: key } })
    assert.equal(other.status, 422)
    assert.equal(files(), before, 'the repeated and the refused file were not kept')
    assert.equal((await a.api.get(base)).body.total, 1)
  })

  it('is described on every write under /v1: the header parameter, 409, 422 and Idempotent-Replayed on successes', async () => {
    const doc = (await suite.server().http.get('/openapi.json')).body
    let writes = 0
    for (const [template, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        const takesKey = (operation.parameters ?? []).some(
          (p: { $ref?: string }) => p.$ref === '#/components/parameters/IdempotencyKey'
        )
        const where = `${method.toUpperCase()} ${template}`
        if (!['post', 'patch', 'delete'].includes(method)) {
          assert.equal(takesKey, false, where)
          continue
        }
        writes++
        assert.ok(takesKey, where)
        assert.ok(operation.responses['409'] && operation.responses['422'], where)
        for (const [status, response] of Object.entries<any>(operation.responses))
          if (status.startsWith('2')) assert.ok(response.headers['Idempotent-Replayed'], `${where} ${status}`)
      }
    }
    assert.ok(writes > 20, `${writes} writes`)
    assert.deepEqual(doc.components.parameters.IdempotencyKey.schema, {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x20-\\x7E]+$'
    })
    assert.equal(doc.components.parameters.IdempotencyKey.in, 'header')
    assert.match(doc.components.schemas.Error.properties.data.properties.reason.description, /`idempotency-in-flight`/)
    assert.equal(
      doc.components.responses.UnprocessableEntity.content['application/json'].schema.allOf[1].properties.code.const,
      422
    )
  })

  it('lets exactly one of two server processes run a key sent to both (one record; the other 409 or the replay)', async function () {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crewclock-idempotency-'))
    // A channel and counters of their own when REDIS_URL is set: other test runs may share that Redis.
    const env = {
      DATABASE_URL: suite.db.url,
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      SYNC_KEY: `idempotency-test-${process.pid}`
    }
    const [one, two] = await Promise.all([startServe(env), startServe(env)])
    try {
      const [apiOne, apiTwo] = [new HttpClient(one.url, a.apiKey), new HttpClient(two.url, a.apiKey)]
      // Two processes, and two requests in each (this suite's server is a third process on the database).
      for (let round = 0; round < 5; round++) {
        const key = newKey()
        const name = `Two processes ${key}`
        const send = (api: HttpClient) => api.post('/v1/customers', { companyName: name }, keyed(key))
        const answers = await Promise.all([send(apiOne), send(apiTwo), send(apiOne), send(apiTwo), send(a.api)])
        assert.equal(await customersNamed(a, name), 1)
        const ran = answers.filter((res) => res.status === 201 && replayed(res) === null)
        assert.equal(ran.length, 1, answers.map((res) => `${res.status} ${replayed(res)}`).join(', '))
        for (const other of answers.filter((res) => res !== ran[0])) {
          if (other.status === 409) assert.equal(other.body.data.reason, 'idempotency-in-flight')
          else assert.deepEqual([other.status, replayed(other), other.body.id], [201, 'true', ran[0].body.id])
        }
      }

      // A key held by a request still running in another process: PostgreSQL answers 409 at once
      // (the advisory lock); SQLite's single writer makes the repeat wait and then replays.
      const server = suite.server()
      const created = await a.api.post('/v1/customers', { companyName: `Across ${randomUUID()}` })
      const item = `/v1/customers/${created.body.id}`
      const key = newKey()
      const lock = await holdWriteLock(suite.db.name, suite.db.url, server.knex, created.body.id)
      let first: Promise<HttpResponse> | undefined
      let second: Promise<HttpResponse> | undefined
      try {
        // PostgreSQL: until the first holds the key (its claim's insert follows the advisory lock), else the
        // second, sent sooner, could take the key first. SQLite: the first's look-up (its claim waits for the lock).
        const looked = watchStatements(
          server.knex,
          suite.db.name === 'postgres' ? /insert into "idempotency_keys"/ : /idempotency_keys/
        )
        first = a.api.patch(item, { number: 'A-1' }, keyed(key))
        await until(() => looked.seen)
        looked.stop()
        second = apiOne.patch(item, { number: 'A-1' }, keyed(key))
        if (suite.db.name === 'postgres') {
          const refused = await second
          assert.equal(refused.status, 409)
          assert.equal(refused.body.data.reason, 'idempotency-in-flight')
        }
      } finally {
        await lock.release()
      }
      const done = await first!
      assert.equal(done.status, 200)
      if (suite.db.name === 'sqlite') {
        // Whichever process got the write lock first ran it; the other replays its response.
        const answers = [done, await second!]
        assert.deepEqual(answers.map(replayed).sort(), ['true', null].sort())
        assert.equal(answers[0].text, answers[1].text)
      }
    } finally {
      await Promise.all([stopProcess(one.child), stopProcess(two.child)])
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })
})

/** Reports whether `knex` ran a statement matching `pattern` since the call. */
function watchStatements(db: Knex, pattern: RegExp) {
  const watch = { seen: false, stop: () => db.off('query', listener) }
  const listener = (query: { sql: string }) => {
    if (pattern.test(query.sql)) watch.seen = true
  }
  db.on('query', listener)
  return watch
}

/**
 * Holds what a write of customer `id` must wait for, until `release`: on PostgreSQL its row lock
 * (a transaction of the test on the app's pool), on SQLite the database's write lock (a
 * connection of the test's own).
 */
async function holdWriteLock(dbName: string, url: string, appKnex: Knex, id: number) {
  if (dbName === 'postgres') {
    const trx = await appKnex.transaction()
    await trx('customers').where({ id }).forUpdate().first('id')
    return { release: () => trx.commit() }
  }
  const own = knex({
    client: 'sqlite3',
    connection: { filename: url.replace(/^sqlite:\/\//, '') },
    useNullAsDefault: true,
    pool: { min: 1, max: 1 }
  })
  await own.raw('BEGIN IMMEDIATE')
  return {
    release: async () => {
      await own.raw('COMMIT')
      await own.destroy()
    }
  }
}

/** An app of its own on the suite's database, with other settings. */
async function ownServer(url: string, overrides: ConfigOverrides) {
  const app: Application = createApp({
    redisUrl: '',
    database: { url },
    dataDir: `./.tmp/test/data-idempotency-${process.pid}`,
    ...overrides
  })
  const server: Server = await app.listen(0)
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return { url: `http://127.0.0.1:${port}`, stop: () => app.teardown() }
}
