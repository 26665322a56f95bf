import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import { MAX_SHAPES, StatementShapes } from '../../../src/db/statement-shapes'
import { nameOfText } from '../../../src/db/dialect'
import { ON_WRITER } from '../../../src/db/knex'
import { forEachDatabase, scratchTable } from '../../support/harness'

/**
 * `StatementShapes` (src/db/statement-shapes.ts): a statement compiled once per shape runs with the
 * values of each call, answers as the statement built from them would (rows, a first row), and the
 * checked mode the tests run in catches a builder that looks at its values.
 */
forEachDatabase('statements compiled once per shape', (suite) => {
  const pg = suite.db.name === 'postgres'
  const table = scratchTable(suite, 'shape_probe', (t) => {
    t.increments('id')
    t.integer('companyId').notNullable()
    t.text('note')
    t.timestamp('touchedAt', { useTz: true, precision: 3 })
  })
  let db: Knex

  before(async () => {
    db = suite.server().knex
    await db(table).insert([
      { companyId: 1, note: 'a', touchedAt: '2026-01-01T10:00:00.000Z' },
      { companyId: 1, note: 'b', touchedAt: '2026-01-02T10:00:00.000Z' },
      { companyId: 2, note: 'c', touchedAt: '2026-01-03T10:00:00.000Z' }
    ])
  })

  /** A statement whose shape says whether it also filters by note; `built` counts the builder's calls. */
  function probe(purpose?: string) {
    let built = 0
    const shapes = new StatementShapes(
      (q, [byNote]: readonly [boolean], [companyId, from, note]: readonly [number, string, string]) => {
        built++
        const query = q(table).where({ companyId }).where('touchedAt', '>=', from).select('note').orderBy('id')
        if (byNote) query.where('note', note)
        return query
      },
      purpose
    )
    return { shapes, built: () => built }
  }

  it('builds a shape once and runs it with each call’s values (the checked mode builds again to compare)', async () => {
    const { shapes, built } = probe()
    const check = process.env.CREWCLOCK_CHECK_SHAPES
    delete process.env.CREWCLOCK_CHECK_SHAPES
    try {
      const notes = async (byNote: boolean, values: readonly [number, string, string]) =>
        ((await shapes.statement(db, [byNote], values)) as { note: string }[]).map((row) => row.note)
      assert.deepEqual(await notes(false, [1, '2026-01-01T00:00:00.000Z', '']), ['a', 'b'])
      assert.deepEqual(await notes(false, [1, '2026-01-02T00:00:00.000Z', '']), ['b'])
      assert.deepEqual(await notes(false, [2, '2026-01-01T00:00:00.000Z', '']), ['c'])
      assert.equal(built(), 1, 'one build for three runs of one shape')
      assert.deepEqual(await notes(true, [1, '2026-01-01T00:00:00.000Z', 'a']), ['a'])
      assert.deepEqual(await notes(true, [1, '2026-01-01T00:00:00.000Z', 'z']), [])
      assert.equal(built(), 2, 'a second shape, built once')
    } finally {
      if (check !== undefined) process.env.CREWCLOCK_CHECK_SHAPES = check
    }
    await shapes.statement(db, [true], [1, '2026-01-01T00:00:00.000Z', 'a'])
    assert.equal(built(), 3, 'checked: built again from the values')
  })

  it('keeps the method of the builder: `first` answers one row, an insert its ids, in a transaction', async () => {
    const first = new StatementShapes((q, _shape: [], [id]: readonly [number]) =>
      q(table).where({ id }).first('note', 'companyId')
    )
    assert.deepEqual(await first.statement(db, [], [1]), { note: 'a', companyId: 1 })
    assert.equal(await first.statement(db, [], [999]), undefined)
    const insert = new StatementShapes((q, _shape: [], [companyId, note]: readonly [number, string]) =>
      q(table).insert({ companyId, note }, ['id'])
    )
    const trx = await db.transaction()
    try {
      const [{ id }] = (await insert.statement(trx, [], [7, 'in a transaction'])) as { id: number }[]
      assert.deepEqual(await first.statement(trx, [], [id]), { note: 'in a transaction', companyId: 7 })
    } finally {
      await trx.rollback()
    }
    assert.equal(await db(table).where({ companyId: 7 }).first('id'), undefined, 'rolled back with its transaction')
  })

  it('routes a read as its builder would: outside a transaction to a read connection, ON_WRITER to the writer', async () => {
    // The read connections are read-only (SQLite: query_only; PostgreSQL: read-only transactions).
    const readOnly = (q: Knex) =>
      pg
        ? q.select(q.raw("current_setting('transaction_read_only') as ro"))
        : q.from(q.raw('pragma_query_only')).select('queryOnly as ro')
    const shapes = new StatementShapes((q, [writer]: readonly [boolean], _values: readonly []) => {
      const query = readOnly(q as Knex)
      return writer ? query.options(ON_WRITER) : query
    })
    const read = async (writer: boolean) =>
      String(((await shapes.statement(db, [writer], [])) as { ro: unknown }[])[0].ro)
    for (let i = 0; i < 2; i++) {
      assert.equal(await read(false), pg ? 'on' : '1', 'a read connection')
      assert.equal(await read(true), pg ? 'off' : '0', 'the writer')
    }
  })

  it('refuses an undefined value, as knex does, instead of binding it as NULL (a filter that matches nothing)', async () => {
    const { shapes } = probe()
    await shapes.statement(db, [false], [1, '2026-01-01T00:00:00.000Z', ''])
    assert.throws(
      () => shapes.statement(db, [false], [undefined as unknown as number, '2026-01-01T00:00:00.000Z', '']),
      /value 0 is undefined/
    )
  })

  it('refuses in the checked mode a builder that tests its values: the template would keep one branch', async () => {
    const careless = new StatementShapes((q, _shape: [], [note]: readonly [string | null]) =>
      note === null ? q(table).whereNull('note').select('id') : q(table).where({ note }).select('id')
    )
    await assert.rejects(async () => careless.statement(db, [], [null]), /differs from its statement/)
  })

  it('runs the statements of shapes past MAX_SHAPES as knex builds them, each time', async () => {
    let built = 0
    const many = new StatementShapes((q, [n]: readonly [number], [companyId]: readonly [number]) => {
      built++
      return q(table)
        .where({ companyId })
        .select(q.raw(`${n} as n`), 'note')
        .orderBy('id')
    })
    const check = process.env.CREWCLOCK_CHECK_SHAPES
    delete process.env.CREWCLOCK_CHECK_SHAPES
    try {
      for (let n = 0; n < MAX_SHAPES; n++) await many.statement(db, [n], [2])
      assert.equal(built, MAX_SHAPES)
      for (let i = 0; i < 2; i++)
        assert.deepEqual(await many.statement(db, [MAX_SHAPES], [2]), [{ n: MAX_SHAPES, note: 'c' }])
      assert.equal(built, MAX_SHAPES + 2, 'the shape past the bound is built for each run')
      assert.deepEqual(await many.statement(db, [0], [1]), [
        { n: 0, note: 'a' },
        { n: 0, note: 'b' }
      ])
      assert.equal(built, MAX_SHAPES + 2, 'a kept shape is not built again')
    } finally {
      if (check !== undefined) process.env.CREWCLOCK_CHECK_SHAPES = check
    }
  })
  ;(pg ? it : it.skip)(
    'names a statement with a purpose by its text on PostgreSQL and runs it under that name',
    async () => {
      const purpose = `shape probe ${process.pid}`
      const { shapes } = probe(purpose)
      const sent: unknown[] = []
      const listen = (query: { options?: { name?: unknown } }) => sent.push(query.options?.name)
      db.on('query', listen)
      try {
        await db.transaction(async (trx) => {
          assert.deepEqual(await shapes.statement(trx, [false], [1, '2026-01-02T00:00:00.000Z', '']), [{ note: 'b' }])
          const compiled = trx(table)
            .where({ companyId: 1 })
            .where('touchedAt', '>=', 'x')
            .select('note')
            .orderBy('id')
            .toSQL()
          const name = nameOfText(purpose, compiled.sql)
          assert.ok(name)
          assert.ok(sent.includes(name), 'sent under the name of its text')
          const prepared = await trx.raw('select 1 from pg_prepared_statements where name = ?', [name])
          assert.equal(prepared.rows.length, 1)
        })
      } finally {
        db.removeListener('query', listen)
      }
    }
  )
})
