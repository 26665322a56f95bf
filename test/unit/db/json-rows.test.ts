import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import { wholeRows, wholeRowsOf, WholeRowsShapes } from '../../../src/db/json-rows'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createKnex } from '../../../src/db/knex'
import { forEachDatabase, scratchTable } from '../../support/harness'

/**
 * `wholeRows` (src/db/json-rows.ts): whole rows read as one JSON document each must hold what a
 * `select *` gives, value for value, in the order asked for; a timestamp may be ISO text where
 * PostgreSQL's driver gives a `Date` (the same instant).
 */
forEachDatabase('wholeRows', (suite) => {
  const pg = suite.db.name === 'postgres'
  const table = scratchTable(suite, 'whole_rows_probe', (t) => {
    t.increments('id')
    t.integer('companyId').notNullable()
    t.bigInteger('amountMs')
    t.text('note')
    t.boolean('flag')
    if (pg) t.jsonb('figures')
    else t.text('figures')
    t.timestamp('touchedAt', { useTz: true, precision: 3 })
    t.date('day')
    t.string('code', 8)
    t.double('ratio')
    t.decimal('share', 12, 6)
  })
  const wide = scratchTable(suite, 'whole_rows_wide', (t) => {
    t.increments('id')
    t.integer('companyId').notNullable()
    for (let i = 0; i < 70; i++) t.integer(`c${i}`)
  })
  let db: Knex

  before(() => {
    db = suite.server().knex
  })

  const odd = [
    'plain',
    'quote \' and "double" and \\ backslash',
    'line\nbreak\ttab \u0001 control',
    'Grüße, perché, 😀 emoji',
    '[1,2]',
    '{"looks":"like json"}',
    '',
    null
  ]

  const seed = async (companyId: number) => {
    for (const [i, note] of odd.entries())
      await db(table).insert({
        companyId,
        amountMs: i % 2 ? -(2 ** 53 - 1) : i * 3_600_000,
        note,
        flag: i % 3 === 0 ? true : i % 3 === 1 ? false : null,
        figures:
          i === odd.length - 1
            ? null
            : JSON.stringify([
                [i, -i],
                [0, 28_800_000]
              ]),
        touchedAt: i === 2 ? null : new Date(Date.UTC(2026, 2, 29, 1, 59, 59, i * 111)).toISOString(),
        day: `2026-0${(i % 9) + 1}-2${i % 10}`,
        code: i === 3 ? null : `K-${i}`,
        // Doubles that 15 significant digits would round (0.30000000000000004 read back as 0.3 once).
        ratio: [0.30000000000000004, 1 / 3, 123456789.12345679, 1e300, 5e-324, -2.5, 7, null][i],
        share: [0.5, 1.25, 2, null, 0.000001, -3.5, 10, 0][i]
      })
  }

  /** A row as both reads should agree on it: instants as ISO text, documents parsed, booleans as 1/0. */
  const comparable = (row: Record<string, unknown>) => ({
    ...row,
    flag: row.flag === null ? null : Number(row.flag),
    figures: typeof row.figures === 'string' ? JSON.parse(row.figures) : row.figures,
    touchedAt: row.touchedAt === null ? null : new Date(row.touchedAt as string).toISOString()
  })

  it('gives every column of every row as select * does, keys in camelCase, in the order asked for', async () => {
    await seed(1)
    await seed(2)
    const filter = (query: Knex.QueryBuilder) => query.where({ companyId: 1 }).orderBy('id', 'desc')
    const plain = await filter(db(table).select('*'))
    const json = await wholeRows(db, table, filter)
    assert.equal(json.length, odd.length)
    assert.deepEqual(Object.keys(json[0]).sort(), Object.keys(plain[0]).sort())
    assert.deepEqual(json.map(comparable), plain.map(comparable))
    assert.deepEqual(
      json.map((row) => row.note),
      [...odd].reverse()
    )
    // Text that looks like JSON stays text; numbers stay numbers (the largest exact integer too).
    assert.equal(json.find((row) => row.note === '[1,2]')!.note, '[1,2]')
    assert.ok(json.some((row) => row.amountMs === -(2 ** 53 - 1)))
    assert.ok(json.every((row) => row.companyId === 1))
    // Every double exactly as select * gives it (Object.is: no rounding, no -0 for 0).
    json.forEach((row, i) => {
      assert.ok(Object.is(row.ratio, plain[i].ratio), `ratio ${row.ratio} vs ${plain[i].ratio}`)
      assert.ok(Object.is(Number(row.share), Number(plain[i].share)) || row.share === plain[i].share)
    })
    assert.ok(json.some((row) => row.ratio === 0.30000000000000004))
  })

  it('reads rows with the same statement on a transaction, and a filter matching nothing as none', async () => {
    await db.transaction(async (trx) => {
      const rows = await wholeRows(trx, table, (query) => query.where({ companyId: 3 }), 'crewclock_test_whole_rows')
      assert.deepEqual(rows, [])
      await trx(table).insert({ companyId: 3, note: 'in the transaction' })
      const again = await wholeRows(trx, table, (query) => query.where({ companyId: 3 }), 'crewclock_test_whole_rows')
      assert.deepEqual(
        again.map((row) => row.note),
        ['in the transaction']
      )
    })
  })

  it('reads a table too wide for one json_object as plain rows', async () => {
    await db(wide).insert({ companyId: 1, c0: 7, c69: 9 })
    const [row] = await wholeRows(db, wide, (query) => query.where({ companyId: 1 }))
    assert.equal(row.c0, 7)
    assert.equal(row.c69, 9)
    assert.equal(Object.keys(row).length, 72)
  })

  it('reads several tables in one statement, each part its own rows, as select * gives them', async () => {
    const ids: number[] = (await db(table).where({ companyId: 1 }).orderBy('id').select('id')).map((r) => r.id)
    const [wideRow] = await db(wide).insert({ companyId: 5, c1: 11 }).returning('id')
    const wideId = Number(typeof wideRow === 'object' ? wideRow.id : wideRow)
    const [first, nothing, second, many] = await wholeRowsOf(
      db,
      [
        { table, filter: (query) => query.where({ companyId: 1 }).whereIn('id', [ids[1]]) },
        { table, filter: (query) => query.where({ companyId: 2 }).whereIn('id', [ids[1]]) },
        { table, filter: (query) => query.where({ companyId: 1 }).whereIn('id', [ids[4]]) },
        { table, filter: (query) => query.where({ companyId: 1 }).whereIn('id', ids.slice(0, 3)) }
      ],
      { purpose: 'json-rows test' }
    )
    const plain = async (id: number) => comparable(await db(table).where({ id }).first())
    assert.deepEqual(first.map(comparable), [await plain(ids[1])])
    assert.deepEqual(nothing, [])
    assert.deepEqual(second.map(comparable), [await plain(ids[4])])
    assert.deepEqual(
      many.map((row) => row.id).sort((a, b) => Number(a) - Number(b)),
      ids.slice(0, 3)
    )
    // A table too wide for one json_object: every part is read on its own, the parts still apart.
    const [narrow, broad] = await wholeRowsOf(
      db,
      [
        { table, filter: (query) => query.whereIn('id', [ids[0]]) },
        { table: wide, filter: (query) => query.where({ companyId: 5 }) }
      ],
      false
    )
    assert.deepEqual(
      narrow.map((row) => row.id),
      [ids[0]]
    )
    assert.deepEqual(
      broad.map((row) => [row.id, row.c1]),
      [[wideId, 11]]
    )
    assert.deepEqual(await wholeRowsOf(db, [], false), [])
  })

  it('reads a query of its own as a part (a join, named columns), its values as a select of it gives them', async () => {
    const ids: number[] = (await db(table).where({ companyId: 1 }).orderBy('id').select('id')).map((r) => r.id)
    const columns = ['id', 'note', 'ratio', 'share', 'day', 'amountMs', 'otherNote']
    const query = () =>
      db({ a: table })
        .join({ b: table }, 'b.id', 'a.id')
        .where('a.companyId', 1)
        .select('a.id', 'a.note', 'a.ratio', 'a.share', 'a.day', 'a.amountMs', { otherNote: 'b.note' })
    const [one, joined] = await wholeRowsOf(
      db,
      [
        { table, filter: (q) => q.where({ companyId: 1 }).whereIn('id', [ids[0]]) },
        { query: query(), columns }
      ],
      { purpose: 'json-rows test' }
    )
    assert.deepEqual(
      one.map((row) => row.id),
      [ids[0]]
    )
    const plain = await query().orderBy('a.id')
    const sorted = [...joined].sort((a, b) => Number(a.id) - Number(b.id))
    assert.equal(sorted.length, odd.length)
    sorted.forEach((row, i) => {
      assert.deepEqual(Object.keys(row).sort(), [...columns].sort())
      assert.equal(row.note, plain[i].note)
      assert.equal(row.otherNote, plain[i].note)
      assert.equal(row.amountMs, plain[i].amountMs)
      assert.equal(row.day, plain[i].day)
      // Doubles exactly (SQLite: a REAL through quote, whatever the column's type).
      assert.ok(Object.is(row.ratio, plain[i].ratio), `ratio ${row.ratio} vs ${plain[i].ratio}`)
      assert.ok(Object.is(Number(row.share), Number(plain[i].share)) || row.share === plain[i].share)
    })
    assert.ok(sorted.some((row) => row.ratio === 0.30000000000000004))
    // Beside a table too wide for one json_object: each part on its own, the query part too.
    await db(wide).insert({ companyId: 6, c2: 12 })
    const [broad, alone] = await wholeRowsOf(
      db,
      [
        { table: wide, filter: (q) => q.where({ companyId: 6 }) },
        { query: query().where('a.id', ids[2]), columns }
      ],
      false
    )
    assert.deepEqual(
      broad.map((row) => row.c2),
      [12]
    )
    assert.deepEqual(
      alone.map((row) => [row.id, row.note]),
      [[ids[2], odd[2]]]
    )
  })

  it('reads more parts than one compound select may have, in several statements, each part its own rows', async () => {
    const ids: number[] = (await db(table).where({ companyId: 1 }).orderBy('id').select('id')).map((r) => r.id)
    const parts = Array.from({ length: 1_203 }, (_, i) => ({
      table,
      filter: (query: Knex.QueryBuilder) => query.where({ companyId: 1 }).whereIn('id', [ids[i % ids.length]])
    }))
    // Unnamed when the caller says so, and so are the statements of its chunks (their lengths vary).
    const names: unknown[] = []
    const listen = (query: { options?: { name?: string } }) => names.push(query.options?.name)
    db.on('query', listen)
    let found: Record<string, unknown>[][]
    try {
      found = await wholeRowsOf(db, parts, false)
    } finally {
      db.off('query', listen)
    }
    // 1 203 parts: 13 statements of at most 100 parts, none named.
    assert.deepEqual(
      names,
      Array.from({ length: 13 }, () => undefined)
    )
    assert.equal(found.length, parts.length)
    assert.ok(found.every((rows, i) => rows.length === 1 && rows[0].id === ids[i % ids.length]))
  })

  it("PostgreSQL: runs its sessions in UTC, so a timestamp read as text is ISO 8601 whatever the server's zone", async function () {
    if (!pg) return this.skip()
    const url = new URL(suite.db.url)
    // A zone whose offset had seconds (until 1972) as the connection's own setting, and the URL's
    // other options kept: the session still runs in UTC.
    url.searchParams.set('options', '-c TimeZone=Africa/Monrovia -c application_name=crewclock-zone-test')
    const zoned = createKnex(url.toString())
    try {
      const [settings] = (
        await zoned.raw(`select current_setting('TimeZone') as zone, current_setting('application_name') as app`)
      ).rows
      assert.deepEqual(settings, { zone: 'UTC', app: 'crewclock-zone-test' })
      await zoned(table).insert({ companyId: 9, touchedAt: '1971-06-01T10:00:00.000Z' })
      const [row] = await wholeRows(zoned, table, (query) => query.where({ companyId: 9 }))
      assert.equal(new Date(row.touchedAt as string).toISOString(), '1971-06-01T10:00:00.000Z')
    } finally {
      await zoned.destroy()
    }
  })

  it('reads the columns again after a migration dropped one it knew', async () => {
    const filter = (query: Knex.QueryBuilder) => query.where({ companyId: 1 }).orderBy('id')
    const before = await wholeRows(db, table, filter)
    assert.ok('code' in before[0])
    await db.schema.alterTable(table, (t) => t.dropColumn('code'))
    // SQLite's list of columns predates the migration: that read fails, the next one reads the list anew.
    // PostgreSQL's row_to_json has no list to keep.
    let rows: Record<string, unknown>[] | undefined
    try {
      rows = await wholeRows(db, table, filter)
    } catch (error) {
      assert.ok(!pg, `PostgreSQL failed: ${error}`)
      assert.match(String(error), /no such column/)
      rows = await wholeRows(db, table, filter)
    }
    assert.equal(rows.length, before.length)
    assert.ok(!('code' in rows[0]))
  })

  it('compiled once per shape (WholeRowsShapes): reads as wholeRowsOf does, and anew after a migration dropped a column', async () => {
    const ids: number[] = (await db(table).where({ companyId: 1 }).orderBy('id').select('id')).map((r) => r.id)
    const parts = (_q: Knex, [count]: readonly [number], [companyId, ...picked]: readonly [number, ...number[]]) =>
      picked
        .slice(0, count)
        .map((id) => ({ table, filter: (query: Knex.QueryBuilder) => query.where({ companyId, id }) }))
    const shapes = new WholeRowsShapes([table], parts, `json-rows shapes ${process.pid}`)
    for (const picked of [
      [ids[1], ids[2]],
      [ids[3], ids[0]]
    ]) {
      const read = await shapes.read(db, [2], [1, ...picked])
      const direct = await wholeRowsOf(db, parts(db, [2], [1, ...picked]), false)
      assert.deepEqual(
        read.map((rows) => rows.map(comparable)),
        direct.map((rows) => rows.map(comparable))
      )
      assert.deepEqual(
        read.map((rows) => rows.map((row) => row.id)),
        picked.map((id) => [id])
      )
    }
    assert.deepEqual(await shapes.read(db, [2], [2, ids[1], ids[2]]), [[], []], 'another company: nothing')
    assert.deepEqual(await shapes.read(db, [0], [1]), [], 'no parts: no statement')
    await db.schema.alterTable(table, (t) => t.dropColumn('share'))
    // SQLite's template and list of columns predate the migration: that read fails, the next one makes both anew.
    let found: Record<string, unknown>[][] | undefined
    try {
      found = await shapes.read(db, [2], [1, ids[1], ids[2]])
    } catch (error) {
      assert.ok(!pg, `PostgreSQL failed: ${error}`)
      assert.match(String(error), /no such column/)
      found = await shapes.read(db, [2], [1, ids[1], ids[2]])
    }
    assert.deepEqual(
      found.map((rows) => rows.map((row) => row.id)),
      [[ids[1]], [ids[2]]]
    )
    assert.ok(!('share' in found[0][0]))
  })

  ;(pg ? it.skip : it)(
    'keeps a template per database: two SQLite databases whose tables differ each read their own columns',
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crewclock-shapes-'))
      const other = createKnex(`sqlite://${path.join(dir, 'other.sqlite')}`)
      try {
        await other.schema.createTable(table, (t) => {
          t.increments('id')
          t.integer('companyId').notNullable()
          t.text('onlyHere')
        })
        const [{ id: otherId }] = await other(table).insert({ companyId: 1, onlyHere: 'x' }, ['id'])
        const [{ id: ownId }] = await db(table).where({ companyId: 1 }).orderBy('id').select('id')
        const shapes = new WholeRowsShapes(
          [table],
          (_q, _shape: [], [companyId, id]: readonly [number, number]) => [
            { table, filter: (query: Knex.QueryBuilder) => query.where({ companyId, id }) }
          ],
          `json-rows databases ${process.pid}`
        )
        for (let i = 0; i < 2; i++) {
          const [[own]] = await shapes.read(db, [], [1, ownId])
          assert.ok('note' in own && !('onlyHere' in own))
          assert.deepEqual(await shapes.read(other, [], [1, otherId]), [[{ id: otherId, companyId: 1, onlyHere: 'x' }]])
        }
      } finally {
        await other.destroy()
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }
  )
})
