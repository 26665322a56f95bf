import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Knex } from 'knex'
import {
  createKnex,
  KEEP_PREPARED,
  ON_READER,
  ON_WRITER,
  SHORT_READ,
  withoutStatementTimeout
} from '../../../src/db/knex'
import { within } from '../../support/wait'

/** Records the SQL of every statement the pool's one SQLite connection prepares, until `restore`. */
async function watchPrepare(db: Knex) {
  const connection = (await db.client.acquireConnection()) as { prepare: (...args: unknown[]) => unknown }
  await db.client.releaseConnection(connection)
  const prepared: string[] = []
  const prepare = connection.prepare
  connection.prepare = function (this: unknown, sql: unknown, ...rest: unknown[]) {
    prepared.push(String(sql))
    return prepare.call(this, sql, ...rest)
  }
  return { prepared, restore: () => void (connection.prepare = prepare) }
}

/** A transaction whose COMMIT fails: a deferred foreign key (`notes.parent`) that points nowhere. */
async function failAtCommit(db: Knex) {
  await assert.rejects(
    db.transaction(async (trx) => {
      await trx.raw('PRAGMA defer_foreign_keys = ON')
      await trx('notes').insert({ body: 'orphan', parent: 999 })
    }),
    /FOREIGN KEY/
  )
}

