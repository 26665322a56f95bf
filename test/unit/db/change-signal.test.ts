import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Knex } from 'knex'
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

  it('answers null once closed', async () => {
    await signal.close()
    assert.equal(signal.version(), null)
  })
})
