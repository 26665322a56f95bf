import * as prettier from 'prettier'
import autocannon from 'autocannon'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { BENCH_DIR, DATA_DIR, Engine, SCALES } from './datasets'
import { ensureSeeded, SeedInfo } from './seed'
import { BenchRequest, Scenario, SCENARIOS } from './scenarios'
import {
  LoadSample,
  startCheckout,
  startPlatform,
  startSameStack,
  startService,
  Target,
  withLoadSample
} from './processes'
import { workingCopy } from './working-copy'
import { measureCarryChain, CarryChainResult } from './carry-chain'
import { summarizeProfile } from './profile-summary'
import { evaluateTargets, printRun, printScaling, printTargets, Scaling, scalingOf } from './report'
import { Plan, queryPlans } from './plans'
import { DashboardRound, measureDashboardDuringWrites, printDashboardDuringWrites } from './dashboard-during-writes'

const HELP = `npm run bench -- [options]

Seeds (or reuses) the data sets, starts the service and the platform (bench/platform.ts: node:http
and prepared statements written from the contract, nothing of src/), drives each scenario with
autocannon in alternating rounds (platform, service, service, platform) and writes bench/results.json
with the service ÷ platform ratios and the targets of issue #22.

  --pg                 SQLite, then PostgreSQL          --pg-only       PostgreSQL only
  --pg-url URL         server of the PG data sets       --scale small   every scenario on the 10k data set
  --workers 1[,2]      WEB_CONCURRENCY of each side (default 1)
  --connections 50     autocannon connections           --duration 10   seconds of each measured round
  --warmup 3           seconds of warm-up before a side's first round
  --rounds 2           measured rounds per side and scenario (in pairs: P S S P)
  --only a,b           these scenarios only (and the carry chain only if one of them is carry-chain,
                       the dashboard during writes only if one is dashboard-during-writes)
  --no-scale           skip the lists-at-scale check (1M vs 10k rows)
  --before-root DIR    also serve a "before" checkout (e.g. a git worktree of an earlier commit with
                       node_modules linked) in the same rounds, and report before → after
  --same-stack         also measure bench/baseline.ts (node:http on the service's own knex + sqlite3
                       and time-sheet modules: the framework's share only)
  --profile            profile the service (--cpu-prof) instead of measuring
  --service-root DIR   serve the service from another checkout (everything else unchanged)
  --output FILE        default bench/results.json (--profile writes one only when given)
Always set BENCH_COPY=<name> when two checkouts may run at once.`
const { values: args } = parseArgs({
  options: {
    pg: { type: 'boolean', default: false },
    'pg-only': { type: 'boolean', default: false },
    'pg-url': { type: 'string', default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    workers: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '2' },
    'before-root': { type: 'string' },
    'same-stack': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
    only: { type: 'string' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    'no-scale': { type: 'boolean', default: false },
    /** `small` runs every scenario on the 10 000-row data set (a quick check of the harness). */
    scale: { type: 'string', default: 'full' },
    profile: { type: 'boolean', default: false },
    /** Serve from another checkout (before/after in one data set; see StartOptions.root). */
    'service-root': { type: 'string' },
    output: { type: 'string' }
  }
})

if (args.help) {
  process.stdout.write(HELP + '\n')
  process.exit(0)
}

const settings = {
  rounds: Number(args.rounds),
  duration: Number(args.duration),
  warmup: Number(args.warmup),
  connections: Number(args.connections),
  workers: args.workers!.split(',').map(Number)
}
const log = (line: string) => process.stdout.write(line + '\n')
/** The dashboard-during-writes measurement runs in a full run and when `--only` names it. */
const wantsDashboard = () => !args.only || args.only.split(',').includes(DASHBOARD)
const DASHBOARD = 'dashboard-during-writes'

export interface Measurement {
  requestsPerSecond: number
  p50: number
  p99: number
  mean: number
  requests: number
  non2xx: number
  /** How many responses had each status other than 2xx (which ones a side refused, and why to look). */
  refusals?: Record<string, number>
  errors: number
  /** Server CPU time per answered request (all its processes), ms: the cost of a request, whatever else runs. */
  cpuPerRequestMs: number
  load: LoadSample
  /** Each measured round, when several were averaged. */
  rounds?: { requestsPerSecond: number; p50: number; cpuPerRequestMs: number }[]
}

export interface ScenarioResult {
  name: string
  title: string
  kind: Scenario['kind']
  service: Measurement
  platform?: Measurement
  /** service req/s ÷ platform req/s */
  ratio?: number
  /** The before checkout (--before-root), measured in the same rounds. */
  before?: Measurement
  beforeRatio?: number
  /** bench/baseline.ts (--same-stack): service req/s ÷ same-stack req/s. */
  sameStack?: Measurement
  sameStackRatio?: number
  /** Lists: the mean `total` of the first requests of the stream (what the list matches). */
  matches?: number
}

export interface RunResult {
  workers: number
  scenarios: ScenarioResult[]
  /** bench/dashboard-during-writes.ts, when chosen (always without `--only`). */
  dashboardDuringWrites?: DashboardRound[]
}

export interface EngineResult {
  engine: Engine
  seed: { version: string; seconds: number; counts: Record<string, number> }
  runs: RunResult[]
  scale?: {
    name: string
    fullMean: number
    smallMean: number
    fullP50: number
    smallP50: number
    ratio: number
    smallRows: number
    fullMatches?: number
    smallMatches?: number
  }[]
  carryChain?: CarryChainResult
  plans?: Plan[]
  scaling?: Scaling[]
  profile?: { file: string; requests: Record<string, number> }
}

/** Each scenario draws fresh sequence numbers for the whole run, so POSTs never collide. */
const sequences = new Map<string, number>()
const next = (name: string) => {
  const n = sequences.get(name) ?? 0
  sequences.set(name, n + 1)
  return n
}

function cannonRequest(scenario: Scenario, seed: SeedInfo) {
  return {
    setupRequest: (request: autocannon.Request) => {
      const { method, path: requestPath, body } = scenario.request(seed, next(scenario.name))
      return { ...request, method, path: requestPath, body: body === undefined ? undefined : JSON.stringify(body) }
    }
  }
}

async function drive(target: Target, scenario: Scenario, seed: SeedInfo, duration: number) {
  return autocannon({
    url: target.url,
    connections: settings.connections,
    duration,
    timeout: 30,
    headers: { authorization: `Bearer ${seed.companies[0].apiKey}`, 'content-type': 'application/json' },
    requests: [cannonRequest(scenario, seed)]
  })
}

/** The non-2xx statuses of a round and their counts. */
const refusalsOf = (stats: Record<string, { count: number }> | undefined) =>
  Object.fromEntries(
    Object.entries(stats ?? {})
      .filter(([status]) => !status.startsWith('2'))
      .map(([status, { count }]) => [status, count])
  )

async function measure(target: Target, scenario: Scenario, seed: SeedInfo, warmUp = true): Promise<Measurement> {
  if (warmUp && settings.warmup > 0) await drive(target, scenario, seed, settings.warmup)
  const [result, load] = await withLoadSample(target.process.pid!, () =>
    drive(target, scenario, seed, settings.duration)
  )
  return {
    requestsPerSecond: Math.round(result.requests.average * 10) / 10,
    p50: result.latency.p50,
    p99: result.latency.p99,
    mean: Math.round(result.latency.mean * 100) / 100,
    requests: result.requests.total,
    non2xx: result.non2xx,
    refusals: refusalsOf(result.statusCodeStats),
    errors: result.errors + result.timeouts,
    cpuPerRequestMs: Math.round((load.serverCpuMs / Math.max(1, result.requests.total)) * 1000) / 1000,
    load
  }
}

async function call(target: Target, seed: SeedInfo, request: BenchRequest) {
  const response = await fetch(target.url + request.path, {
    method: request.method,
    headers: { authorization: `Bearer ${seed.companies[0].apiKey}`, 'content-type': 'application/json' },
    body: request.body === undefined ? undefined : JSON.stringify(request.body)
  })
  return { status: response.status, body: await response.json().catch(() => null) }
}

/** What a list scenario matches: the mean `total` over the first requests of its stream. */
async function meanMatches(target: Target, seed: SeedInfo, scenario: Scenario, samples = 20) {
  let sum = 0
  for (let n = 0; n < samples; n++) sum += (await call(target, seed, scenario.request(seed, n))).body.total
  return Math.round((sum / samples) * 10) / 10
}

/** Differences in keys and value types (null matches anything; list items by their first one). */
function shapeDifferences(a: unknown, b: unknown, at = ''): string[] {
  if (a === null || b === null) return []
  if (Array.isArray(a) && Array.isArray(b)) return a.length && b.length ? shapeDifferences(a[0], b[0], `${at}[0]`) : []
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)])
    return [...keys].flatMap((k) =>
      k in a && k in b
        ? shapeDifferences((a as any)[k], (b as any)[k], `${at}.${k}`)
        : [`${at}.${k} only in the ${k in a ? 'service' : 'other side'}`]
    )
  }
  return typeof a === typeof b ? [] : [`${at}: ${typeof a} vs ${typeof b}`]
}

