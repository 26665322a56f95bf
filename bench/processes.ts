import { ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { APP_SECRET, BENCH_DIR, DATA_DIR } from './datasets'

/** Starting and stopping the service and the baseline as child processes, and CPU accounting. */
const ROOT = path.join(BENCH_DIR, '..')

export interface Target {
  name: 'service' | 'before' | 'platform' | 'same-stack'
  url: string
  process: ChildProcess
  stop: () => Promise<void>
}

/** A port free on this machine now (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/**
 * `crewclock serve` of the checkout at `root` on a free port, once it listens (the output so far is
 * in the error if it exits first). `nodeFlags` go to node (e.g. `--cpu-prof`).
 */
export async function serveCheckout(
  root: string,
  env: NodeJS.ProcessEnv,
  nodeFlags: string[] = []
): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort()
  const child = spawn(process.execPath, [...nodeFlags, path.join(root, 'bin', 'crewclock'), 'serve'], {
    env: { ...env, PORT: String(port) },
    cwd: root
  })
  let output = ''
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk
      if (/listening on/.test(output)) resolve()
    })
    child.stderr!.on('data', (chunk) => (output += chunk))
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}:\n${output}`)))
  })
  return { child, url: `http://127.0.0.1:${port}` }
}

async function waitFor(child: ChildProcess, pattern: RegExp, count: number, log: string[]) {
  let seen = 0
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}:\n${log.join('')}`)), 120_000)
    const onData = (chunk: Buffer) => {
      const text = chunk.toString()
      log.push(text)
      seen += text.split('\n').filter((line) => pattern.test(line)).length
      if (seen >= count) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', (chunk: Buffer) => log.push(chunk.toString()))
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`exited with ${code} before it listened:\n${log.join('')}`))
    })
  })
}

function stopper(child: ChildProcess) {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve()
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
      child.once('exit', () => {
        clearTimeout(timer)
        resolve()
      })
      child.kill('SIGTERM')
    })
}

export interface StartOptions {
  databaseUrl: string
  workers: number
  /** Directory for `--cpu-prof` output (service only). */
  profileDir?: string
  /**
   * Another checkout to serve from (service only), e.g. a `git worktree` of an earlier commit, to
   * measure before and after against the same data and platform (see startCheckout).
   */
  root?: string
  /** The side's name in the report (default `service`). */
  name?: 'service' | 'before'
}

/** `bin/crewclock serve` from the sources, as operators start it, on 127.0.0.1. */
export async function startService(options: StartOptions): Promise<Target> {
  const port = await freePort()
  const flags = options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : []
  const root = options.root ? path.resolve(options.root) : ROOT
  const child = spawn(process.execPath, [...flags, path.join(root, 'bin', 'crewclock'), 'serve'], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      CREWCLOCK_FROM_SOURCE: '1',
      DATABASE_URL: options.databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: path.join(DATA_DIR, 'run'),
      UPLOADS_DIR: path.join(DATA_DIR, 'run', 'uploads'),
      APP_SECRET,
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      WEB_CONCURRENCY: String(options.workers),
      REDIS_URL: '',
      // Never throttled (the default is 6000/min), but still counted: production pays for counting
      // (with workers, a message to the primary per request), so the benchmark does too.
      RATE_LIMIT_PER_KEY: '1000000000'
    },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  const log: string[] = []
  await waitFor(child, /crewclock listening/, options.workers, log)
  return {
    name: options.name ?? 'service',
    url: `http://127.0.0.1:${port}`,
    process: child,
    stop: stopper(child)
  }
}

const MIGRATION_FILE = /^\d{14}_[\w-]+\.ts$/

/**
 * The service of another checkout (a "before" commit) on the working copy. `crewclock serve`
 * migrates before it listens, and knex refuses a database that records migrations it has no file
 * for ("migration directory is corrupt"): the working copy was migrated by this checkout, whose
 * migrations may be newer. The missing migration files are copied into the before checkout for
 * its start (already applied, so knex only lists them; nothing runs) and removed once it
 * listens. The before code ignores the newer tables; a newer migration that changed a table the
 * before code uses would need a data set of its own (not the case between adjacent commits that
 * only add tables).
 */
