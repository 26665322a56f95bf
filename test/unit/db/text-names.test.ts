import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import { MAX_TEXT_NAMES, namedByText, nameOfText } from '../../../src/db/dialect'
import { createKnex } from '../../../src/db/knex'

/** `nameOfText` (src/db/dialect.ts): one name per text, a bounded number per purpose. */
describe('statement names by text', () => {
  it('gives one text always the same name, another text another, and names no more than the bound per purpose', () => {
    const purpose = `test ${process.pid}`
    const first = nameOfText(purpose, 'select 1')
    assert.match(first!, /^crewclock_[0-9a-f]{32}$/)
    assert.equal(nameOfText(purpose, 'select 1'), first)
    assert.notEqual(nameOfText(purpose, 'select 2'), first)
    for (let i = 3; i <= MAX_TEXT_NAMES; i++) assert.ok(nameOfText(purpose, `select ${i}`))
    // The bound is reached: a new text goes unnamed, the named ones keep their names.
    assert.equal(nameOfText(purpose, 'select -1'), undefined)
    assert.equal(nameOfText(purpose, 'select 1'), first)
    // Another purpose has its own bound; the same text gets the same name there (the name is the text's).
    assert.equal(nameOfText(`${purpose} other`, 'select 1'), first)
    assert.ok(nameOfText(`${purpose} other`, 'select -1'))
    // A name is at most PostgreSQL's 63 bytes, so the server never cuts two names to one.
    assert.ok(first!.length <= 63)
  })
})

/** `namedByText` on PostgreSQL: the statement runs named, compiled once for its run. */
;(process.env.TEST_PG_URL ? describe : describe.skip)('statements named by text [postgres]', () => {
  let db: Knex
  before(() => {
    db = createKnex(process.env.TEST_PG_URL!)
  })
  after(() => db.destroy())

  it('runs under its name with the text compiled once; a second run compiles it anew and stays named', async () => {
    const purpose = `compiled once ${process.pid}`
    await db.transaction(async (trx) => {
      const statement = trx.raw('select ?::int + 1 as x', [41])
      let compiled = 0
      const toSQL = statement.toSQL.bind(statement)
      statement.toSQL = ((...args: Parameters<typeof toSQL>) => {
        compiled++
        return toSQL(...args)
      }) as typeof statement.toSQL
      namedByText(trx, purpose, statement)
      const name = nameOfText(purpose, toSQL().sql)!
      assert.deepEqual((await statement).rows, [{ x: 42 }])
      assert.equal(compiled, 1, 'compiled for its name only, not again to run')
      const prepared = await trx.raw('select name from pg_prepared_statements where name = ?', [name])
      assert.equal(prepared.rows.length, 1, 'prepared under its name on the connection')
      assert.deepEqual((await statement).rows, [{ x: 42 }])
      assert.equal(compiled, 2)
    })
  })

  it('sends a query builder with a union under its name, with its bindings', async () => {
    const sent: { name?: unknown; bindings?: unknown }[] = []
    const listen = (query: { options?: { name?: unknown }; bindings?: unknown }) =>
      sent.push({ name: query.options?.name, bindings: query.bindings })
    db.on('query', listen)
    try {
      await db.transaction(async (trx) => {
        const one = (x: number) => trx.from(trx.raw('(select ?::int as x) as t', [x])).select('x')
        const query = one(1).unionAll(one(2)).unionAll(one(3))
        const text = query.toSQL().sql
        const rows = await namedByText(trx, `union ${process.pid}`, query)
        assert.deepEqual(
          rows.map((row: { x: number }) => row.x),
          [1, 2, 3]
        )
        const run = sent.find((query) => query.name === nameOfText(`union ${process.pid}`, text))
        assert.ok(run, 'sent under the name of its text')
        assert.deepEqual(run.bindings, [1, 2, 3])
      })
    } finally {
      db.off('query', listen)
    }
  })
})