/** The platform must answer what the service answers, or the ratio compares different work. */
async function checkShapes(service: Target, baseline: Target, scenarios: Scenario[], seed: SeedInfo) {
  for (const scenario of scenarios.filter((s) => s.platform)) {
    // Writes need distinct requests (two identical time entries would overlap).
    // Far after the measured streams, but on the small set (one user per company) before 2100.
    const n = 100_000 + next(`${scenario.name}-shape`) * 2
    const a = await call(service, seed, scenario.request(seed, n))
    const b = await call(baseline, seed, scenario.request(seed, scenario.kind === 'write' ? n + 1 : n))
    const differences = shapeDifferences(a.body, b.body)
    if (a.status !== b.status || a.status >= 300 || differences.length) {
      throw new Error(
        `${scenario.name}: the ${baseline.name} answers differently (${a.status} vs ${b.status}): ${differences.join('; ')}\n${JSON.stringify(a.body)}`
      )
    }
  }
}

/** Averages one side's measurements of a scenario (its rounds). */
function merge(ms: Measurement[]): Measurement {
  const mean = (f: (m: Measurement) => number, digits = 10) =>
    Math.round((ms.reduce((sum, m) => sum + f(m), 0) / ms.length) * digits) / digits
  const sum = (f: (m: Measurement) => number) => ms.reduce((total, m) => total + f(m), 0)
  const requests = sum((m) => m.requests)
  const serverCpuMs = sum((m) => m.load.serverCpuMs)
  return {
    requestsPerSecond: mean((m) => m.requestsPerSecond),
    p50: mean((m) => m.p50, 100),
    p99: mean((m) => m.p99, 100),
    mean: mean((m) => m.mean, 100),
    requests,
    non2xx: sum((m) => m.non2xx),
    refusals: ms.reduce<Record<string, number>>((all, m) => {
      for (const [status, count] of Object.entries(m.refusals ?? {})) all[status] = (all[status] ?? 0) + count
      return all
    }, {}),
    errors: sum((m) => m.errors),
    cpuPerRequestMs: Math.round((serverCpuMs / Math.max(1, requests)) * 1000) / 1000,
    load: {
      serverCpuMs,
      othersShare: mean((m) => m.load.othersShare, 1000),
      benchShare: mean((m) => m.load.benchShare, 1000),
      loadAverage: mean((m) => m.load.loadAverage, 100)
    },
    rounds: ms.map((m) => ({ requestsPerSecond: m.requestsPerSecond, p50: m.p50, cpuPerRequestMs: m.cpuPerRequestMs }))
  }
}

