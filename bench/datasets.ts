import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

/**
 * The benchmark data sets. `full` is the issue's realistic size; `small` is the same shape at
 * 1/100 (3 users with the same number of entries each), so that a list filtered to one user's
 * month matches the same rows in both and only the table size differs.
 */
export interface Scale {
  name: 'full' | 'small'
  users: number
  customers: number
  projects: number
  assignments: number
  eventsPerAssignment: number
  timeEntries: number
}

export const SCALES: Record<Scale['name'], Scale> = {
  full: {
    name: 'full',
    users: 300,
    customers: 4000,
    projects: 1000,
    assignments: 50_000,
    eventsPerAssignment: 4,
    timeEntries: 1_000_000
  },
  small: {
    name: 'small',
    users: 3,
    customers: 40,
    projects: 10,
    assignments: 500,
    eventsPerAssignment: 4,
    timeEntries: 10_000
  }
}

/** Bump when the generated rows change; a data set with another version is seeded again. */
export const SEED_FORMAT = 9

export const BENCH_DIR = __dirname
export const DATA_DIR = path.join(BENCH_DIR, '.data')
export const APP_SECRET = 'crewclock-benchmark-secret-not-for-production'

/** The seed version also covers the migrations: a new migration means new tables to fill. */
export function seedVersion(scale: Scale): string {
  const migrations = fs
    .readdirSync(path.join(BENCH_DIR, '..', 'migrations'))
    .filter((f) => /^\d{14}_.*\.ts$/.test(f))
    .sort()
  const digest = crypto
    .createHash('sha256')
    .update(JSON.stringify({ SEED_FORMAT, scale, migrations }))
    .digest('hex')
    .slice(0, 12)
  return `${scale.name}-${digest}`
}

export type Engine = 'sqlite' | 'pg'

/**
 * The seeded data set (`copy`: the working copy a run writes to, see working-copy.ts). Runs that
 * share a data set at the same time (two checkouts benchmarking at once) name their copies apart
 * with `BENCH_COPY` (letters and digits).
 */
export function databaseUrl(engine: Engine, scale: Scale['name'], pgBase: string, copy = false): string {
  const tag = copy ? `run${(process.env.BENCH_COPY ?? '').replace(/[^a-z0-9]/gi, '').toLowerCase()}` : ''
  if (engine === 'sqlite') return `sqlite://${path.join(DATA_DIR, `bench-${scale}${tag ? '.' + tag : ''}.sqlite`)}`
  return withDatabase(pgBase, `crewclock_bench_${scale}${tag ? '_' + tag : ''}`)
}

/**
 * A PostgreSQL URL with another database: its path, and nothing else, replaced (a Unix socket's
 * directory in the query, `?host=/var/run/postgresql`, stays as it is).
 */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

/** The database a PostgreSQL URL names. */
export const databaseOf = (url: string): string => decodeURIComponent(new URL(url).pathname.slice(1))
