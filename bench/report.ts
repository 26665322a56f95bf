import type { Engine } from './datasets'
import type { EngineResult, RunResult } from './run'

/**
 * The targets of issue #22: each scenario's req/s as a ratio to the platform of the same run
 * and engine (absolute figures are noisy here), the server CPU per POST time entry on the full
 * data set, the carry chain of 25 months, and the lists at scale.
 */
export const TARGETS = {
  getRatio: 0.15,
  listRatio: 0.5,
  postTimeEntryRatio: 0.3,
  patchWeekRatio: 0.3,
  postTimeEntryCpuMs: 2,
  carryChainMedianMs: 2,
  readP99Ms: 50,
  listScale: 1.25
}

export interface TargetCheck {
  engine: Engine
  workers?: number
  target: string
  value: number | string
  limit: string
  met: boolean
}

const LISTS = ['list-assignments', 'list-assignments-like', 'list-assignments-search', 'list-time-entries-month']
const RATIOS: Record<string, number> = {
  'get-assignment': TARGETS.getRatio,
  ...Object.fromEntries(LISTS.map((name) => [name, TARGETS.listRatio])),
  'post-time-entry': TARGETS.postTimeEntryRatio,
  'patch-week-status': TARGETS.patchWeekRatio
}

export function evaluateTargets(engines: EngineResult[]): TargetCheck[] {
  const checks: TargetCheck[] = []
  for (const result of engines) {
    const { engine } = result
    for (const run of result.runs) {
      const { workers } = run
      for (const s of run.scenarios) {
        const limit = RATIOS[s.name]
        if (limit !== undefined && s.ratio !== undefined) {
          checks.push({
            engine,
            workers,
            target: `${s.name}: service ÷ platform req/s`,
            value: s.ratio,
            limit: `≥ ${limit}`,
            met: s.ratio >= limit
          })
        }
        if (s.name === 'post-time-entry' && result.seed.counts.time_entries >= 1_000_000) {
          checks.push({
            engine,
            workers,
            target: `server CPU per POST time entry, ${result.seed.counts.time_entries} entries (ms)`,
            value: s.service.cpuPerRequestMs,
            limit: `≤ ${TARGETS.postTimeEntryCpuMs}`,
            met: s.service.cpuPerRequestMs <= TARGETS.postTimeEntryCpuMs
          })
        }
        const failed = s.service.non2xx + s.service.errors
        checks.push({
          engine,
          workers,
          target: `${s.name} answers without errors`,
          value: failed,
          limit: '= 0 non-2xx',
          met: failed === 0
        })
        if (s.kind === 'read') {
          checks.push({
            engine,
            workers,
            target: `${s.name} p99 (ms)`,
            value: s.service.p99,
            limit: `< ${TARGETS.readP99Ms}`,
            met: s.service.p99 < TARGETS.readP99Ms
          })
        }
      }
    }
    for (const row of result.scale ?? []) {
      // A list whose matches grow with the table (a word in every twelfth name) must count them all
      // for the exact `total` (CONTRACT §3.1): its ratio is reported with its matches.
      const matches = row.fullMatches !== undefined ? ` (matches ${row.fullMatches} vs ${row.smallMatches})` : ''
      checks.push({
        engine,
        workers: 1,
        target: `${row.name} mean latency, 1M ÷ 10k rows${matches}`,
        value: row.ratio,
        limit: `≤ ${TARGETS.listScale}`,
        met: row.ratio <= TARGETS.listScale
      })
    }
    const chain = result.carryChain
    if (chain && 'medianMs' in chain) {
      checks.push({
        engine,
        target: `carry chain of ${chain.months} months, median of warm runs (ms)`,
        value: chain.medianMs,
        limit: `≤ ${TARGETS.carryChainMedianMs}`,
        met: chain.medianMs <= TARGETS.carryChainMedianMs
      })
    }
  }
  return checks
}

const pad = (value: unknown, width: number) => String(value ?? '').padStart(width)