/** SQLite connections (src/db/knex.ts); each test gets a file of its own with a table `notes` (a, b, c). */
describe('SQLite', () => {
  let dir: string
  let file: string
  let db: Knex

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crewclock-statements-'))
    file = path.join(dir, 'db.sqlite')
    db = createKnex(`sqlite://${file}`)
    await db.schema.createTable('notes', (table) => {
      table.increments('id')
      table.text('body')
    })
    await db('notes').insert([{ body: 'a' }, { body: 'b' }, { body: 'c' }])
  })

  afterEach(async () => {
    await db.destroy()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  /** Reads and writes keep their prepared statements per connection. */
  describe('kept prepared statements', () => {
    it('answers each run with its own bindings, also past the number of statements kept', async () => {
      for (let i = 0; i < 3; i++) assert.deepEqual(await db('notes').where({ id: 2 }).first('body'), { body: 'b' })
      assert.deepEqual(await db('notes').where({ id: 3 }).first('body'), { body: 'c' })
      for (let n = 1; n <= 250; n++)
        assert.equal(
          (
            await db('notes').whereIn(
              'id',
              Array.from({ length: n }, (_, i) => i + 1)
            )
          ).length,
          Math.min(n, 3)
        )
      assert.deepEqual(await db('notes').where({ id: 1 }).first('body'), { body: 'a' })
    })

    it("sees another connection's commit: a kept statement holds no snapshot", async () => {
      assert.equal((await db('notes').where('id', '>', 0)).length, 3)
      const other = createKnex(`sqlite://${file}`)
      try {
        await other('notes').insert({ body: 'd' })
      } finally {
        await other.destroy()
      }
      assert.equal((await db('notes').where('id', '>', 0)).length, 4)
    })

    it('fails like a one-off statement, and works again after', async () => {
      await assert.rejects(db('notes').where('missing', 1), /no such column: missing/)
      assert.deepEqual(await db.raw('select body from notes where id = ?', [1]), [{ body: 'a' }])
    })

    it("a kept write that met another connection's lock (SQLITE_BUSY) leaves the connection usable", async () => {
      // Busy timeout and statement timeout alike (as in production), short.
      const timed = createKnex(`sqlite://${file}`, {}, { statementTimeoutMs: 300 })
      const other = createKnex(`sqlite://${file}`)
      try {
        const held = await other.transaction()
        await held('notes').where({ id: 2 }).update({ body: 'held' })
        await assert.rejects(
          timed.raw('update notes set body = ? where id = ?', ['kept', 1]).options(KEEP_PREPARED),
          /SQLITE_BUSY/
        )
        // A kept write knex built (stepped once, not to the end) too.
        await assert.rejects(timed('notes').where({ id: 1 }).update({ body: 'built' }), /SQLITE_BUSY/)
        await held.commit()
        // Without a reset the failed statement stayed running: the late interrupt then failed every
        // statement of the connection, and a transaction could not commit.
        assert.deepEqual(await timed('notes').where({ id: 2 }).first('body'), { body: 'held' })
        await timed.transaction((trx) => trx('notes').where({ id: 3 }).update({ body: 'c2' }))
        await other('notes').where({ id: 3 }).update({ body: 'c3' })
        await timed.raw('update notes set body = ? where id = ?', ['kept', 1]).options(KEEP_PREPARED)
        assert.deepEqual(await other('notes').orderBy('id').pluck('body'), ['kept', 'held', 'c3'])
      } finally {
        await timed.destroy()
        await other.destroy()
      }
    })

    it('keeps writes prepared: one prepare for many runs, answers as a one-off write (lastID, changes, rows)', async () => {
      const { prepared, restore } = await watchPrepare(db)
      try {
        for (let i = 0; i < 3; i++) {
          assert.deepEqual(await db('notes').insert({ body: `n${i}` }), [4 + i])
          assert.equal(
            await db('notes')
              .where({ id: 4 + i })
              .update({ body: `u${i}` }),
            1
          )
          assert.equal(
            await db('notes')
              .where('id', '>', 100 + i)
              .update({ body: 'none' }),
            0
          )
          assert.deepEqual(
            await db('notes')
              .where({ id: 4 + i })
              .update({ body: `r${i}` }, ['id', 'body']),
            [{ id: 4 + i, body: `r${i}` }]
          )
          assert.equal(await db('notes').where('id', '>=', 4).del().where('body', `nothing ${i}`), 0)
        }
        assert.equal(await db('notes').where('id', '>=', 5).del(), 2)
        assert.deepEqual(await db('notes').orderBy('id').pluck('body'), ['a', 'b', 'c', 'r0'])
        // Five write statements of distinct texts, each prepared once (the reads run on the read connections).
        assert.equal(new Set(prepared).size, prepared.length, `prepared again: ${prepared.join(' | ')}`)
        assert.ok(prepared.some((sql) => /^insert into/.test(sql)))
        assert.ok(prepared.some((sql) => /^update/.test(sql)))
        assert.ok(prepared.some((sql) => /^delete from/.test(sql)))
      } finally {
        restore()
      }
    })

    it('a COMMIT that fails is rolled back: the transaction fails with its error, and the next one commits', async () => {
      await db.schema.alterTable('notes', (table) => table.integer('parent').references('id').inTable('notes'))
      // A deferred foreign key fails at the COMMIT, which leaves SQLite's transaction open.
      await failAtCommit(db)
      await db.transaction((trx) => trx('notes').insert({ body: 'after' }))
      await db('notes').insert({ body: 'outside' })
      assert.deepEqual(await db('notes').where('id', '>', 3).orderBy('id').pluck('body'), ['after', 'outside'])
    })

    it("keeps a write transaction's BEGIN IMMEDIATE and COMMIT prepared, through rollbacks and failed commits", async () => {
      const { prepared, restore } = await watchPrepare(db)
      try {
        await db.schema.alterTable('notes', (table) => table.integer('parent').references('id').inTable('notes'))
        for (let i = 0; i < 3; i++) await db.transaction((trx) => trx('notes').insert({ body: `t${i}` }))
        await assert.rejects(
          db.transaction(async (trx) => {
            await trx('notes').insert({ body: 'rolled back' })
            throw new Error('refused')
          }),
          /refused/
        )
        await failAtCommit(db)
        await db.transaction((trx) => trx('notes').insert({ body: 'after' }))
        assert.deepEqual(await db('notes').where('id', '>', 3).orderBy('id').pluck('body'), ['t0', 't1', 't2', 'after'])
        assert.equal(prepared.filter((sql) => sql === 'BEGIN IMMEDIATE;').length, 1, prepared.join(' | '))
        assert.equal(prepared.filter((sql) => sql === 'COMMIT;').length, 1, prepared.join(' | '))
      } finally {
        restore()
      }
    })

    it('keeps no write that carries large values (SQLite holds the last values of a kept statement)', async () => {
      const { prepared, restore } = await watchPrepare(db)
      try {
        const large = 'x'.repeat(100_000)
        assert.equal(await db('notes').where({ id: 1 }).update({ body: large }), 1)
        assert.equal(prepared.length, 0, 'the large update was kept')
        assert.equal((await db('notes').where({ id: 1 }).first('body')).body.length, 100_000)
        assert.equal(await db('notes').where({ id: 1 }).update({ body: 'small' }), 1)
        assert.equal(prepared.filter((sql) => /^update/.test(sql)).length, 1)
      } finally {
        restore()
      }
    })

    it('two queries of the same new text at once: one statement is kept, none is left open at the close', async () => {
      await db.transaction(async (trx) => {
        const ids = await Promise.all([trx('notes').insert({ body: 'x1' }), trx('notes').insert({ body: 'x2' })])
        assert.deepEqual(ids.flat().sort(), [4, 5])
        const rows = await Promise.all([
          trx('notes').where('id', '>', 4).select('id'),
          trx('notes').where('id', '>', 4).select('id')
        ])
        assert.deepEqual(rows, [[{ id: 5 }], [{ id: 5 }]])
      })
      await db.destroy()
      // SQLite refuses to close a connection with a statement left unfinalized: its WAL would stay behind.
      assert.equal(fs.existsSync(`${file}-wal`), false)
      db = createKnex(`sqlite://${file}`)
    })

    it('a kept write that fails rolls back with its transaction, and the same statement works after', async () => {
      await db.schema.alterTable('notes', (table) => table.unique(['body']))
      await assert.rejects(
        db.transaction(async (trx) => {
          await trx('notes').insert({ body: 'd' })
          await trx('notes').insert({ body: 'a' })
        }),
        /UNIQUE constraint failed/
      )
      assert.deepEqual(await db('notes').orderBy('id').pluck('body'), ['a', 'b', 'c'])
      await assert.rejects(db('notes').where({ id: 2 }).update({ body: 'a' }), /UNIQUE constraint failed/)
      assert.equal(await db('notes').where({ id: 2 }).update({ body: 'b2' }), 1)
      assert.deepEqual(await db('notes').insert({ body: 'd' }), [4])
      assert.deepEqual(await db('notes').orderBy('id').pluck('body'), ['a', 'b2', 'c', 'd'])
    })

    it('a kept write through an FTS5 trigger leaves no lock behind for another connection', async () => {
      await db.raw(
        `create virtual table notes_fts using fts5(body, content='notes', content_rowid='id', tokenize='trigram')`
      )
      await db.raw(`create trigger notes_ai after insert on notes begin
      insert into notes_fts(rowid, body) values (new.id, new.body); end`)
      await db.raw(`create trigger notes_au after update of body on notes begin
      insert into notes_fts(notes_fts, rowid, body) values ('delete', old.id, old.body);
      insert into notes_fts(rowid, body) values (new.id, new.body); end`)
      const other = createKnex(`sqlite://${file}`, {}, { statementTimeoutMs: 300 })
      try {
        for (let i = 0; i < 3; i++) {
          await db.transaction(async (trx) => {
            await trx('notes').insert({ body: `searchable ${i}` })
            await trx('notes')
              .where({ id: 1 })
              .update({ body: `first ${i}` })
          })
          // BEGIN IMMEDIATE fails with SQLITE_BUSY after 300 ms if the kept write still held the lock.
          await other.transaction((trx) =>
            trx('notes')
              .where({ id: 2 })
              .update({ body: `other ${i}` })
          )
        }
        const found = await db.raw(`select rowid as id from notes_fts where notes_fts match ? order by rowid`, [
          '"searchable"'
        ])
        assert.deepEqual(
          found.map((row: { id: number }) => row.id),
          [4, 5, 6]
        )
        assert.deepEqual(await db.raw(`select rowid as id from notes_fts where notes_fts match '"first 2"'`), [
          { id: 1 }
        ])
      } finally {
        await other.destroy()
      }
    })

    it('closes the database when the pool ends (no statement left open)', async () => {
      await db('notes').where({ id: 1 }).first()
      await db.destroy()
      assert.equal(fs.existsSync(`${file}-shm`), false)
      assert.equal(fs.existsSync(`${file}-wal`), false)
      db = createKnex(`sqlite://${file}`)
    })
  })

  /** Reads outside a transaction run on read connections of their own (`withReaders`). */
  describe('read connections', () => {
    it('a read answers while a write transaction is open, with what was committed; after the commit it sees the write', async () => {
      const trx = await db.transaction()
      try {
        await trx('notes').insert({ body: 'd' })
        assert.equal((await trx('notes').select('id')).length, 4, 'the transaction sees its own write')
        const outside = await within(2000, db('notes').select('body').orderBy('id'), 'a read beside an open write')
        assert.deepEqual(
          outside.map((row: { body: string }) => row.body),
          ['a', 'b', 'c'],
          'no uncommitted row'
        )
        const raw = await within(2000, db.raw('select count(*) as n from notes'), 'a raw select beside an open write')
        assert.deepEqual(raw, [{ n: 3 }])
        await trx.commit()
      } finally {
        if (!trx.isCompleted()) await trx.rollback()
      }
      assert.deepEqual(
        (await db('notes').select('body').orderBy('id')).map((row: { body: string }) => row.body),
        ['a', 'b', 'c', 'd']
      )
    })

    it('writes, raw statements that are not a plain select, and schema changes run on the writer', async () => {
      // On a read connection each of these would fail: they are query_only.
      await db.raw("with w as (select 'e' as body) insert into notes (body) select body from w")
      await db('notes').where({ body: 'a' }).update({ body: 'A' })
      await db.schema.alterTable('notes', (table) => table.text('tag'))
      assert.deepEqual(
        (await db('notes').select('body', 'tag').orderBy('id')).map((row: { body: string }) => row.body),
        ['A', 'b', 'c', 'e']
      )
    })

    it('a raw statement marked ON_READER runs on a read connection, ON_WRITER keeps a read on the writer', async () => {
      const queryOnly = 'with q as (select query_only from pragma_query_only) select query_only as q from q'
      assert.deepEqual(await db.raw(queryOnly), [{ q: 0 }], 'a raw with stays on the writer')
      assert.deepEqual(await db.raw(queryOnly).options(ON_READER), [{ q: 1 }])
      assert.deepEqual(await db.raw('select query_only as q from pragma_query_only').options(ON_WRITER), [{ q: 0 }])
    })

    it('when both read connections are taken, a short read runs on the writer if it is free, or on whichever frees first; others wait', async () => {
      const readers = (db.client as unknown as { readers: Knex.Client }).readers
      const held = [await readers.acquireConnection(), await readers.acquireConnection()]
      const queryOnly = 'select query_only as q from pragma_query_only'
      const short = () => db.raw(queryOnly).options(SHORT_READ)
      const timed = createKnex(`sqlite://${file}`, {}, { acquireTimeoutMs: 500 })
      // knex reports every failed acquire on the console; the test asserts on the answer instead.
      timed.client.logger.warn = () => undefined
      try {
        assert.deepEqual(await within(2000, short(), 'a short read beside two held readers'), [{ q: 0 }])
        // Any other read waits for a read connection, though the writer is free.
        const timedReaders = (timed.client as unknown as { readers: Knex.Client }).readers
        const timedHeld = [await timedReaders.acquireConnection(), await timedReaders.acquireConnection()]
        try {
          await assert.rejects(timed.raw(queryOnly), /Timeout acquiring a connection/)
        } finally {
          for (const connection of timedHeld) await timedReaders.releaseConnection(connection)
        }
        const trx = await db.transaction()
        let waiting: Promise<unknown>
        try {
          // The writer is taken too: the read waits for both, and runs on the first that frees.
          waiting = short()
          await new Promise((resolve) => setTimeout(resolve, 200))
          await readers.releaseConnection(held.pop())
          assert.deepEqual(await within(2000, waiting, 'a read once a reader is free'), [{ q: 1 }])
          held.push(await readers.acquireConnection())
          waiting = short()
          await new Promise((resolve) => setTimeout(resolve, 200))
        } finally {
          await trx.rollback()
        }
        // The writer freed first: the read ran there.
        assert.deepEqual(await within(2000, waiting, 'a read once the writer is free'), [{ q: 0 }])
      } finally {
        for (const connection of held) await readers.releaseConnection(connection)
        await timed.destroy()
      }
    })

    it('the read connections refuse to write (query_only), so a statement judged wrongly fails loudly', async () => {
      const readers = (db.client as unknown as { readers: Knex.Client }).readers
      const connection = (await readers.acquireConnection()) as {
        run: (sql: string, callback: (err: Error | null) => void) => void
      }
      try {
        const error = await new Promise<Error | null>((resolve) =>
          connection.run("insert into notes (body) values ('x')", resolve)
        )
        assert.match(String(error?.message), /readonly|read-only/i)
      } finally {
        await readers.releaseConnection(connection)
      }
      assert.equal((await db('notes').select('id')).length, 3)
    })

    it("reports reads in the instance's query events", async () => {
      const seen: string[] = []
      const listener = (query: { sql: string }) => seen.push(query.sql)
      db.on('query', listener)
      try {
        await db('notes').where({ id: 1 }).first()
        await db.raw('select count(*) from notes')
      } finally {
        db.off('query', listener)
      }
      assert.equal(seen.length, 2)
      assert.match(seen[0], /^select .* from `notes`/)
    })

    it('a read past the statement timeout is interrupted; withoutStatementTimeout lifts the limit for reads too', async () => {
      const timed = createKnex(`sqlite://${file}`, {}, { statementTimeoutMs: 300 })
      try {
        const slow =
          'select count(*) as n from notes a, notes b, notes c, notes d, notes e, notes f, notes g where ? > 0'
        await timed.raw(
          "with recursive c(x) as (select 1 union all select x + 1 from c where x < 40) insert into notes (body) select 'n' || x from c"
        )
        const started = Date.now()
        const error: any = await timed.raw(slow, [1]).then(
          () => assert.fail('the read ran to its end'),
          (e) => e
        )
        assert.equal(error.code, 'SQLITE_INTERRUPT')
        assert.ok(Date.now() - started < 5000, `interrupted after ${Date.now() - started} ms`)
        assert.deepEqual(await timed.raw('select count(*) as n from notes where ? > 0', [1]), [{ n: 43 }])
        const quick = 'select count(*) as n from notes a, notes b, notes c where ? > 0'
        assert.deepEqual(await withoutStatementTimeout(timed, (untimed) => untimed.raw(quick, [1])), [{ n: 43 ** 3 }])
      } finally {
        await timed.destroy()
      }
    })

    it('keeps the WAL bounded while long reads overlap without a pause: past the limit reads move to the writer', async function () {
      this.timeout(120_000)
      const limitBytes = 2 * 1024 * 1024
      const guarded = createKnex(`sqlite://${file}`, {}, { statementTimeoutMs: 0 }, { walLimitBytes: limitBytes })
      const walBytes = () => (fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0)
      let stop = false
      try {
        await guarded.schema.createTable('pairs', (table) => {
          table.increments('id')
          table.integer('n')
        })
        for (let i = 0; i < 40; i++) await guarded('pairs').insert(Array.from({ length: 100 }, (_, n) => ({ n })))
        // A read of some tens of milliseconds; two of them in turn keep a snapshot open at every moment.
        const longRead = () => guarded('pairs as a').join('pairs as b', 'a.n', 'b.n').count({ c: '*' }).first()
        const reading = async (delayMs: number) => {
          await new Promise((resolve) => setTimeout(resolve, delayMs))
          while (!stop) await longRead()
        }
        const readers = [reading(0), reading(15)]
        const body = 'x'.repeat(4000)
        let largest = 0
        for (let i = 0; i < 1000; i++) {
          await guarded.transaction((trx) => trx('notes').insert({ body }))
          if (i % 25 === 0) largest = Math.max(largest, walBytes())
        }
        stop = true
        await Promise.all(readers)
        assert.ok(largest < 3 * limitBytes, `the WAL reached ${largest} bytes (limit ${limitBytes})`)
        assert.equal(Number((await guarded('notes').count({ n: '*' }).first())!.n), 1003)
      } finally {
        stop = true
        await guarded.destroy()
      }
    })

    it('an in-memory database keeps one connection: reads see the tables the writer made', async () => {
      const memory = createKnex('sqlite://:memory:')
      try {
        await memory.schema.createTable('things', (table) => table.increments('id'))
        await memory('things').insert({})
        assert.equal((await memory('things').select('id')).length, 1)
      } finally {
        await memory.destroy()
      }
    })

    it('closes every connection when the pool ends, the read connections included', async () => {
      await Promise.all([db('notes').where({ id: 1 }).first(), db('notes').where({ id: 2 }).first()])
      await db.destroy()
      assert.equal(fs.existsSync(`${file}-shm`), false)
      assert.equal(fs.existsSync(`${file}-wal`), false)
      db = createKnex(`sqlite://${file}`)
    })
  })
})

