import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import { forEachDatabase, scratchTable } from '../support/harness'
import { createKnex, ON_READER, ON_WRITER, pgReaderCount, SHORT_READ } from '../../src/db/knex'
import { logHorizon } from '../../src/events/event-log'
import { within } from '../support/wait'

/**
 * PostgreSQL's read pool (src/db/knex.ts, `withPgReaders`): a query builder's read outside a
 * transaction runs on connections of its own, so it answers while write transactions hold every
 * connection of the main pool; everything else stays on the main pool.
 */
const ACQUIRE_TIMEOUT_MS = 500

const readOnly = (db: Knex | Knex.Transaction) => db.raw("current_setting('default_transaction_read_only') as ro")

forEachDatabase('PostgreSQL read pool', (suite) => {
  beforeEach(function () {
    if (suite.db.name !== 'postgres') this.skip()
  })

  const table = scratchTable(suite, 'read_pool_notes', (t) => {
    t.increments('id')
    t.text('body')
  })

  let db: Knex
  beforeEach(async () => {
    await suite.server().knex(table).del()
    await suite
      .server()
      .knex(table)
      .insert([{ body: 'a' }, { body: 'b' }])
    // Two main connections, one read connection.
    db = createKnex(suite.db.url, { max: 2 }, { acquireTimeoutMs: ACQUIRE_TIMEOUT_MS })
    db.client.logger.warn = () => undefined
  })
  afterEach(async () => {
    await db?.destroy()
  })

  const bodies = async (query: Promise<{ body: string }[]>) => (await query).map((row) => row.body)

  it('half the main pool reads (at least one connection)', () => {
    assert.equal(pgReaderCount(10), 5)
    assert.equal(pgReaderCount(3), 2)
    assert.equal(pgReaderCount(1), 1)
  })

  it('a read answers while write transactions hold every main connection, with what was committed; a write waits', async () => {
    const held = [await db.transaction(), await db.transaction()]
    try {
      for (const [i, trx] of held.entries()) await trx(table).insert({ body: `open ${i}` })
      const read = await within(2000, bodies(db(table).select('body').orderBy('id')), 'a read beside two open writes')
      assert.deepEqual(read, ['a', 'b'], 'no uncommitted row')
      // The one read connection answers reads one after another, not only the first.
      const more = await within(
        2000,
        Promise.all([1, 2, 3].map(() => db(table).count({ n: '*' }).first())),
        'reads in a row'
      )
      assert.deepEqual(
        more.map((row) => Number(row!.n)),
        [2, 2, 2]
      )
      // The event log's horizon (a raw statement marked ON_READER) reads there too: the change
      // feed and realtime catch-up go on during the burst.
      assert.equal(typeof (await within(2000, logHorizon(db, 1), 'the log horizon beside two open writes')), 'number')
      // A write needs a main connection: it waits for one and gives up after the acquire timeout.
      await assert.rejects(db(table).insert({ body: 'waiting' }), /Timeout acquiring a connection/)
      await held[0].commit()
      assert.deepEqual(await bodies(db(table).select('body').orderBy('id')), ['a', 'b', 'open 0'])
    } finally {
      for (const trx of held) if (!trx.isCompleted()) await trx.rollback()
    }
    assert.deepEqual(await bodies(db(table).select('body').orderBy('id')), ['a', 'b', 'open 0'])
  })

  it('when every read connection is taken, a short read runs on a free main connection, or on whichever frees first; others wait', async () => {
    const client = db.client as unknown as { readers: Knex.Client }
    const pause = () => new Promise((resolve) => setTimeout(resolve, 200))
    const short = () => db(table).first(readOnly(db)).options(SHORT_READ)
    let heldReader = await client.readers.acquireConnection()
    try {
      // A long search on each read connection: the key look-ups of other requests go on.
      assert.deepEqual(await within(2000, short(), 'a short read beside a held reader'), { ro: 'off' })
      // Any other read waits for a read connection, though the main pool has room (acquire timeout 500 ms).
      await assert.rejects(db(table).first(readOnly(db)), /Timeout acquiring a connection/)
      // The main pool taken too: the read waits for both and runs on the first that frees, here the reader.
      let held = [await db.transaction(), await db.transaction()]
      let waiting = short()
      await pause()
      await client.readers.releaseConnection(heldReader)
      assert.deepEqual(await within(2000, waiting, 'a read once the reader is free'), { ro: 'on' })
      for (const trx of held) await trx.rollback()
      // ... and here a main connection, while the reader stays taken.
      heldReader = await client.readers.acquireConnection()
      held = [await db.transaction(), await db.transaction()]
      waiting = short()
      await pause()
      await held[0].rollback()
      assert.deepEqual(await within(2000, waiting, 'a read once a main connection is free'), { ro: 'off' })
      await held[1].rollback()
    } finally {
      await client.readers.releaseConnection(heldReader)
    }
    // The wait that lost its race takes the reader when it frees and hands it straight back.
    await pause()
    assert.deepEqual(await db(table).first(readOnly(db)), { ro: 'on' }, 'back on the read pool')
    // Every connection went back to its pool: two reads and two writes at once still answer.
    await within(
      2000,
      Promise.all([
        db(table).first(readOnly(db)),
        db(table).first(readOnly(db)),
        db.transaction((trx) => trx(table).insert({ body: 'x' })),
        db.transaction((trx) => trx(table).insert({ body: 'y' }))
      ]),
      'the pools after the waits'
    )
  })

  it('the read sessions are read-only: a read that writes fails loudly and writes nothing', async () => {
    assert.deepEqual(await db(table).first(readOnly(db)), { ro: 'on' })
    const error: any = await db(table)
      .first(db.raw(`setval(pg_get_serial_sequence('${table}', 'id'), 1000) as s`))
      .then(
        () => assert.fail('the read wrote'),
        (e) => e
      )
    assert.equal(error.code, '25006', error.message)
    const { rows } = await db.raw(`select last_value from ${table}_id_seq`)
    assert.ok(Number(rows[0].last_value) < 1000)
  })

  it('raw statements (unless marked ON_READER), writes, reads marked ON_WRITER and a transaction’s reads stay on the main pool', async () => {
    // Raw statements may be reads in name only: a sequence set, a NOTIFY, a session's advisory lock.
    assert.equal((await db.raw('select ' + "current_setting('default_transaction_read_only') as ro")).rows[0].ro, 'off')
    await db.raw(`select setval(pg_get_serial_sequence(?, 'id'), 500)`, [table])
    await db.raw('select pg_notify(?, ?)', ['crewclock_read_pool_test', ''])
    const [{ id }] = await db(table).insert({ body: 'c' }).returning('id')
    assert.equal(id, 501)
    assert.deepEqual(await db(table).first(readOnly(db)).options(ON_WRITER), { ro: 'off' })
    assert.equal(
      (await db.raw("select current_setting('default_transaction_read_only') as ro").options(ON_READER)).rows[0].ro,
      'on'
    )
    await db.transaction(async (trx) => {
      await trx(table).insert({ body: 'in transaction' })
      assert.deepEqual(await trx(table).first(readOnly(trx)), { ro: 'off' })
      assert.equal(Number((await trx(table).count({ n: '*' }).first())!.n), 4, 'the transaction sees its own row')
    })
  })

  it("reports the read pool's statements in the instance's query events", async () => {
    const seen: string[] = []
    const listener = (query: { sql: string }) => seen.push(query.sql)
    db.on('query', listener)
    try {
      await db(table).where({ id: 1 }).first()
    } finally {
      db.off('query', listener)
    }
    assert.equal(seen.length, 1)
    assert.match(seen[0], /^select \* from "read_pool_notes_\d+"/)
  })

  it('a read past the statement timeout is cancelled on the read pool too', async function () {
    const timed = createKnex(suite.db.url, { max: 2 }, { statementTimeoutMs: 300 })
    try {
      const started = Date.now()
      const error: any = await timed(table)
        .first(timed.raw('pg_sleep(5) as slept'))
        .then(
          () => assert.fail('the read ran to its end'),
          (e) => e
        )
      assert.equal(error.code, '57014', error.message)
      assert.ok(Date.now() - started < 3000, `cancelled after ${Date.now() - started} ms`)
      assert.equal((await timed(table).first(readOnly(timed))).ro, 'on', 'the read connection is usable after')
    } finally {
      await timed.destroy()
    }
  })

  it('closes the read connections when the pool ends', async () => {
    const readerPid = (await db(table).first(db.raw('pg_backend_pid() as pid'))).pid
    const mainPid = (await db.raw('select pg_backend_pid() as pid')).rows[0].pid
    assert.notEqual(readerPid, mainPid)
    await db.destroy()
    const admin = suite.server().knex
    const alive = async () =>
      (await admin.raw('select pid from pg_stat_activity where pid = any(?)', [[readerPid, mainPid]])).rows.length
    for (let i = 0; i < 50 && (await alive()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100))
    assert.equal(await alive(), 0)
    db = createKnex(suite.db.url, { max: 2 })
  })
})
