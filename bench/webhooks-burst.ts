import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import knex from 'knex'
import { serveCheckout } from './processes'
import { appendEvents } from '../src/events/event-log'

/**
 * `npx tsx bench/webhooks-burst.ts [--pg-url postgres://...] [--events 10000] [--rounds 6] [--window 4]`
 *
 * What a webhook delivery burst costs the API (docs/performance.md, "Webhook delivery burst"):
 * one `crewclock serve` with delivery on, three subscriptions (two to a receiver on 127.0.0.1
 * that answers 200 at once, one to a path that answers 500), and a steady read load
 * (`GET /v1/customers`, autocannon). Once `--events` events are in the log, the load runs in
 * windows, alternately while the receivers hold their answers (the sender waits) and while they
 * answer at once (the sender drains, paced); printed: requests per second and latency of both
 * kinds of window, and how long the rest of the burst took once the load stopped.
 */
const { values: args } = parseArgs({
  options: {
    'pg-url': { type: 'string' },
    events: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '6' },
    window: { type: 'string', default: '4' },
    connections: { type: 'string', default: '10' }
  }
})
const ROOT = path.join(__dirname, '..')
const EVENTS = Number(args.events)
const ROUNDS = Number(args.rounds)
const WINDOW_S = Number(args.window)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crewclock-webhooks-bench-'))
const databaseUrl = args['pg-url'] ?? `sqlite://${path.join(dir, 'db.sqlite')}`
const env = {
  ...process.env,
  NODE_ENV: 'test',
  NODE_CONFIG_DIR: path.join(ROOT, 'config'),
  CREWCLOCK_FROM_SOURCE: '1',
  DATABASE_URL: databaseUrl,
  DATA_DIR: dir,
  REDIS_URL: '',
  WEBHOOKS_DELIVER: 'true',
  WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
  // The burst is written to the log directly, as one transaction would: no service event wakes the sender.
  WEBHOOKS_POLL_MS: '1000'
}
const log = (line: string) => process.stdout.write(line + '\n')

/**
 * Counts what arrives per path; `/failing` answers 500. While `hold` is on, answers wait until it
 * is turned off: the sender then has deliveries queued but waits for its attempts under way.
 */
async function receiver() {
  const counts = new Map<string, number>()
  const held: (() => void)[] = []
  const state = {
    counts,
    holding: false,
    hold(on: boolean) {
      state.holding = on
      if (!on) for (const release of held.splice(0)) release()
    }
  }
  const server = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      const answer = () => {
        counts.set(req.url!, (counts.get(req.url!) ?? 0) + 1)
        res.writeHead(req.url === '/failing' ? 500 : 200).end()
      }
      if (state.holding && req.url !== '/failing') held.push(answer)
      else answer()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return Object.assign(state, { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, server })
}

/** CPU seconds the server process has used so far (Linux: /proc/<pid>/stat, utime + stime). */
function cpuSeconds(pid: number) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

interface Measured {
  rps: number
  p50: number
  p99: number
  non2xx: number
  cpu: number
}

const delivered = (target: { counts: Map<string, number> }) =>
  (target.counts.get('/a') ?? 0) + (target.counts.get('/b') ?? 0)

async function load(url: string, apiKey: string, pid: number, seconds: number): Promise<Measured> {
  const cpuBefore = cpuSeconds(pid)
  const result = await autocannon({
    url: `${url}/v1/customers?size=10`,
    connections: Number(args.connections),
    duration: seconds,
    headers: { authorization: `Bearer ${apiKey}` }
  })
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    cpu: (cpuSeconds(pid) - cpuBefore) / seconds
  }
}

