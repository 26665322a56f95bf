import { fork } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import type { AddressInfo } from 'node:net'
import { parseArgs } from 'node:util'
import knex from 'knex'
import type { Knex } from 'knex'
import { createApp } from '../src/app'
import { migrateLatest } from '../src/db/migrations'
import { createCompany } from '../src/companies/create-company'

/**
 * `npm run soak [-- --minutes 10] [--pg postgres://...] [--concurrency 8]` (or SOAK_MINUTES)
 *
 * Serves crewclock in this process on a fresh database (SQLite; PostgreSQL with --pg, a new
 * database on that server) and drives it from a child process with a bounded loop of mixed
 * reads and writes against 127.0.0.1: the life of a work order (customer, assignment, event with
 * crew, time entry, patches, lists, deletes) in two companies. The server's heap is sampled after
 * a forced GC; the child has its own heap, so the load does not count. Prints the errors (any
 * unexpected status or failed request) and the heap growth from the end of the warm-up to the
 * end; exits non-zero when there was an error or the heap grew by 10 % or more.
 */

interface Tally {
  requests: number
  errors: number
  samples: string[]
  byAction: Record<string, number>
}

const MAX_GROWTH = 0.1
const SAMPLE_MS = 2000

// ---------------------------------------------------------------------------------------------
// The load: a child process, one loop per concurrent client

const HOUR = 3600 * 1000

async function driver(base: string, keys: string[], concurrency: number, until: number) {
  const tally: Tally = { requests: 0, errors: 0, samples: [], byAction: {} }

  async function call(
    key: string,
    action: string,
    method: string,
    url: string,
    expected: number,
    body?: unknown
  ): Promise<any> {
    tally.requests++
    tally.byAction[action] = (tally.byAction[action] ?? 0) + 1
    try {
      const res = await fetch(base + url, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' })
        },
        body: body === undefined ? undefined : JSON.stringify(body)
      })
      const text = await res.text()
      if (res.status !== expected) throw new Error(`${res.status}: ${text.slice(0, 300)}`)
      return text ? JSON.parse(text) : undefined
    } catch (error) {
      tally.errors++
      if (tally.samples.length < 10) tally.samples.push(`${action} ${method} ${url}: ${(error as Error).message}`)
      return undefined
    }
  }

  async function client(n: number) {
    const key = keys[n % keys.length]
    const user = await call(key, 'setup', 'POST', '/v1/users', 201, {
      fullName: `Soak worker ${n}`,
      email: `soak-${process.pid}-${n}@example.test`
    })
    const gang = await call(key, 'setup', 'POST', '/v1/gangs', 201, {
      name: `Crew ${n}`,
      userIds: user ? [user.id] : []
    })
    const eventType = (await call(key, 'setup', 'GET', '/v1/assignment-event-types', 200))?.items[0]
    const entryType = (await call(key, 'setup', 'GET', '/v1/time-entry-types', 200, undefined))?.items.find(
      (t: any) => !t.isUnassigned
    )
    if (!user || !gang || !eventType || !entryType) return
    // Each client books its own user's time, an hour later every round: no overlaps.
    let clock = Date.parse('2026-01-05T06:00:00Z')
    for (let round = 0; Date.now() < until; round++) {
      const customer = await call(key, 'customer', 'POST', '/v1/customers', 201, {
        companyName: `Soak ${n}-${round}`,
        billingAddress: { city: 'Berlin' }
      })
      if (!customer) continue
      await call(key, 'read', 'GET', '/v1/customers?size=20&$sort[id]=-1', 200)
      await call(key, 'read', 'GET', `/v1/customers/${customer.id}`, 200)
      await call(key, 'customer', 'PATCH', `/v1/customers/${customer.id}`, 200, { number: `S-${n}-${round}` })
      const assignment = await call(key, 'assignment', 'POST', '/v1/assignments', 201, {
        name: `Job ${round}`,
        customerId: customer.id
      })
      const startsAt = new Date(clock).toISOString()
      const endsAt = new Date(clock + HOUR / 2).toISOString()
      const event =
        assignment &&
        (await call(key, 'event', 'POST', '/v1/assignment-events', 201, {
          assignmentId: assignment.id,
          typeId: eventType.id,
          startsAt,
          endsAt,
          assignedUsers: [user.id],
          assignedGangs: [gang.id],
          addressDestination: 'customer'
        }))
      await call(key, 'read', 'GET', `/v1/assignment-events?assignmentId=${assignment?.id ?? 0}`, 200)
      await call(key, 'read', 'GET', `/v1/assignment-events?assignedUserId=${user.id}&size=5`, 200)
      if (event)
        await call(key, 'event', 'PATCH', `/v1/assignment-events/${event.id}`, 200, {
          note: 'on site',
          completedAt: true
        })
      const entry = await call(key, 'time', 'POST', '/v1/time-entries', 201, {
        userId: user.id,
        typeId: entryType.id,
        startsAt,
        endsAt
      })
      await call(
        key,
        'read',
        'GET',
        `/v1/time-entries?userId=${user.id}&startsAt[$gte]=${encodeURIComponent(startsAt)}`,
        200
      )
      if (entry) await call(key, 'time', 'PATCH', `/v1/time-entries/${entry.id}`, 200, { note: 'done' })
      if (round % 10 === 0) await call(key, 'read', 'GET', '/v1/assignments/spec', 200)
      // Deleting what the round made keeps the data set (and the lists) the same size.
      if (entry) await call(key, 'time', 'DELETE', `/v1/time-entries/${entry.id}`, 204)
      if (event) await call(key, 'event', 'DELETE', `/v1/assignment-events/${event.id}`, 204)
      if (assignment) await call(key, 'assignment', 'DELETE', `/v1/assignments/${assignment.id}`, 204)
      await call(key, 'customer', 'DELETE', `/v1/customers/${customer.id}`, 204)
      clock += HOUR
    }
  }

  await Promise.all(Array.from({ length: concurrency }, (_v, n) => client(n)))
  return tally
}

