import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import type { Knex } from 'knex'
import { createLogger } from '../../src/logger'
import { forEachDatabase, scratchTable } from '../support/harness'

/**
 * A 5xx is logged with its error (src/middleware/errors.ts, src/resources/errors.ts): the driver's
 * error as it comes, on both databases, without the row values PostgreSQL puts in `detail`.
 */
forEachDatabase('logged database errors', (suite) => {
  const table = scratchTable(suite, 'logged_errors_probe', (t) => {
    t.increments('id')
    t.text('email').notNullable()
    t.integer('minutes').notNullable()
    t.check('?? >= 0', ['minutes'], `logged_errors_probe_${process.pid}_minutes_check`)
  })
  let db: Knex

  before(() => {
    db = suite.server().knex
  })

  /** The lines a logger at level `error` writes for `error`. */
  const logged = (error: unknown) => {
    const lines: string[] = []
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk))
        done()
      }
    })
    const logger = createLogger('error', destination)
    logger.error({ err: error }, 'database error')
    return new Promise<string>((resolve) => setImmediate(() => resolve(lines.join(''))))
  }

  it('keeps the code, the statement and the constraint, and drops the values of the failing row', async () => {
    const error = await db(table)
      .insert({ email: 'marta.rossi@example.com', minutes: -5 })
      .then(
        () => assert.fail('the check let the row in'),
        (e: unknown) => e
      )
    if (suite.db.name === 'postgres')
      assert.match(String((error as { detail?: unknown }).detail), /marta\.rossi/, 'the driver put the row in detail')
    const line = await logged(error)
    const err = JSON.parse(line).err
    assert.equal(err.code, suite.db.name === 'postgres' ? '23514' : 'SQLITE_CONSTRAINT')
    assert.match(err.message, /insert into/)
    assert.doesNotMatch(line, /marta\.rossi|-5\b/)
    if (suite.db.name === 'postgres') assert.equal(err.constraint, `${table}_minutes_check`)
  })
})