async function main() {
  const bin = path.join(ROOT, 'bin', 'crewclock')
  const migrated = spawnSync(process.execPath, [bin, 'migrate'], { env, cwd: ROOT, encoding: 'utf8' })
  if (migrated.status !== 0) throw new Error(migrated.stderr)
  const made = spawnSync(
    process.execPath,
    [bin, 'company', 'create', '--name', 'Burst', '--country', 'DE', '--admin-email', 'b@example.test', '--json'],
    { env, cwd: ROOT, encoding: 'utf8' }
  )
  const { apiKey, companyId } = JSON.parse(made.stdout)
  const db = knex({
    client: databaseUrl.startsWith('sqlite') ? 'sqlite3' : 'pg',
    connection: databaseUrl.startsWith('sqlite') ? { filename: databaseUrl.slice('sqlite://'.length) } : databaseUrl,
    useNullAsDefault: true
  })
  const target = await receiver()
  const { child, url } = await serveCheckout(
    ROOT,
    env,
    process.env.SERVE_NODE_FLAGS ? process.env.SERVE_NODE_FLAGS.split(' ') : []
  )
  const api = (method: string, route: string, body?: unknown) =>
    fetch(url + route, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body)
    }).then((res) => res.json())
  try {
    for (let i = 0; i < 50; i++) await api('POST', '/v1/customers', { companyName: `Customer ${i}` })
    for (const to of ['/a', '/b', '/failing'])
      await api('POST', '/v1/webhook-subscriptions', { url: target.url + to, types: ['customers.created'] })
    const [sample] = await db('customers').where({ company_id: companyId }).limit(1)

    await load(url, apiKey, child.pid!, 5) // warm-up
    // Appended as the service appends (on PostgreSQL under the company's log lock, shared).
    await db.transaction((trx) =>
      appendEvents(
        trx,
        companyId,
        Array.from({ length: EVENTS }, () => ({ type: 'customers.created', scope: 'customers', data: sample })),
        { actor: { system: true }, requestId: 'bench' }
      )
    )
    // Written in one transaction here, the burst would leave SQLite a WAL of some megabytes that every
    // later commit tries to checkpoint; written by requests, it is checkpointed as it grows.
    if (databaseUrl.startsWith('sqlite')) await db.raw('PRAGMA wal_checkpoint(TRUNCATE)')
    const started = Date.now()
    // Windows of the same load, alternately with the receivers holding their answers (the sender
    // waits, its queues full) and answering at once (the sender works, paced): the machine's other
    // load falls on both alike.
    const quiet: Measured[] = []
    const draining: Measured[] = []
    const deliveredBefore = delivered(target)
    for (let round = 0; round < ROUNDS; round++) {
      target.hold(true)
      quiet.push(await load(url, apiKey, child.pid!, WINDOW_S))
      target.hold(false)
      draining.push(await load(url, apiKey, child.pid!, WINDOW_S))
    }
    const deliveredDuring = delivered(target) - deliveredBefore
    const loadEnded = Date.now()
    while ((target.counts.get('/a') ?? 0) < EVENTS || (target.counts.get('/b') ?? 0) < EVENTS)
      await new Promise((resolve) => setTimeout(resolve, 100))
    const drainedMs = Date.now() - loadEnded

    const mean = (runs: Measured[], key: keyof Measured) => runs.reduce((sum, m) => sum + m[key], 0) / runs.length
    const row = (name: string, runs: Measured[]) =>
      `| ${name} | ${mean(runs, 'rps').toFixed(0)} | ${mean(runs, 'p50').toFixed(1)} | ${mean(runs, 'p99').toFixed(1)} | ${mean(runs, 'non2xx')} | ${(mean(runs, 'cpu') * 100).toFixed(0)} % |`
    log(
      `\n${databaseUrl.startsWith('sqlite') ? 'SQLite' : 'PostgreSQL'}, ${EVENTS} events to 3 subscriptions (one failing), ` +
        `GET /v1/customers with ${args.connections} connections, ${ROUNDS} x ${WINDOW_S} s windows each, alternating; means`
    )
    log('| windows | req/s | p50 ms | p99 ms | non-2xx | server CPU |')
    log('|---|---|---|---|---|---|')
    log(row('sender waiting (answers held)', quiet))
    log(row('sender draining (paced)', draining))
    const ratios = draining.map((m, i) => m.rps / quiet[i].rps).sort((a, b) => a - b)
    log(
      `\nrequests per second while draining / while waiting: ${((mean(draining, 'rps') / mean(quiet, 'rps')) * 100).toFixed(1)} % ` +
        `(per pair: ${ratios.map((r) => (r * 100).toFixed(0)).join(', ')} %)`
    )
    log(
      `deliveries during the load: ${deliveredDuring} (${(deliveredDuring / (ROUNDS * WINDOW_S)).toFixed(0)} per second of draining windows)`
    )
    log(
      `the rest, ${2 * EVENTS - deliveredDuring - deliveredBefore}, reached both healthy receivers ${(drainedMs / 1000).toFixed(1)} s after the load stopped`
    )
    log(
      `attempts to the failing subscription: ${target.counts.get('/failing') ?? 0} (${((Date.now() - started) / 1000).toFixed(0)} s in all)`
    )
  } finally {
    child.kill('SIGTERM')
    await new Promise((resolve) => child.once('exit', resolve))
    target.server.close()
    await db.destroy()
    if (!args['pg-url']) fs.rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