/**
 * The sides of a scenario in alternating rounds: the order of one pair of rounds is the sides,
 * then the sides reversed (platform, service, service, platform; with a before checkout
 * platform, service, before, before, service, platform), so that a steady drift of the
 * machine's speed cancels in each side's mean. Each side warms up before its first round.
 */
async function measureRounds(sides: Target[], scenario: Scenario, seed: SeedInfo) {
  const order: Target[] = []
  for (let pair = 0; pair < Math.max(1, Math.round(settings.rounds / 2)); pair++)
    order.push(...sides, ...[...sides].reverse())
  const measured = new Map<Target, Measurement[]>(sides.map((side) => [side, []]))
  for (const side of order) {
    const warm = measured.get(side)!.length > 0
    measured.get(side)!.push(await measure(side, scenario, seed, !warm))
  }
  return new Map([...measured].map(([side, ms]) => [side.name, merge(ms)]))
}

const ratioOf = (a: number, b: number) => Math.round((a / b) * 1000) / 1000

async function runWorkers(
  engine: Engine,
  url: string,
  seed: SeedInfo,
  workers: number,
  chosen: Scenario[]
): Promise<RunResult> {
  log(
    `\n${engine}, WEB_CONCURRENCY=${workers}: ${settings.connections} connections, ${settings.warmup} s warm-up, ` +
      `${settings.rounds} rounds of ${settings.duration} s per side`
  )
  const serviceRoot = args['service-root']
  const service = serviceRoot
    ? await startCheckout({ databaseUrl: url, workers, root: serviceRoot, name: 'service' }, log)
    : await startService({ databaseUrl: url, workers })
  const platform = await startPlatform({ databaseUrl: url, workers })
  const before = args['before-root']
    ? await startCheckout({ databaseUrl: url, workers, root: args['before-root'], name: 'before' }, log)
    : undefined
  const sameStack = args['same-stack'] ? await startSameStack({ databaseUrl: url, workers }) : undefined
  const others = [before, sameStack].filter((t): t is Target => t !== undefined)
  try {
    await checkShapes(service, platform, chosen, seed)
    if (sameStack) await checkShapes(service, sameStack, chosen, seed)
    const results: ScenarioResult[] = []
    for (const scenario of chosen) {
      const sides = [...(scenario.platform ? [platform] : []), service, ...others]
      const measured = await measureRounds(sides, scenario, seed)
      const own = measured.get('service')!
      const base = measured.get('platform')
      const beforeM = measured.get('before')
      const same = measured.get('same-stack')
      const result: ScenarioResult = {
        name: scenario.name,
        title: scenario.title,
        kind: scenario.kind,
        service: own,
        platform: base,
        ratio: base ? ratioOf(own.requestsPerSecond, base.requestsPerSecond) : undefined,
        matches: scenario.list ? await meanMatches(service, seed, scenario) : undefined
      }
      if (beforeM) {
        result.before = beforeM
        result.beforeRatio = base ? ratioOf(beforeM.requestsPerSecond, base.requestsPerSecond) : undefined
      }
      if (same) {
        result.sameStack = same
        result.sameStackRatio = ratioOf(own.requestsPerSecond, same.requestsPerSecond)
      }
      results.push(result)
      log(
        `  ${scenario.name}: service ${own.requestsPerSecond} req/s p50 ${own.p50} CPU/req ${own.cpuPerRequestMs} ms` +
          (base
            ? ` | platform ${base.requestsPerSecond} req/s p50 ${base.p50} CPU/req ${base.cpuPerRequestMs} ms | ratio ${result.ratio}`
            : '') +
          (beforeM
            ? ` | before ${beforeM.requestsPerSecond} req/s p50 ${beforeM.p50} CPU/req ${beforeM.cpuPerRequestMs} ms`
            : '') +
          (same ? ` | same-stack ${same.requestsPerSecond} req/s (ratio ${result.sameStackRatio})` : '')
      )
      // A scenario that answers errors measures the errors: say so loudly.
      for (const [who, m] of measured) {
        if (m.non2xx > 0 || m.errors > 0)
          log(
            `  WARNING ${scenario.name}: the ${who} answered ${m.non2xx} non-2xx responses ` +
              `(${Object.entries(m.refusals ?? {})
                .map(([status, count]) => `${count} × ${status}`)
                .join(', ')}) and ${m.errors} errors/timeouts`
          )
      }
    }
    const run: RunResult = { workers, scenarios: results }
    if (wantsDashboard()) {
      run.dashboardDuringWrites = await measureDashboardDuringWrites(
        before ? [service, before] : [service],
        seed,
        next,
        settings.rounds
      )
      printDashboardDuringWrites(engine, run.dashboardDuringWrites, log)
    }
    return run
  } finally {
    await Promise.all([service, platform, ...others].map((t) => t.stop()))
  }
}