export function printRun(engine: Engine, run: RunResult) {
  const lines = [
    `\n${engine}, ${run.workers} worker(s): mean of the rounds; CPU/req = server CPU ms per request`,
    `${'scenario'.padEnd(26)}${pad('req/s', 9)}${pad('p50', 7)}${pad('p99', 7)}${pad('CPU/req', 8)} | ${pad('platform', 9)}${pad('p50', 7)}${pad('p99', 7)}${pad('CPU/req', 8)} | ${pad('ratio', 6)} | non-2xx | others' CPU`
  ]
  for (const s of run.scenarios) {
    const b = s.platform
    lines.push(
      `${s.name.padEnd(26)}${pad(s.service.requestsPerSecond, 9)}${pad(s.service.p50, 7)}${pad(s.service.p99, 7)}${pad(s.service.cpuPerRequestMs, 8)} | ` +
        `${pad(b?.requestsPerSecond ?? '-', 9)}${pad(b?.p50 ?? '-', 7)}${pad(b?.p99 ?? '-', 7)}${pad(b?.cpuPerRequestMs ?? '-', 8)} | ${pad(s.ratio ?? '-', 6)} | ` +
        `${pad(s.service.non2xx + s.service.errors, 7)} | ${Math.round(s.service.load.othersShare * 100)} %`
    )
  }
  const befores = run.scenarios.filter((s) => s.before)
  if (befores.length) {
    lines.push(`\nbefore → after (the --before-root checkout and this one, same rounds)`)
    lines.push(`${'scenario'.padEnd(26)}${pad('req/s', 20)}${pad('p50 (ms)', 18)}${pad('CPU/req (ms)', 22)}`)
    for (const s of befores) {
      const b = s.before!
      lines.push(
        `${s.name.padEnd(26)}${pad(`${b.requestsPerSecond} → ${s.service.requestsPerSecond}`, 20)}${pad(`${b.p50} → ${s.service.p50}`, 18)}` +
          `${pad(`${b.cpuPerRequestMs} → ${s.service.cpuPerRequestMs}`, 22)}`
      )
    }
  }
  const same = run.scenarios.filter((s) => s.sameStack)
  if (same.length) {
    lines.push(`\nsame stack (bench/baseline.ts): service ÷ same-stack req/s`)
    for (const s of same)
      lines.push(`  ${s.name.padEnd(26)}${pad(s.sameStack!.requestsPerSecond, 9)}  ratio ${s.sameStackRatio}`)
  }
  process.stdout.write(lines.join('\n') + '\n')
}

export function printTargets(checks: TargetCheck[]) {
  const lines = ['\ntargets:']
  for (const c of checks) {
    lines.push(
      `  ${c.met ? 'PASS' : 'FAIL'} ${c.engine}${c.workers ? ` ×${c.workers}` : ''}  ${c.target}: ${c.value} (${c.limit})`
    )
  }
  process.stdout.write(lines.join('\n') + '\n')
}

export interface Scaling {
  name: string
  /** req/s with one worker and with the most workers measured. */
  one: number
  many: number
  workers: number
  factor: number
  baselineFactor?: number
}

/** How each scenario scales from one worker to the most measured (the machine's cores). */
export function scalingOf(result: EngineResult): Scaling[] {
  const one = result.runs.find((r) => r.workers === 1)
  const many = [...result.runs].sort((a, b) => b.workers - a.workers)[0]
  if (!one || !many || many === one) return []
  const round = (x: number) => Math.round(x * 100) / 100
  return one.scenarios.flatMap((s) => {
    const m = many.scenarios.find((x) => x.name === s.name)
    if (!m) return []
    const baselineFactor =
      s.platform && m.platform ? round(m.platform.requestsPerSecond / s.platform.requestsPerSecond) : undefined
    return [
      {
        name: s.name,
        one: s.service.requestsPerSecond,
        many: m.service.requestsPerSecond,
        workers: many.workers,
        factor: round(m.service.requestsPerSecond / s.service.requestsPerSecond),
        baselineFactor
      }
    ]
  })
}

export function printScaling(engine: Engine, rows: Scaling[]) {
  if (rows.length === 0) return
  const lines = [
    `\n${engine}: scaling from 1 to ${rows[0].workers} workers (service req/s; the platform's factor for comparison)`
  ]
  for (const r of rows)
    lines.push(
      `  ${r.name.padEnd(26)}${pad(r.one, 9)} → ${pad(r.many, 9)}  ×${r.factor}${r.baselineFactor ? `  (platform ×${r.baselineFactor})` : ''}`
    )
  process.stdout.write(lines.join('\n') + '\n')
}
