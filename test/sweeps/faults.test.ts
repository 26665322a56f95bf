import assert from 'node:assert/strict'
import fs from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import path from 'node:path'
import type { Server } from 'node:http'
import type { Knex } from 'knex'
import { forEachDatabase } from '../support/harness'
import { HttpClient, HttpResponse } from '../support/http'
import { runCli, ROOT, startServe } from '../support/cli'
import { TcpProxy } from '../support/proxy'
import { FaultInjector } from '../support/fault-injection'
import { eventually } from '../support/wait'
import {
  changedTables,
  Json,
  label,
  loadOperations,
  multiRowBody,
  nonNull,
  Operation,
  postRecord,
  seedCompany,
  snapshotCompany,
  urlOf
} from '../support/sweep'
import { createApp } from '../../src/app'
import { createKnex, DEFAULT_TIMEOUTS } from '../../src/db/knex'
import type { Application } from '../../src/declarations'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** What a busy machine adds to a timeout before the answer arrives (as in test/sweeps/timeouts.test.ts). */
const SLACK_MS = 5000

forEachDatabase('faults', (suite) => {
  /** A second app instance on `url`, so the shared test server never loses its database. */
  async function dedicatedApp(url: string, database: { statementTimeoutMs?: number; acquireTimeoutMs?: number } = {}) {
    const shared = suite.server().app
    const app: Application = createApp({
      redisUrl: '',
      database: { url, ...database },
      dataDir: shared.get('dataDir'),
      uploads: shared.get('uploads')
    } as any)
    // knex reports every failed acquire on the console; the test asserts on the answers instead.
    ;(app.get('knex' as any) as Knex).client.logger.warn = () => undefined
    const server: Server = await app.listen(0)
    const address = server.address() as net.AddressInfo
    return { app, http: new HttpClient(`http://127.0.0.1:${address.port}`) }
  }

  const assertUnavailable = (res: HttpResponse, what: string) => {
    assert.equal(res.status, 503, `${what}: ${res.text}`)
    assert.equal(res.body.name, 'Unavailable', what)
    assert.doesNotMatch(res.text, /select|insert|ECONN|127\.0\.0\.1/i, `${what}: no internals`)
  }

  if (suite.db.name === 'postgres') {
    it('a database that refuses the instance (dropped, not accepting connections): 503 and /ready 503, never 500', async function () {
      // The server answers, the database does not serve: 3D000 "does not exist" here; 55000 "does not
      // allow connections", 53300 "too many connections" and the login's refusal map the same way.
      const missing = new URL(suite.db.url)
      missing.pathname = `/crewclock_missing_${process.pid}_${Date.now()}`
      const { app, http: client } = await dedicatedApp(missing.toString())
      try {
        const company = await suite.company()
        assertUnavailable(await client.withKey(company.apiKey).get('/v1/customers'), 'list')
        assertUnavailable(await client.withKey(company.apiKey).post('/v1/customers', { companyName: 'X' }), 'create')
        assertUnavailable(await client.get('/ready'), '/ready')
      } finally {
        await app.teardown()
      }
    })

    it('database stopped mid-run: 503 promptly (also when it stops answering), recovery without a restart', async function () {
      const target = new URL(suite.db.url)
      const proxy = new TcpProxy(target.hostname, Number(target.port || 5432))
      await proxy.start()
      const { app, http: client } = await dedicatedApp(proxy.proxiedUrl(suite.db.url))
      try {
        const company = await suite.company()
        const api = client.withKey(company.apiKey)
        assert.equal((await api.get('/v1/customers')).status, 200)
        assert.equal((await api.post('/v1/customers', { companyName: 'Before' })).status, 201)

        await proxy.stop()
        let started = Date.now()
        assertUnavailable(await api.get('/v1/customers'), 'list while stopped')
        assertUnavailable(await api.post('/v1/customers', { companyName: 'During' }), 'create while stopped')
        assertUnavailable(await client.get('/ready'), '/ready while stopped')
        assert.ok(Date.now() - started < 3000, `refused connections answer at once (${Date.now() - started} ms)`)

        // A host that accepts and never answers: the pool's acquire timeout bounds the wait.
        await proxy.start({ unresponsive: true })
        started = Date.now()
        assertUnavailable(await api.get('/v1/customers'), 'list while unresponsive')
        const waited = Date.now() - started
        assert.ok(
          waited < DEFAULT_TIMEOUTS.acquireTimeoutMs + SLACK_MS,
          `unresponsive database answered after ${waited} ms`
        )

        await proxy.stop()
        await proxy.start()
        const back = await eventually(
          () => api.get('/v1/customers'),
          (res) => res.status === 200
        )
        assert.equal(back.status, 200, `recovered: ${back.text}`)
        assert.deepEqual(
          back.body.items.map((c: any) => c.companyName),
          ['Before'],
          'nothing of the failed create was stored'
        )
        assert.equal((await api.post('/v1/customers', { companyName: 'After' })).status, 201)
        assert.equal((await client.get('/ready')).status, 200)
      } finally {
        await app.teardown()
        await proxy.stop()
      }
    })
  } else {
    // An embedded database cannot become unreachable while the process holds it open; its outage
    // is another process holding the write lock. Writers answer 503 after the busy timeout; reads
    // answer on their own connections (WAL: the lock holds back writers only); all work again once
    // the lock is gone.
    it('database locked by another process: 503 within the timeouts, recovery without a restart', async function () {
      const timeouts = { statementTimeoutMs: 2000, acquireTimeoutMs: 2000 }
      const { app, http: client } = await dedicatedApp(suite.db.url, timeouts)
      const locker = createKnex(suite.db.url)
      try {
        const company = await suite.company()
        const api = client.withKey(company.apiKey)
        assert.equal((await api.post('/v1/customers', { companyName: 'Before' })).status, 201)
        await locker.raw('BEGIN EXCLUSIVE')
        const started = Date.now()
        assertUnavailable(await api.post('/v1/customers', { companyName: 'During' }), 'create while locked')
        assert.ok(
          Date.now() - started < timeouts.statementTimeoutMs + SLACK_MS,
          `answered after ${Date.now() - started} ms`
        )
        const read = await api.get('/v1/customers')
        assert.equal(read.status, 200, `a read while locked: ${read.text}`)
        assert.deepEqual(
          read.body.items.map((c: any) => c.companyName),
          ['Before']
        )
        await locker.raw('COMMIT')
        assert.equal((await api.post('/v1/customers', { companyName: 'After' })).status, 201)
        const names = (await api.get('/v1/customers')).body.items.map((c: any) => c.companyName)
        assert.deepEqual(names, ['Before', 'After'])
      } finally {
        await locker.destroy()
        await app.teardown()
      }
    })
  }

  /** A POST whose body is sent in two parts, so the request is in flight until `finish()`. */
  function slowCreate(url: string, apiKey: string, body: string) {
    const req = http.request(`${url}/v1/customers`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body)
      }
    })
    const response = new Promise<{ status: number; body: any }>((resolve, reject) => {
      req.on('response', (res) => {
        let text = ''
        res.on('data', (chunk) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }))
      })
      req.on('error', reject)
    })
    req.write(body.slice(0, 10))
    return { response, finish: () => req.end(body.slice(10)) }
  }

  const refusesConnections = (port: number) =>
    new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1')
      socket.once('connect', () => (socket.destroy(), resolve(false)))
      socket.once('error', () => resolve(true))
    })

  /** A database of its own for the served process, and how to see whether its pool was closed. */
  async function serveDatabase() {
    if (suite.db.name === 'sqlite') {
      const file = path.join(ROOT, '.tmp', 'test', `sigterm-${process.pid}.sqlite`)
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true })
      const url = `sqlite://${file}`
      const created = await runCli(
        [
          'company',
          'create',
          '--name',
          'Sigterm',
          '--country',
          'DE',
          '--admin-email',
          `sigterm-${process.pid}@example.test`,
          '--json'
        ],
        { DATABASE_URL: url, DATA_DIR: suite.server().app.get('dataDir') }
      )
      assert.equal(created.code, 0, created.stderr)
      return {
        url,
        apiKey: JSON.parse(created.stdout).apiKey as string,
        // SQLite checkpoints and deletes the WAL file when its last connection closes cleanly.
        poolOpen: async () => fs.existsSync(`${file}-wal`),
        cleanup: () => ['', '-wal', '-shm'].forEach((suffix) => fs.rmSync(file + suffix, { force: true }))
      }
    }
    const name = `crewclock-sigterm-${process.pid}`
    const u = new URL(suite.db.url)
    u.searchParams.set('application_name', name)
    const countOf = async () =>
      Number(
        (await suite.server().knex.raw('select count(*) as n from pg_stat_activity where application_name = ?', [name]))
          .rows[0].n
      )
    return {
      url: u.toString(),
      apiKey: (await suite.company()).apiKey,
      poolOpen: async () => (await countOf()) > 0,
      cleanup: () => undefined
    }
  }

  it('SIGTERM: stops accepting, finishes the request in flight, closes the pool and exits 0', async function () {
    const db = await serveDatabase()
    const dataDir = path.join(ROOT, '.tmp', 'test', `sigterm-data-${process.pid}`)
    const served = await startServe({
      DATABASE_URL: db.url,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      UPLOADS_DIR: path.join(dataDir, 'uploads')
    })
    try {
      const port = Number(new URL(served.url).port)
      const api = new HttpClient(served.url, db.apiKey)
      assert.equal((await api.post('/v1/customers', { companyName: 'Before stop' })).status, 201)
      assert.ok(await db.poolOpen(), 'the pool holds a connection while serving')

      const exited = new Promise<number | null>((resolve) => served.child.once('exit', (code) => resolve(code)))
      const inFlight = slowCreate(served.url, db.apiKey, JSON.stringify({ companyName: 'In flight at SIGTERM' }))
      await sleep(300)
      served.child.kill('SIGTERM')
      const refused = await eventually(
        () => refusesConnections(port),
        (yes) => yes
      )
      assert.ok(refused, 'no new connections after SIGTERM')
      inFlight.finish()
      const res = await inFlight.response
      assert.equal(res.status, 201, JSON.stringify(res.body))
      assert.equal(res.body.companyName, 'In flight at SIGTERM')
      assert.equal(await exited, 0, served.output())
      assert.equal(await eventually(db.poolOpen, (open) => !open), false, 'the pool was closed')
    } finally {
      served.child.kill('SIGKILL')
      db.cleanup()
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it('an injected failure at any statement of any write leaves no row and no file behind', async function () {
    this.timeout(240000)
    const server = suite.server()
    const operations = await loadOperations(server)
    const seed = await seedCompany(server, await suite.company(), operations)
    // Later than the seed's records, so new time entries and absences do not overlap them.
    const ctx = { ...seed.ctx, time: seed.ctx.time + 3 * 3600 * 1000 }
    const send = (op: Operation, patch?: Json) => {
      const resource = op.registered!.resource
      if (op.kind === 'create')
        return postRecord(seed, op, op.bodyType === 'json' ? multiRowBody(resource, 'create', ctx) : undefined)
      if (op.kind === 'patch')
        return seed.company.api.patch(urlOf(op.template, seed), patch ?? multiRowBody(resource, 'patch', ctx))
      return seed.company.api.delete(urlOf(op.template, seed))
    }
    const opsOf = (kind: string, created: boolean) =>
      seed.records
        .filter((r) => r.created || !created)
        .flatMap((r) => operations.filter((op) => op.kind === kind && op.registered === r.registered))
    /** Every value of every enum field a PATCH takes, in declared order: workflow moves such as a week's status fan-out. */
    const moves = opsOf('patch', false).flatMap((op) =>
      Object.entries<Json>((op.registered!.resource.patchSchema as Json).properties).flatMap(([name, prop]) =>
        (nonNull(prop).enum ?? []).map((value: string) => ({ op, patch: { [name]: value } as Json }))
      )
    )
    const writes: { op: Operation; patch?: Json }[] = [
      ...opsOf('create', true).map((op) => ({ op })),
      ...opsOf('patch', true).map((op) => ({ op })),
      ...opsOf('remove', true)
        .reverse()
        .map((op) => ({ op })),
      ...moves
    ]
    const injector = new FaultInjector(server.knex)
    const statementsOf = new Map<string, number>()
    try {
      for (const { op, patch } of writes) {
        const what = patch ? `${label(op)} ${JSON.stringify(patch)}` : label(op)
        const baseline = await snapshotCompany(server, seed.company.id)
        for (let n = 1; ; n++) {
          assert.ok(n < 500, `${what}: no end to its statements`)
          injector.arm(n)
          const res = await send(op, patch)
          injector.disarm()
          if (!injector.fired) {
            // Every statement has failed once: this run is the write as it really goes.
            assert.ok(res.status < 500, `${what} without a fault: ${res.status} ${res.text.slice(0, 300)}`)
            statementsOf.set(`${what} → ${res.status}`, injector.statements.filter((s) => s.write).length)
            break
          }
          const failed = injector.statements[n - 1].sql
          assert.equal(res.status, 500, `${what}, statement ${n} failing (${failed}): ${res.text.slice(0, 300)}`)
          assert.equal(res.body.message, 'Internal error')
          const changed = changedTables(baseline, await snapshotCompany(server, seed.company.id))
          assert.deepEqual(changed, [], `${what}: statement ${n} (${failed}) failed, yet these changed`)
        }
      }
    } finally {
      injector.uninstall()
    }
    const multiRow = [...statementsOf].filter(([, writesCount]) => writesCount >= 2)
    assert.ok(multiRow.length >= 3, `multi-row writes were among them: ${JSON.stringify([...statementsOf])}`)
    for (const kind of ['create', 'patch', 'remove'])
      assert.ok(
        [...statementsOf.keys()].some((k) => k.startsWith({ create: 'POST', patch: 'PATCH', remove: 'DELETE' }[kind]!)),
        kind
      )
  })
})
