import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Knex } from 'knex'
import sqlite3 from 'sqlite3'
import { createChangeSignal, type ChangeSignal } from '../../../src/db/change-signal'
import { createKnex } from '../../../src/db/knex'
import { createLogger } from '../../../src/logger'

/**
 * The SQLite signal keeps the WAL index (`-shm`) open between calls (src/db/change-signal.ts):
 * it must still hear every commit, including those made after SQLite replaced that file.
 */
describe('change signal on SQLite: every commit is seen by the next call', () => {
  let dir: string
  let url: string
  let signal: ChangeSignal
  const opened: Knex[] = []

  /** A connection of its own, as another process (the CLI, another instance) has. */
  async function connection() {
    const db = createKnex(url)
    opened.push(db)
    await db.raw('select 1')
    return db
  }

  const commit = (db: Knex) => db('notes').insert({ body: 'x' })

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crewclock-signal-'))
    url = `sqlite://${path.join(dir, 'db.sqlite')}`
    const db = await connection()
    await db.schema.createTable('notes', (table) => {
      table.increments('id')
      table.text('body')
    })
    signal = createChangeSignal(url, createLogger('silent'))
  })

  afterEach(async () => {
    await signal.close()
    await Promise.all(opened.splice(0).map((db) => db.destroy()))
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it('stays the same while nothing is committed, and moves with a commit of another connection', async () => {
    const db = opened[0]
    const before = signal.version()
    assert.notEqual(before, null)
    assert.equal(signal.version(), before)
    await commit(db)
    const after = signal.version()
    assert.notEqual(after, before)
    assert.equal(signal.version(), after)
    await commit(await connection())
    assert.notEqual(signal.version(), after)
  })

  it('hears commits made in a new -shm after the last connection closed and a new one opened', async () => {
    const shm = `${url.replace(/^sqlite:\/\//, '')}-shm`
    const first = signal.version()
    await opened.shift()!.destroy()
    assert.equal(fs.existsSync(shm), false, 'SQLite removes the WAL index with the last connection')
    const db = await connection()
    await commit(db)
    const second = signal.version()
    assert.notEqual(second, first)
    // The new file is the one read from now on.
    await commit(db)
    assert.notEqual(signal.version(), second)
  })

  it("never drops this process's SQLite locks: another process cannot checkpoint past a reader of this one", async () => {
    const file = url.replace(/^sqlite:\/\//, '')
    for (let i = 0; i < 20; i++) await commit(opened[0])
    // A connection of this process in a read transaction: its snapshot pins the WAL frames it reads.
    const reader = new sqlite3.Database(file)
    const run = (sql: string) =>
      new Promise<unknown>((resolve, reject) => reader.all(sql, (err, rows) => (err ? reject(err) : resolve(rows))))
    try {
      await run('begin')
      assert.deepEqual(await run('select count(*) as n from notes'), [{ n: 20 }])
      // The signal reads the WAL index as it does on every request (the first call opens it).
      for (let i = 0; i < 5; i++) assert.notEqual(signal.version(), null)
      // Another process writes and asks for a full checkpoint: the reader's lock must hold it back
      // (busy = 1). Closing any descriptor of the -shm in this process drops that lock, and the
      // checkpoint then truncates the WAL under the reader ("database disk image is malformed").
      const other = spawnSync(
        process.execPath,
        [
          '-e',
          `const sqlite3 = require('sqlite3')
           const db = new sqlite3.Database(process.argv[1])
           db.configure('busyTimeout', 200)
           db.serialize(() => {
             for (let i = 0; i < 20; i++) db.run("insert into notes (body) values ('y')")
             db.get('pragma wal_checkpoint(TRUNCATE)', (err, row) => {
               if (err) throw err
               process.stdout.write(JSON.stringify(row))
               db.close()
             })
           })`,
          file
        ],
        { encoding: 'utf8', cwd: process.cwd() }
      )
      assert.equal(other.status, 0, other.stderr)
      assert.equal(JSON.parse(other.stdout).busy, 1, `the checkpoint went past the reader: ${other.stdout}`)
      assert.deepEqual(await run('select count(*) as n from notes'), [{ n: 20 }])
      await run('commit')
      assert.deepEqual(await run('select count(*) as n from notes'), [{ n: 40 }])
    } finally {
      await new Promise((resolve) => reader.close(resolve))
    }
  })

  it('answers null once closed', async () => {
    await signal.close()
    assert.equal(signal.version(), null)
  })
})