// ---------------------------------------------------------------------------------------------
// The server and the report

async function freshDatabase(pgUrl: string | undefined): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!pgUrl) {
    const dir = path.resolve('.tmp', 'soak')
    fs.mkdirSync(dir, { recursive: true })
    const file = path.join(dir, `soak-${process.pid}.sqlite`)
    const drop = async () => ['', '-wal', '-shm'].forEach((suffix) => fs.rmSync(file + suffix, { force: true }))
    await drop()
    return { url: `sqlite://${file}`, drop }
  }
  const name = `crewclock_soak_${process.pid}`
  const admin = async (sql: string) => {
    const db = knex({ client: 'pg', connection: pgUrl })
    try {
      await db.raw(sql)
    } finally {
      await db.destroy()
    }
  }
  await admin(`CREATE DATABASE ${name}`)
  const u = new URL(pgUrl)
  u.pathname = `/${name}`
  return { url: u.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`

function heapAfterGc() {
  global.gc?.()
  return process.memoryUsage().heapUsed
}

async function main() {
  const { values: args } = parseArgs({
    options: {
      minutes: { type: 'string', default: process.env.SOAK_MINUTES ?? '10' },
      pg: { type: 'string' },
      concurrency: { type: 'string', default: '8' }
    }
  })
  const minutes = Number(args.minutes)
  const concurrency = Number(args.concurrency)
  if (!(minutes > 0) || !(concurrency > 0)) throw new Error('--minutes and --concurrency must be positive numbers')
  if (!global.gc) throw new Error('run with --expose-gc (npm run soak does)')

  const database = await freshDatabase(args.pg)
  const dataDir = path.resolve('.tmp', 'soak', `data-${process.pid}`)
  const app = createApp({
    redisUrl: '',
    logLevel: 'silent',
    database: { url: database.url },
    dataDir,
    uploads: { dir: path.join(dataDir, 'uploads') },
    security: { cors: { origins: [] }, rateLimit: { authFailures: { points: 1_000_000, duration: 60 }, perKey: 0 } }
  } as any)
  const db = app.get('knex' as any) as Knex
  let exitCode = 1
  try {
    await migrateLatest(db)
    const keys: string[] = []
    for (const country of ['DE', 'IT']) {
      const created = await createCompany(db, app.get('appSecret'), {
        name: `Soak ${country}`,
        country,
        adminEmail: `soak-admin-${country}-${process.pid}@example.test`
      })
      keys.push(created.apiKey)
    }
    const server = await app.listen(0, '127.0.0.1')
    if (!server.listening) await new Promise((resolve) => server.once('listening', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const started = Date.now()
    const until = started + minutes * 60_000
    const warmUpEnd = started + Math.min(60_000, minutes * 60_000 * 0.25)
    console.log(`soak: ${minutes} min, ${concurrency} clients, ${args.pg ? 'PostgreSQL' : 'SQLite'} at ${base}`)

    const child = fork(__filename, ['--driver'], { execArgv: process.execArgv.filter((a) => a !== '--expose-gc') })
    const result = new Promise<Tally>((resolve, reject) => {
      child.once('message', (message) => resolve(message as Tally))
      child.once('exit', (code) => reject(new Error(`the load driver exited with ${code}`)))
    })
    child.send({ base, keys, concurrency, until })

    const samples: { at: number; heap: number }[] = []
    const timer = setInterval(() => samples.push({ at: Date.now(), heap: heapAfterGc() }), SAMPLE_MS)
    const tally = await result
    clearInterval(timer)

    const afterWarmUp = samples.filter((s) => s.at >= warmUpEnd).map((s) => s.heap)
    if (afterWarmUp.length < 10) throw new Error('run longer: too few heap samples after the warm-up')
    const baseline = median(afterWarmUp.slice(0, 5))
    const final = median(afterWarmUp.slice(-5))
    const growth = (final - baseline) / baseline
    const seconds = (Date.now() - started) / 1000
    console.log(
      `requests: ${tally.requests} (${(tally.requests / seconds).toFixed(0)}/s) ${JSON.stringify(tally.byAction)}`
    )
    console.log(`errors: ${tally.errors}`)
    for (const sample of tally.samples) console.log(`  ${sample}`)
    const perMinute = samples.filter((_s, i) => i % Math.round(60_000 / SAMPLE_MS) === 0).map((s) => mib(s.heap))
    console.log(`heap each minute: ${perMinute.join(', ')}`)
    console.log(
      `heap: ${mib(baseline)} after warm-up → ${mib(final)} at the end: ${(growth * 100).toFixed(1)} % (limit ${MAX_GROWTH * 100} %); rss ${mib(process.memoryUsage().rss)}`
    )
    exitCode = tally.errors === 0 && growth < MAX_GROWTH ? 0 : 1
    console.log(exitCode === 0 ? 'soak: passed' : 'soak: FAILED')
  } finally {
    await app.teardown().catch(() => undefined)
    await database.drop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
  process.exit(exitCode)
}

if (process.argv.includes('--driver')) {
  process.once(
    'message',
    async ({
      base,
      keys,
      concurrency,
      until
    }: {
      base: string
      keys: string[]
      concurrency: number
      until: number
    }) => {
      const tally = await driver(base, keys, concurrency, until)
      process.send!(tally, () => process.exit(0))
    }
  )
} else {
  main().catch((error) => {
    console.error(error)
    process.exit(1)
  })
}