/** The list scenarios on the 10 000-row data set, against the same lists on the full one. */
/**
 * Each list at 10 000 rows against the same list at 1 000 000, one worker each, measured back to
 * back in the order full, small, small, full: the machine's speed drifts over a run (a comparison
 * with the full set's first measurement, a quarter of an hour earlier, moved every ratio by 40 %),
 * and the order cancels a steady drift.
 */
async function runScale(engine: Engine, fullSeed: SeedInfo, fullUrl: string, chosen: Scenario[]) {
  const small = await ensureSeeded(engine, SCALES.small, args['pg-url']!, log)
  log(
    `\n${engine}: list latency at ${small.counts.time_entries} vs ${fullSeed.counts.time_entries} time entries (full, small, small, full)`
  )
  const smallUrl = await workingCopy(engine, small, args['pg-url']!)
  const full = await startService({ databaseUrl: fullUrl, workers: 1, root: args['service-root'] })
  const service = await startService({ databaseUrl: smallUrl, workers: 1, root: args['service-root'] })
  const mean = (values: number[]) =>
    Math.round((values.reduce((sum, value) => sum + value, 0) / values.length) * 100) / 100
  try {
    const rows = []
    for (const scenario of chosen.filter((s) => s.list)) {
      const first = await measure(full, scenario, fullSeed)
      const own = [await measure(service, scenario, small), await measure(service, scenario, small)]
      const atFull = [first, await measure(full, scenario, fullSeed)]
      const fullMean = mean(atFull.map((m) => m.mean))
      const smallMean = mean(own.map((m) => m.mean))
      const ratio = Math.round((fullMean / smallMean) * 100) / 100
      const fullMatches = await meanMatches(full, fullSeed, scenario)
      const smallMatches = await meanMatches(service, small, scenario)
      rows.push({
        name: scenario.name,
        fullMean,
        smallMean,
        fullP50: mean(atFull.map((m) => m.p50)),
        smallP50: mean(own.map((m) => m.p50)),
        ratio,
        smallRows: small.counts.time_entries,
        fullMatches,
        smallMatches
      })
      log(
        `  ${scenario.name}: mean ${atFull.map((m) => m.mean).join(' and ')} ms (full) vs ${own.map((m) => m.mean).join(' and ')} ms (small): ${ratio}×; matches ${fullMatches} vs ${smallMatches}`
      )
    }
    return rows
  } finally {
    await Promise.all([full.stop(), service.stop()])
  }
}

