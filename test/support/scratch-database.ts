import fs from 'node:fs'
import path from 'node:path'
import knex, { Knex } from 'knex'
import { createKnex } from '../../src/db/knex'
import type { TestDatabase } from './databases'

/**
 * A database of its own for a migration test, migrated step by step with `source(upTo)`:
 * a SQLite file under .tmp/test or a PostgreSQL database named after the process and `label`.
 */
const MIGRATIONS = path.resolve(__dirname, '..', '..', 'migrations')
const TMP = path.resolve(__dirname, '..', '..', '.tmp', 'test')

export const migrationsUpTo = (upTo: string): Knex.MigrationSource<string> => ({
  getMigrations: async () =>
    fs
      .readdirSync(MIGRATIONS)
      .filter((f) => /^\d{14}_[\w-]+\.ts$/.test(f) && f.replace(/\.ts$/, '') <= upTo)
      .sort(),
  getMigrationName: (file) => file.replace(/\.ts$/, ''),
  getMigration: async (file) => require(path.join(MIGRATIONS, file))
})

/** The name of the migration just before `target`. */
export async function migrationBefore(target: string) {
  const [previous] = (await migrationsUpTo(target).getMigrations([])).filter((f) => !f.startsWith(target)).slice(-1)
  return previous.replace(/\.ts$/, '')
}

export function scratchDatabase(db: TestDatabase, label: string) {
  const pgName = `crewclock_test_${process.pid}_${label.replace(/\W/g, '_')}`
  const state: { url: string; conn: Knex } = { url: '', conn: undefined as unknown as Knex }
  before(async () => {
    if (db.name === 'sqlite') {
      fs.mkdirSync(TMP, { recursive: true })
      const file = path.join(TMP, `${label}-${process.pid}.sqlite`)
      fs.rmSync(file, { force: true })
      state.url = `sqlite://${file}`
    } else {
      const admin = knex({ client: 'pg', connection: process.env.TEST_PG_URL })
      await admin.raw(`DROP DATABASE IF EXISTS ${pgName} WITH (FORCE)`)
      await admin.raw(`CREATE DATABASE ${pgName}`)
      await admin.destroy()
      const u = new URL(process.env.TEST_PG_URL as string)
      u.pathname = `/${pgName}`
      state.url = u.toString()
    }
    state.conn = createKnex(state.url)
  })
  after(async () => {
    await state.conn?.destroy()
    if (db.name === 'postgres') {
      const admin = knex({ client: 'pg', connection: process.env.TEST_PG_URL })
      await admin.raw(`DROP DATABASE IF EXISTS ${pgName} WITH (FORCE)`)
      await admin.destroy()
    } else fs.rmSync(state.url.replace(/^sqlite:\/\//, ''), { force: true })
  })
  return state
}
