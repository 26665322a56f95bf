import { spawn, ChildProcess } from 'node:child_process'
import path from 'node:path'

export const ROOT = path.resolve(__dirname, '..', '..')
const BIN = path.join(ROOT, 'bin', 'crewclock')

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/** The environment of a CLI run: the sources (not a possibly stale build) and the given database. */
export const cliEnv = (env: Record<string, string>) => ({
  ...process.env,
  NODE_ENV: 'test',
  NODE_CONFIG_DIR: path.join(ROOT, 'config'),
  CREWCLOCK_FROM_SOURCE: '1',
  ...env
})

/** Runs the CLI; `input`, when given, is written to its standard input, which is then closed (`printf %s "$PW" | crewclock ...`). */
export function runCli(args: string[], env: Record<string, string>, input?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: cliEnv(env), cwd: ROOT })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    if (input !== undefined) child.stdin.end(input)
  })
}

/** Starts `crewclock serve` and resolves once it prints its listening line. */
export function startServe(
  env: Record<string, string>
): Promise<{ child: ChildProcess; output: () => string; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve'], { env: cliEnv(env), cwd: ROOT })
    let output = ''
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 30000)
    const onData = (d: Buffer) => {
      output += d
      const match = /listening on http:\/\/[^:]+:(\d+)/.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve({ child, output: () => output, url: `http://127.0.0.1:${match[1]}` })
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.on('close', (code) => {
      clearTimeout(timer)
      reject(new Error(`serve exited with ${code}:\n${output}`))
    })
  })
}

export const stopProcess = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.removeAllListeners('close')
    child.once('close', () => resolve())
    child.kill('SIGTERM')
  })
