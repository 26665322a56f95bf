import type { Engine } from './datasets'
import type { EngineResult, RunResult } from './run'

/** The issue's targets, as ratios to the baseline of the same run (absolute figures are noisy here). */
export const TARGETS = {
  getRatio: 0.25,
  listRatio: 0.35,
  readP99Ms: 50,
  listScale: 1.25,
  carryChainMedianMs: 20
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

export function evaluateTargets(engines: EngineResult[]): TargetCheck[] {
  const checks: TargetCheck[] = []
  for (const result of engines) {
    const { engine } = result
    for (const run of result.runs) {
      const { workers } = run
      for (const s of run.scenarios) {
        if (s.name === 'get-assignment' && s.ratio !== undefined) {
          checks.push({
            engine,
            workers,
            target: 'GET one ÷ baseline',
            value: s.ratio,
            limit: `≥ ${TARGETS.getRatio}`,
            met: s.ratio >= TARGETS.getRatio
          })
        }
        if (LISTS.includes(s.name) && s.ratio !== undefined) {
          checks.push({
            engine,
            workers,
            target: `${s.name} ÷ baseline`,
            value: s.ratio,
            limit: `≥ ${TARGETS.listRatio}`,
            met: s.ratio >= TARGETS.listRatio
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
        target: `carry chain of ${chain.months} months, median (ms)`,
        value: chain.medianMs,
        limit: `< ${TARGETS.carryChainMedianMs}`,
        met: chain.medianMs < TARGETS.carryChainMedianMs
      })
    }
  }
  return checks
}

const pad = (value: unknown, width: number) => String(value ?? '').padStart(width)

export function printRun(engine: Engine, run: RunResult) {
  const lines = [
    `\n${engine}, ${run.workers} worker(s)`,
    `${'scenario'.padEnd(26)}${pad('req/s', 9)}${pad('p50', 6)}${pad('p99', 6)}${pad('CPU/req', 8)} | ${pad('base req/s', 10)}${pad('p50', 6)}${pad('p99', 6)}${pad('CPU/req', 8)} | ${pad('ratio', 6)} | non-2xx | others' CPU`
  ]
  for (const s of run.scenarios) {
    const b = s.baseline
    lines.push(
      `${s.name.padEnd(26)}${pad(s.service.requestsPerSecond, 9)}${pad(s.service.p50, 6)}${pad(s.service.p99, 6)}${pad(s.service.cpuPerRequestMs, 8)} | ` +
        `${pad(b?.requestsPerSecond ?? '-', 10)}${pad(b?.p50 ?? '-', 6)}${pad(b?.p99 ?? '-', 6)}${pad(b?.cpuPerRequestMs ?? '-', 8)} | ${pad(s.ratio ?? '-', 6)} | ` +
        `${pad(s.service.non2xx + s.service.errors, 7)} | ${Math.round(s.service.load.othersShare * 100)} %`
    )
  }
  process.stdout.write(lines.join('\n') + '\n')
}

export function printTargets(checks: TargetCheck[]) {
  const lines = ['\ntargets:']
  for (const c of checks) {
    lines.push(
      `  ${c.met ? 'met    ' : 'MISSED '} ${c.engine}${c.workers ? ` ×${c.workers}` : ''}  ${c.target}: ${c.value} (${c.limit})`
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
      s.baseline && m.baseline ? round(m.baseline.requestsPerSecond / s.baseline.requestsPerSecond) : undefined
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
    `\n${engine}: scaling from 1 to ${rows[0].workers} workers (service req/s; the baseline's factor for comparison)`
  ]
  for (const r of rows)
    lines.push(
      `  ${r.name.padEnd(26)}${pad(r.one, 9)} → ${pad(r.many, 9)}  ×${r.factor}${r.baselineFactor ? `  (baseline ×${r.baselineFactor})` : ''}`
    )
  process.stdout.write(lines.join('\n') + '\n')
}
