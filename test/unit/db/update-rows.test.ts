import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import { updateRows, updateTables } from '../../../src/db/update-rows'
import { forEachDatabase, scratchTable } from '../../support/harness'

/**
 * `updateRows` (src/db/update-rows.ts): many rows, each with its own columns, in one statement,
 * sent as one JSON parameter (`json_each` on SQLite, `jsonb_array_elements` on PostgreSQL). Both
 * must write exactly what one UPDATE per row would.
 */
forEachDatabase('updateRows', (suite) => {
  const table = scratchTable(suite, 'update_rows_probe', (t) => {
    t.increments('id')
    t.integer('companyId').notNullable().index()
    t.bigInteger('amountMs')
    t.text('note')
    t.boolean('flag')
    if (suite.db.name === 'postgres') t.jsonb('figures')
    else t.text('figures')
    t.timestamp('touchedAt', { useTz: true })
    t.text('updatedAt')
    t.string('code', 8)
    if (suite.db.name === 'postgres') t.specificType('grade', 'char(4)')
  })
  // A second table for `updateTables`: several tables' rows in one call.
  const other = scratchTable(suite, 'update_tables_probe', (t) => {
    t.increments('id')
    t.integer('companyId').notNullable()
    t.integer('count')
    t.string('label', 8)
  })
  let db: Knex

  before(() => {
    db = suite.server().knex
  })

  const seed = async (companyId: number, count: number) => {
    const rows = Array.from({ length: count }, (_, i) => ({
      companyId,
      amountMs: i,
      note: `row ${i}`,
      flag: false,
      figures: JSON.stringify([[i, i]]),
      touchedAt: '2026-01-01T00:00:00.000Z',
      updatedAt: 'before'
    }))
    const ids: number[] = []
    for (const row of rows) {
      const [inserted] = await db(table).insert(row).returning('id')
      ids.push(Number(typeof inserted === 'object' ? inserted.id : inserted))
    }
    return ids
  }

  const read = async (ids: number[]) => {
    const rows = await db(table).whereIn('id', ids).orderBy('id')
    return rows.map((row) => ({
      amountMs: Number(row.amountMs),
      note: row.note,
      flag: Boolean(row.flag),
      figures: typeof row.figures === 'string' ? JSON.parse(row.figures) : row.figures,
      touchedAt: new Date(row.touchedAt).toISOString(),
      updatedAt: row.updatedAt
    }))
  }

  it('sets each row its own columns, keeps the ones it has no value for, sets NULLs, and the common ones everywhere', async () => {
    const ids = await seed(1, 4)
    const big = 2 ** 53 - 1
    await db.transaction((trx) =>
      updateRows(
        trx,
        table,
        1,
        [
          { id: ids[0], columns: { amountMs: big, note: null } },
          {
            id: ids[1],
            columns: {
              flag: true,
              figures: JSON.stringify([
                [7, 8],
                [9, 10]
              ])
            }
          },
          { id: ids[2], columns: { note: 'it\'s "quoted" — ünïcode', touchedAt: '2026-03-29T01:00:00.000Z' } }
        ],
        { updatedAt: 'after' }
      )
    )
    assert.deepEqual(await read(ids), [
      {
        amountMs: big,
        note: null,
        flag: false,
        figures: [[0, 0]],
        touchedAt: '2026-01-01T00:00:00.000Z',
        updatedAt: 'after'
      },
      {
        amountMs: 1,
        note: 'row 1',
        flag: true,
        figures: [
          [7, 8],
          [9, 10]
        ],
        touchedAt: '2026-01-01T00:00:00.000Z',
        updatedAt: 'after'
      },
      {
        amountMs: 2,
        note: 'it\'s "quoted" — ünïcode',
        flag: false,
        figures: [[2, 2]],
        touchedAt: '2026-03-29T01:00:00.000Z',
        updatedAt: 'after'
      },
      // Not named: untouched, the common columns included.
      {
        amountMs: 3,
        note: 'row 3',
        flag: false,
        figures: [[3, 3]],
        touchedAt: '2026-01-01T00:00:00.000Z',
        updatedAt: 'before'
      }
    ])
  })

  it("never writes another company's row, even when its id is named", async () => {
    const mine = await seed(2, 1)
    const theirs = await seed(3, 1)
    await updateRows(db, table, 2, [
      { id: mine[0], columns: { amountMs: 100 } },
      { id: theirs[0], columns: { amountMs: 100 } }
    ])
    assert.deepEqual(
      (await read([...mine, ...theirs])).map((row) => row.amountMs),
      [100, 0]
    )
  })

  it('writes hundreds of rows in one call (more than one statement), and nothing for none', async () => {
    const ids = await seed(4, 1100)
    await updateRows(db, table, 4, [])
    await updateRows(
      db,
      table,
      4,
      ids.map((id, i) => ({ id, columns: { amountMs: 1000 + i, ...(i % 2 ? { flag: true } : {}) } }))
    )
    const rows = await read(ids)
    assert.deepEqual(
      rows.map((row) => row.amountMs),
      ids.map((_, i) => 1000 + i)
    )
    assert.deepEqual(
      rows.map((row) => row.flag),
      ids.map((_, i) => i % 2 === 1)
    )
  })

  it('PostgreSQL: a text longer than its column is refused, not cut to fit (the cast has no length)', async function () {
    if (suite.db.name !== 'postgres') return this.skip()
    const [id, other] = await seed(6, 2)
    await updateRows(db, table, 6, [
      { id, columns: { code: 'ABCDEFGH' } },
      { id: other, columns: { note: 'kept' } }
    ])
    await assert.rejects(
      updateRows(db, table, 6, [{ id, columns: { code: 'ABCDEFGHIJ' } }]),
      /value too long for type character varying\(8\)/
    )
    assert.deepEqual(
      (await db(table).whereIn('id', [id, other]).orderBy('id')).map((row) => [row.code, row.note]),
      [
        ['ABCDEFGH', 'row 0'],
        [null, 'kept']
      ]
    )
  })

  it('PostgreSQL: stores what a one-row UPDATE with the value as a parameter stores', async function () {
    if (suite.db.name !== 'postgres') return this.skip()
    const cases: [string, unknown][] = [
      ['note', 1e21],
      ['note', 1e-7],
      ['note', -0],
      ['note', true],
      ['note', 'lone \ud800 surrogate'],
      ['note', `quote ' and " and \\ and 😀`],
      ['amountMs', 2 ** 53],
      ['amountMs', -(2 ** 53)],
      ['grade', 'ab'],
      ['code', '']
    ]
    const ids = await seed(7, 2)
    for (const [column, value] of cases) {
      await updateRows(db, table, 7, [{ id: ids[0], columns: { [column]: value } }])
      await db(table)
        .where({ id: ids[1] })
        .update({ [column]: value })
      const [viaRows, plain] = await db(table).whereIn('id', ids).orderBy('id').pluck(column)
      assert.deepEqual(viaRows, plain, `${column} = ${JSON.stringify(value)}`)
    }
    // A char(4) keeps its length check: the cast is to bpchar, not to char(1).
    await assert.rejects(updateRows(db, table, 7, [{ id: ids[0], columns: { grade: 'ünï 😀' } }]), /value too long/)
  })

  it('refuses values JSON would carry differently from a bound parameter, and a row named twice', async () => {
    const [id] = await seed(5, 1)
    for (const columns of [
      { amountMs: undefined },
      { amountMs: Infinity },
      { touchedAt: new Date() },
      { amountMs: 10n }
    ])
      await assert.rejects(updateRows(db, table, 5, [{ id, columns }]), /is not a number, text, boolean or null/)
    await assert.rejects(
      updateRows(db, table, 5, [
        { id, columns: { amountMs: 1 } },
        { id, columns: { note: 'x' } }
      ]),
      /is named twice/
    )
    assert.deepEqual(
      (await read([id])).map((row) => row.amountMs),
      [0],
      'nothing written'
    )
  })

  it("looks rows up by id, not by walking the company's rows, also without statistics (SQLite's plan)", async function () {
    if (suite.db.name !== 'sqlite') return this.skip()
    // A table the planner has no statistics for, with many rows of one company: the company's
    // index would be a scan of all of them per JSON element.
    const ids = await seed(6, 50)
    await db.raw('delete from sqlite_stat1 where tbl = ?', [table]).catch(() => undefined)
    let sql: { sql: string; bindings: unknown[] } | undefined
    const capture = (query: { sql: string; bindings: unknown[] }) => {
      if (query.sql.includes('json_each')) sql = query
    }
    db.on('query', capture)
    try {
      await updateRows(
        db,
        table,
        6,
        ids.slice(0, 5).map((id) => ({ id, columns: { amountMs: 7 } }))
      )
    } finally {
      db.off('query', capture)
    }
    const plan: { detail: string }[] = await db.raw(`EXPLAIN QUERY PLAN ${sql!.sql}`, sql!.bindings as Knex.Value[])
    const details = plan.map((step) => step.detail)
    assert.ok(
      details.some((detail) => /USING INTEGER PRIMARY KEY/.test(detail)),
      details.join(' | ')
    )
    assert.ok(!details.some((detail) => /INDEX .*company/i.test(detail)), details.join(' | '))
  })

  it('refuses a column that is both common and per row', async () => {
    await assert.rejects(
      updateRows(db, table, 1, [{ id: 1, columns: { updatedAt: 'x' } }], { updatedAt: 'y' }),
      /updatedAt is both a common and a per-row column/
    )
  })

  describe('updateTables', () => {
    const seedOther = async (companyId: number, count: number) => {
      const ids: number[] = []
      for (let i = 0; i < count; i++) {
        const [inserted] = await db(other)
          .insert({ companyId, count: i, label: `l${i}` })
          .returning('id')
        ids.push(Number(typeof inserted === 'object' ? inserted.id : inserted))
      }
      return ids
    }
    const readOther = async (ids: number[]) =>
      (await db(other).whereIn('id', ids).orderBy('id')).map((row) => [Number(row.count), row.label])

    /**
     * The statements `work` sends in a transaction of its own: BEGIN and COMMIT left out, and
     * PostgreSQL's catalogue read of a table's column types (once per table and process, again
     * after a failed update).
     */
    const statementsOf = async (work: (trx: Knex.Transaction) => Promise<void>) => {
      const sent: string[] = []
      const listen = (query: { sql: string }) => sent.push(query.sql)
      db.on('query', listen)
      try {
        await db.transaction(work)
      } finally {
        db.off('query', listen)
      }
      return sent.filter((sql) => !/^(BEGIN|COMMIT)/i.test(sql) && !sql.includes('from pg_attribute'))
    }

    it('writes the rows of several tables as separate calls would, on PostgreSQL in one statement', async () => {
      const ids = await seed(20, 3)
      const otherIds = await seedOther(20, 3)
      const theirs = await seedOther(21, 1)
      const sent = await statementsOf((trx) =>
        updateTables(trx, [
          {
            table,
            companyId: 20,
            rows: [{ id: ids[0], columns: { amountMs: 7, note: null } }],
            common: { updatedAt: 'x' }
          },
          { table: other, companyId: 20, rows: [] },
          {
            table: other,
            companyId: 20,
            rows: [
              { id: otherIds[1], columns: { count: 41 } },
              { id: otherIds[2], columns: { label: 'neu' } },
              { id: theirs[0], columns: { count: 99 } }
            ]
          }
        ])
      )
      assert.equal(sent.length, suite.db.name === 'postgres' ? 1 : 2, sent.join('\n'))
      assert.deepEqual(
        (await read(ids)).map((row) => [row.amountMs, row.note, row.updatedAt]),
        [
          [7, null, 'x'],
          [1, 'row 1', 'before'],
          [2, 'row 2', 'before']
        ]
      )
      assert.deepEqual(await readOther(otherIds), [
        [0, 'l0'],
        [41, 'l1'],
        [2, 'neu']
      ])
      // Another company's row named by id is not written.
      assert.deepEqual(await readOther(theirs), [[0, 'l0']])
    })

    it('writes nothing of any table when one of them fails (PostgreSQL: the one statement is refused)', async () => {
      const ids = await seed(22, 1)
      const otherIds = await seedOther(22, 1)
      // A NOT NULL column set to NULL: refused by the database itself, on SQLite after the first
      // table's UPDATE has run (the transaction takes it back), on PostgreSQL within the one statement.
      await assert.rejects(
        db.transaction((trx) =>
          updateTables(trx, [
            { table, companyId: 22, rows: [{ id: ids[0], columns: { amountMs: 5 } }] },
            { table: other, companyId: 22, rows: [{ id: otherIds[0], columns: { count: 3, companyId: null } }] }
          ])
        ),
        /null|NOT NULL/i
      )
      assert.deepEqual(
        (await read(ids)).map((row) => row.amountMs),
        [0]
      )
      assert.deepEqual(await readOther(otherIds), [[0, 'l0']])
    })

    // Found by a review: as parts of one statement, two writes of one row start from the same
    // snapshot and PostgreSQL keeps one of them, without an error.
    it('writes both when a table is named twice, as two updateRows calls would', async () => {
      const otherIds = await seedOther(24, 1)
      await db.transaction((trx) =>
        updateTables(trx, [
          { table: other, companyId: 24, rows: [{ id: otherIds[0], columns: { count: 7 } }] },
          { table, companyId: 24, rows: [] },
          { table: other, companyId: 24, rows: [{ id: otherIds[0], columns: { label: 'b' } }] }
        ])
      )
      assert.deepEqual(await readOther(otherIds), [[7, 'b']])
    })

    it('PostgreSQL: names the statement by its text and writes what each run asks past the fifth (its generic plan)', async function () {
      if (suite.db.name !== 'postgres') return this.skip()
      const ids = await seed(25, 3)
      const otherIds = await seedOther(25, 2)
      const names = new Set<string>()
      const listen = (query: { sql: string; options?: { name?: string } }) => {
        if (query.sql.startsWith('WITH')) names.add(String(query.options?.name))
      }
      for (let run = 0; run < 9; run++) {
        db.on('query', listen)
        try {
          await db.transaction(async (trx) => {
            await updateTables(trx, [
              { table, companyId: 25, rows: ids.map((id, i) => ({ id, columns: { amountMs: run * 10 + i } })) },
              { table: other, companyId: 25, rows: otherIds.map((id) => ({ id, columns: { count: run } })) }
            ])
            // Prepared on this connection under that name, and run there (generic plans after the fifth).
            const { rows } = await trx.raw('select name from pg_prepared_statements where name = ?', [[...names][0]])
            assert.equal(rows.length, 1)
          })
        } finally {
          db.off('query', listen)
        }
        assert.deepEqual(
          (await read(ids)).map((row) => row.amountMs),
          ids.map((_, i) => run * 10 + i)
        )
        assert.deepEqual(
          (await readOther(otherIds)).map(([count]) => count),
          [run, run]
        )
      }
      assert.equal(names.size, 1, `one name for one text, got ${[...names].join(', ')}`)
    })

    it('writes the unchanged values along on PostgreSQL only, which keeps its text one of a few', async () => {
      const ids = await seed(26, 2)
      const sent = await statementsOf((trx) =>
        updateTables(trx, [
          {
            table,
            companyId: 26,
            rows: [
              { id: ids[0], columns: { amountMs: 1 }, unchanged: { note: 'row 0' } },
              { id: ids[1], columns: { note: 'moved' }, unchanged: { amountMs: 1 } }
            ]
          }
        ])
      )
      assert.equal(sent.length, 1)
      // Both columns for both rows on PostgreSQL; SQLite names each only for the rows that change it (CASE).
      if (suite.db.name === 'postgres') assert.doesNotMatch(sent[0], /CASE/)
      else assert.match(sent[0], /CASE/)
      assert.deepEqual(
        (await read(ids)).map((row) => [row.amountMs, row.note]),
        [
          [1, 'row 0'],
          [1, 'moved']
        ]
      )
    })

    it('sends a table whose rows need more than one statement apart, and writes all of them', async () => {
      const ids = await seed(23, 600)
      const otherIds = await seedOther(23, 2)
      const sent = await statementsOf((trx) =>
        updateTables(trx, [
          { table, companyId: 23, rows: ids.map((id, i) => ({ id, columns: { amountMs: 5000 + i } })) },
          { table: other, companyId: 23, rows: otherIds.map((id) => ({ id, columns: { count: 8 } })) }
        ])
      )
      assert.equal(sent.length, 3)
      assert.deepEqual(
        (await read(ids)).map((row) => row.amountMs),
        ids.map((_, i) => 5000 + i)
      )
      assert.deepEqual(await readOther(otherIds), [
        [8, 'l0'],
        [8, 'l1']
      ])
    })
  })
})
