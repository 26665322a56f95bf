import fs from 'node:fs'
import { createKnex, sqliteFilename } from '../src/db/knex'
import { databaseOf, databaseUrl, Engine, withDatabase } from './datasets'
import type { SeedInfo } from './seed'

/**
 * Every run works on a fresh copy of the seeded data set. The write scenarios change more than
 * the rows they POST (weeks move, time sheets are recomputed, rows are created on demand), so
 * deleting their rows afterwards would leave the seed inconsistent; a copy leaves it untouched.
 * SQLite copies the file; PostgreSQL clones the database from it as a template.
 */
export async function workingCopy(engine: Engine, seed: SeedInfo & { url: string }, pgBase: string): Promise<string> {
  const url = databaseUrl(engine, seed.scale, pgBase, true)
  if (engine === 'sqlite') {
    const source = sqliteFilename(seed.url)
    const target = sqliteFilename(url)
    // Fold the write-ahead log into the file first, so that the file alone is the whole data set.
    const db = createKnex(seed.url)
    try {
      await db.raw('PRAGMA wal_checkpoint(TRUNCATE)')
    } finally {
      await db.destroy()
    }
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(target + suffix, { force: true })
    fs.copyFileSync(source, target)
    return url
  }
  const admin = createKnex(withDatabase(url, 'postgres'), { max: 1 })
  try {
    await admin.raw('drop database if exists ?? with (force)', [databaseOf(url)])
    // FILE_COPY (PostgreSQL 15+) copies the files after a checkpoint instead of logging every page.
    await admin
      .raw('create database ?? template ?? strategy file_copy', [databaseOf(url), databaseOf(seed.url)])
      .catch(async (error: Error) => {
        if (!/strategy/i.test(error.message)) throw error
        await admin.raw('create database ?? template ??', [databaseOf(url), databaseOf(seed.url)])
      })
  } finally {
    await admin.destroy()
  }
  return url
}
