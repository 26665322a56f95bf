import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createCompany } from '../../../src/companies/create-company'
import { startServe, stopProcess } from '../../support/cli'
import { forEachDatabase } from '../../support/harness'
import { HttpClient } from '../../support/http'
import { scratchDatabase } from '../../support/scratch-database'

/**
 * A rolling upgrade whose migration changes the type of a column that a named prepared statement
 * returns (docs/decisions.md, "Named prepared statements on PostgreSQL"): the serving instance's
 * warm connections hold the statement with the old result type, and PostgreSQL refuses it there
 * (0A000 "cached plan must not change result type"). Each such connection fails one request with
 * a 503 (nothing written, send it again) and is replaced; after them every write succeeds. Found
 * by an outside review: before, every later time-entry write failed with a 500 until a restart.
 * On its own database: the column change would reach the shared test server's connections.
 */
const APP_SECRET = 'stale-plans-test-secret'
const POOL = 4

forEachDatabase('named statements after a migration changed a column they return', (suite) => {
  const scratch = scratchDatabase(suite.db, 'stale-plans')
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crewclock-stale-plans-'))
  let child: ChildProcess | undefined

  after(async () => {
    if (child) await stopProcess(child)
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it('answers 503 once per warm connection, writes nothing for it, and then writes again', async function () {
    if (suite.db.name !== 'postgres') this.skip()
    const served = await startServe({
      DATABASE_URL: scratch.url,
      APP_SECRET,
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      REDIS_URL: '',
      NODE_CONFIG: JSON.stringify({ database: { pool: { max: POOL } } })
    })
    child = served.child
    const company = await createCompany(scratch.conn, APP_SECRET, {
      name: 'Stale plans',
      country: 'DE',
      adminEmail: `stale-plans-${process.pid}@example.test`
    })
    const api = new HttpClient(served.url, company.apiKey)
    const user = await api.post('/v1/users', {
      fullName: 'Rita Stale',
      email: `rita-${process.pid}@example.test`,
      employedFrom: '2026-09-01'
    })
    assert.equal(user.status, 201, user.text)
    const [work] = await scratch.conn('timeEntryTypes').where({ companyId: company.companyId }).orderBy('order')
    const post = (day: number) =>
      api.post('/v1/time-entries', {
        typeId: work.id,
        userId: user.body.id,
        startsAt: `2026-09-${String(day).padStart(2, '0')}T08:00:00+02:00`,
        endsAt: `2026-09-${String(day).padStart(2, '0')}T09:00:00+02:00`
      })
    // The month's row exists, so each write recomputes; concurrent writes warm every connection.
    assert.equal(
      (await api.get('/v1/time-sheet-months/by-user', { userId: user.body.id, month: '2026-09-01' })).status,
      200
    )
    const warm = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map(post))
    assert.deepEqual(
      warm.map((res) => res.status),
      warm.map(() => 201),
      warm.map((res) => res.text).join('\n')
    )

    await scratch.conn.raw('alter table companies alter column timezone type varchar(100)')
    const statuses: number[] = []
    for (let attempt = 0; attempt <= 12 && statuses.at(-1) !== 201; attempt++) {
      const res = await post(10)
      statuses.push(res.status)
      if (res.status !== 201) assert.match(res.body.message, /schema changed .*send it again/, res.text)
    }
    assert.equal(statuses.at(-1), 201, `answers after the migration: ${statuses.join(', ')}`)
    assert.ok(statuses.length - 1 <= POOL, `at most one 503 per connection: ${statuses.join(', ')}`)
    assert.ok(
      statuses.slice(0, -1).every((status) => status === 503),
      statuses.join(', ')
    )
    // The refused attempts wrote nothing: one entry on the 10th.
    const tenth = await scratch
      .conn('timeEntries')
      .where({ companyId: company.companyId, userId: user.body.id })
      .where('startsAt', '>=', '2026-09-10T00:00:00Z')
      .where('startsAt', '<', '2026-09-11T00:00:00Z')
    assert.equal(tenth.length, 1)
    const after = await Promise.all([11, 12, 13, 14, 15, 16, 17, 18].map(post))
    assert.deepEqual(
      after.map((res) => res.status),
      after.map(() => 201),
      after.map((res) => res.text).join('\n')
    )
  })
})