/** Rows come back with camelCase keys, built by a mapper compiled per column list (src/db/knex.ts). */
describe('rows with camelCase keys', () => {
  let dir: string
  let db: Knex

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crewclock-rows-'))
    db = createKnex(`sqlite://${path.join(dir, 'db.sqlite')}`)
    await db.schema.createTable('work_notes', (table) => {
      table.increments('id')
      table.text('note_body')
      table.integer('minutes_worked')
    })
    await db('workNotes').insert([
      { noteBody: 'a', minutesWorked: 1 },
      { noteBody: null, minutesWorked: 2 }
    ])
  })

  afterEach(async () => {
    await db.destroy()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it('maps every row of a result, each column list by its own mapper, keys in column order', async () => {
    const rows = await db('workNotes').orderBy('id')
    assert.deepEqual(rows, [
      { id: 1, noteBody: 'a', minutesWorked: 1 },
      { id: 2, noteBody: null, minutesWorked: 2 }
    ])
    assert.deepEqual(Object.keys(rows[0]), ['id', 'noteBody', 'minutesWorked'])
    // Another column list of the same table, and names that need quoting in a literal.
    assert.deepEqual(await db('workNotes').orderBy('id').select('minutesWorked', 'id'), [
      { minutesWorked: 1, id: 1 },
      { minutesWorked: 2, id: 2 }
    ])
    assert.deepEqual(await db.raw(`select note_body as "it's ""odd""", id as "a\\b" from work_notes order by id`), [
      { [`it's "odd"`]: 'a', 'a\\b': 1 },
      { [`it's "odd"`]: null, 'a\\b': 2 }
    ])
  })
})