export async function startCheckout(
  options: StartOptions & { root: string; name: 'service' | 'before' },
  log: (line: string) => void
): Promise<Target> {
  const theirs = path.join(path.resolve(options.root), 'migrations')
  const present = new Set(fs.readdirSync(theirs))
  const missing = fs.readdirSync(path.join(ROOT, 'migrations')).filter((f) => MIGRATION_FILE.test(f) && !present.has(f))
  for (const file of missing) fs.copyFileSync(path.join(ROOT, 'migrations', file), path.join(theirs, file))
  if (missing.length)
    log(
      `  ${options.name} checkout: lent it ${missing.length} newer migration file(s) for its start: ${missing.join(', ')}`
    )
  try {
    return await startService(options)
  } finally {
    for (const file of missing) fs.rmSync(path.join(theirs, file), { force: true })
  }
}

/** A bench/ script serving on a free port, once it prints `ready` (the platform or the same-stack baseline). */
async function startScript(
  options: StartOptions,
  script: { file: string; ready: RegExp; name: Target['name']; env?: NodeJS.ProcessEnv }
): Promise<Target> {
  const port = await freePort()
  const child = spawn(process.execPath, ['-r', 'tsx/cjs', path.join(BENCH_DIR, script.file)], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      WEB_CONCURRENCY: String(options.workers),
      ...script.env
    },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  await waitFor(child, script.ready, options.workers, [])
  return { name: script.name, url: `http://127.0.0.1:${port}`, process: child, stop: stopper(child) }
}

/**
 * The platform (bench/platform.ts): node:http and prepared statements written from the contract,
 * nothing of src/, with the same number of workers.
 */
export const startPlatform = (options: StartOptions) =>
  startScript(options, {
    file: 'platform.ts',
    ready: /platform listening/,
    name: 'platform',
    env: { RATE_LIMIT_PER_KEY: '1000000000' }
  })

/**
 * The former baseline (bench/baseline.ts, `--same-stack`): node:http on the service's own knex,
 * `sqlite3` driver and time-sheet modules, i.e. the framework's share of the service's path.
 */
export const startSameStack = (options: StartOptions) =>
  startScript(options, { file: 'baseline.ts', ready: /baseline listening/, name: 'same-stack' })

/** CPU time (ms) of a process and all its descendants, from /proc (Linux). */
function processTreeCpuMs(rootPid: number): number {
  const ticks = 100 // USER_HZ on Linux
  const stats = new Map<number, { ppid: number; cpu: number }>()
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      stats.set(Number(entry), {
        ppid: Number(fields[1]),
        cpu: ((Number(fields[11]) + Number(fields[12])) * 1000) / ticks
      })
    } catch {
      // the process ended while we looked
    }
  }
  let total = 0
  const queue = [rootPid]
  while (queue.length) {
    const pid = queue.pop()!
    total += stats.get(pid)?.cpu ?? 0
    for (const [child, s] of stats) if (s.ppid === pid) queue.push(child)
  }
  return total
}

function machineCpuMs() {
  const [cpu] = fs.readFileSync('/proc/stat', 'utf8').split('\n')
  const values = cpu.split(/\s+/).slice(1).map(Number)
  const idle = values[3] + values[4]
  const total = values.slice(0, 8).reduce((a, b) => a + b, 0)
  return { busy: ((total - idle) * 1000) / 100, total: (total * 1000) / 100 }
}

export interface LoadSample {
  /** CPU time of the server under test (all its processes), ms. */
  serverCpuMs: number
  /** Share of the machine's CPU time used by processes other than the benchmark's own (0..1). */
  othersShare: number
  /** Share used by the server under test and the driver. */
  benchShare: number
  loadAverage: number
}

/** Measures what else ran on the machine while `work` ran. */
export async function withLoadSample<T>(serverPid: number, work: () => Promise<T>): Promise<[T, LoadSample]> {
  const machine = machineCpuMs()
  const server = processTreeCpuMs(serverPid)
  const own = process.cpuUsage()
  const result = await work()
  const machineAfter = machineCpuMs()
  const serverMs = processTreeCpuMs(serverPid) - server
  const ownUsage = process.cpuUsage(own)
  const ownMs = (ownUsage.user + ownUsage.system) / 1000
  const total = machineAfter.total - machine.total
  const busy = machineAfter.busy - machine.busy
  const benchMs = serverMs + ownMs
  return [
    result,
    {
      serverCpuMs: Math.round(serverMs),
      othersShare: Math.max(0, (busy - benchMs) / total),
      benchShare: benchMs / total,
      loadAverage: (await import('node:os')).loadavg()[0]
    }
  ]
}
