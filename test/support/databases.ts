import fs from 'node:fs'
import path from 'node:path'
import knex from 'knex'

export interface TestDatabase {
  name: 'sqlite' | 'postgres'
  url: string
}

const TMP = path.resolve(__dirname, '..', '..', '.tmp', 'test')
const PG_DATABASE = `crewclock_test_${process.pid}`

const withDatabase = (url: string, database: string) => {
  const u = new URL(url)
  u.pathname = `/${database}`
  return u.toString()
}

/**
 * SQLite always; PostgreSQL too when TEST_PG_URL is set (CI sets it). Each run gets its own
 * SQLite file and its own PostgreSQL database (created on the TEST_PG_URL server), so parallel
 * runs never share state.
 */
export function testDatabases(): TestDatabase[] {
  const list: TestDatabase[] = [
    { name: 'sqlite', url: `sqlite://${path.join(TMP, `crewclock-${process.pid}.sqlite`)}` }
  ]
  if (process.env.TEST_PG_URL) list.push({ name: 'postgres', url: withDatabase(process.env.TEST_PG_URL, PG_DATABASE) })
  return list
}

const sqliteFile = (db: TestDatabase) => db.url.replace(/^sqlite:\/\//, '')

async function onPgServer(work: (admin: ReturnType<typeof knex>) => Promise<unknown>) {
  const admin = knex({ client: 'pg', connection: process.env.TEST_PG_URL })
  try {
    await work(admin)
  } finally {
    await admin.destroy()
  }
}

/** Starts every run from an empty database. */
export async function createTestDatabase(db: TestDatabase) {
  if (db.name === 'sqlite') {
    fs.mkdirSync(TMP, { recursive: true })
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(sqliteFile(db) + suffix, { force: true })
    return
  }
  await onPgServer(async (admin) => {
    await admin.raw(`DROP DATABASE IF EXISTS ${PG_DATABASE} WITH (FORCE)`)
    await admin.raw(`CREATE DATABASE ${PG_DATABASE}`)
  })
}

export async function dropTestDatabases() {
  for (const db of testDatabases()) {
    if (db.name === 'sqlite') {
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(sqliteFile(db) + suffix, { force: true })
    } else {
      await onPgServer((admin) => admin.raw(`DROP DATABASE IF EXISTS ${PG_DATABASE} WITH (FORCE)`))
    }
  }
}
