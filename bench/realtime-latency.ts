import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { io } from 'socket.io-client'
import { serveCheckout } from './processes'

/**
 * `npx tsx bench/realtime-latency.ts [--root DIR] [--events 300] [--redis redis://127.0.0.1:6379]`
 *
 * Event latency across two instances: two `crewclock serve` processes (from `--root`, so an older
 * checkout can be measured against the same machine) share one SQLite file and one Redis; a
 * socket on instance A receives the `created` event of each customer written through instance B,
 * one write at a time. Latency is from sending the write to receiving its event (the HTTP request
 * is part of both sides of a before/after comparison); printed as median, p95 and max. The event
 * comes from the event log: B's wake-up over Redis makes A read it. `--redis ''` runs the two
 * without a bus, so each event waits for A's poll of the log (`realtime.logPollIntervalMs`); a
 * checkout from before the log delivered nothing across instances then, and hangs.
 */
const { values: args } = parseArgs({
  options: {
    root: { type: 'string', default: path.join(__dirname, '..') },
    events: { type: 'string', default: '300' },
    redis: { type: 'string', default: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' }
  }
})
const root = path.resolve(args.root!)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crewclock-latency-'))
const env = {
  ...process.env,
  NODE_ENV: 'test',
  NODE_CONFIG_DIR: path.join(root, 'config'),
  CREWCLOCK_FROM_SOURCE: '1',
  DATABASE_URL: `sqlite://${path.join(dir, 'db.sqlite')}`,
  DATA_DIR: dir,
  REDIS_URL: args.redis!,
  SYNC_KEY: `crewclock-latency-${process.pid}`
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]

async function main() {
  const bin = path.join(root, 'bin', 'crewclock')
  const migrated = spawnSync(process.execPath, [bin, 'migrate'], { env, cwd: root, encoding: 'utf8' })
  if (migrated.status !== 0) throw new Error(migrated.stderr)
  const made = spawnSync(
    process.execPath,
    [bin, 'company', 'create', '--name', 'Latency', '--country', 'DE', '--admin-email', 'l@example.test', '--json'],
    { env, cwd: root, encoding: 'utf8' }
  )
  const { apiKey } = JSON.parse(made.stdout)
  const [a, b] = [await serveCheckout(root, env), await serveCheckout(root, env)]
  try {
    const socket = io(a.url, { transports: ['websocket'], forceNew: true })
    await new Promise<void>((resolve, reject) =>
      socket.emit('create', 'authentication', { strategy: 'apiKey', apiKey }, (error: unknown) =>
        error ? reject(error) : resolve()
      )
    )
    const waiting = new Map<string, (at: number) => void>()
    socket.on('v1/customers created', (record: { companyName: string }) =>
      waiting.get(record.companyName)?.(performance.now())
    )
    const write = (name: string) =>
      fetch(`${b.url}/v1/customers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ companyName: name })
      })
    const latencies: number[] = []
    const total = Number(args.events)
    for (let i = 0; i < total + 20; i++) {
      const name = `latency ${i}`
      const arrived = new Promise<number>((resolve) => waiting.set(name, resolve))
      const sent = performance.now()
      const response = await write(name)
      if (response.status !== 201) throw new Error(`write answered ${response.status}`)
      const at = await arrived
      waiting.delete(name)
      // The first writes warm both processes up.
      if (i >= 20) latencies.push(at - sent)
    }
    socket.close()
    latencies.sort((x, y) => x - y)
    const ms = (value: number) => value.toFixed(2)
    process.stdout.write(
      `${root}: ${total} events across two instances: median ${ms(percentile(latencies, 0.5))} ms, ` +
        `p95 ${ms(percentile(latencies, 0.95))} ms, max ${ms(latencies[latencies.length - 1])} ms\n`
    )
  } finally {
    for (const { child } of [a, b]) child.kill('SIGTERM')
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