async function runProfile(engine: Engine, url: string, seed: SeedInfo, chosen: Scenario[]) {
  const dir = path.join(DATA_DIR, 'profiles', `${engine}-${new Date().toISOString().replace(/[:.]/g, '-')}`)
  fs.mkdirSync(dir, { recursive: true })
  log(`\n${engine}: profiling the service (--cpu-prof) over ${chosen.map((s) => s.name).join(', ')}`)
  const service = await startService({ databaseUrl: url, workers: 1, profileDir: dir, root: args['service-root'] })
  // Requests answered while the profile ran (warm-up included), to put its CPU time per request.
  const requests: Record<string, number> = {}
  try {
    for (const scenario of chosen) {
      const result = await drive(service, scenario, seed, settings.warmup + settings.duration)
      requests[scenario.name] = result.requests.total
      log(`  ${scenario.name}: ${result.requests.total} requests${result.non2xx ? ` (${result.non2xx} non-2xx)` : ''}`)
    }
  } finally {
    await service.stop()
  }
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))
  if (!file) throw new Error(`no profile written to ${dir}`)
  const summary = summarizeProfile(path.join(dir, file))
  fs.writeFileSync(path.join(dir, 'summary.txt'), summary)
  log(summary)
  return { file: path.relative(path.join(BENCH_DIR, '..'), path.join(dir, file)), requests }
}

async function runEngine(engine: Engine): Promise<EngineResult> {
  const seed = await ensureSeeded(engine, SCALES[args.scale as 'full' | 'small'], args['pg-url']!, log)
  const url = await workingCopy(engine, seed, args['pg-url']!)
  const chosen = SCENARIOS.filter((s) => !args.only || args.only.split(',').includes(s.name))
  const result: EngineResult = {
    engine,
    seed: { version: seed.version, seconds: seed.seconds, counts: seed.counts },
    runs: []
  }
  if (args.profile) {
    result.profile = await runProfile(engine, url, seed, chosen)
    return result
  }
  result.plans = await queryPlans(engine, url, seed)
  if (!args.only || args.only.split(',').includes('carry-chain'))
    result.carryChain = await measureCarryChain(url, seed, log)
  for (const workers of settings.workers) result.runs.push(await runWorkers(engine, url, seed, workers, chosen))
  if (!args['no-scale']) result.scale = await runScale(engine, seed, url, chosen)
  return result
}

async function main() {
  const engines: Engine[] = args['pg-only'] ? ['pg'] : args.pg ? ['sqlite', 'pg'] : ['sqlite']
  const startedAt = new Date().toISOString()
  const machine = {
    cpus: os.cpus().length,
    model: os.cpus()[0]?.model,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    loadAverageAtStart: os.loadavg()
  }
  const results = []
  for (const engine of engines) {
    const result = await runEngine(engine)
    results.push(result)
    for (const run of result.runs) printRun(engine, run)
    result.scaling = scalingOf(result)
    printScaling(engine, result.scaling)
  }
  const targets = evaluateTargets(results)
  printTargets(targets)
  const output = {
    startedAt,
    finishedAt: new Date().toISOString(),
    machine,
    settings: { ...settings, profile: args.profile },
    engines: results,
    targets
  }
  // A profile is no measurement: it leaves the committed results alone unless told where to write.
  const file = args.output ?? (args.profile ? null : path.join(BENCH_DIR, 'results.json'))
  if (!file) return log('\nno results file written (a profile; its summary is saved beside it)')
  // Formatted as the lint checks the committed file (prettier), so a new run can be committed as written.
  const json = JSON.stringify(output, null, 2)
  const style = (await prettier.resolveConfig(file)) ?? {}
  fs.writeFileSync(file, await prettier.format(json, { ...style, parser: 'json' }))
  log(`\nwrote ${path.relative(process.cwd(), file)}`)
}

main().catch((error) => {
  process.stderr.write(`bench: ${error.stack ?? error}\n`)
  process.exit(1)
})
