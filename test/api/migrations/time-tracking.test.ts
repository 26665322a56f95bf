import assert from 'node:assert/strict'
import { testDatabases } from '../../support/databases'
import { migrationBefore, migrationsUpTo, scratchDatabase } from '../../support/scratch-database'

/**
 * The migration that adds `companies.working_time` back-fills existing companies with the default
 * model it shipped with. Migrations are frozen, so the expected models are literal here, not
 * today's defaultWorkingTime(): a later change of the default must not change what a replay stores.
 */
const TARGET = '20261122000003_time_tracking'

const WEEK = { monday: 480, tuesday: 480, wednesday: 480, thursday: 480, friday: 480, saturday: 0, sunday: 0 }
const GERMAN = {
  targetMinutes: WEEK,
  breakRules: [
    { afterMinutes: 360, minBreakMinutes: 30 },
    { afterMinutes: 540, minBreakMinutes: 45 }
  ],
  maxDailyMinutes: 600,
  carryOverCapMinutes: null
}
const ITALIAN = {
  targetMinutes: WEEK,
  breakRules: [{ afterMinutes: 360, minBreakMinutes: 10 }],
  maxDailyMinutes: 780,
  carryOverCapMinutes: null
}

for (const db of testDatabases()) {
  describe(`time tracking migration [${db.name}]`, function () {
    const scratch = scratchDatabase(db, 'time-tracking')

    it('gives existing companies the working-time model of their country as it shipped (others the German one)', async () => {
      const { conn } = scratch
      await conn.migrate.latest({ migrationSource: migrationsUpTo(await migrationBefore(TARGET)) })
      const stamps = { createdAt: '2026-06-10T08:00:00.000Z', updatedAt: '2026-06-10T08:00:00.000Z' }
      for (const country of ['DE', 'IT', 'FR'])
        await conn('companies').insert({ name: country, country, timezone: 'Europe/Berlin', ...stamps })

      await conn.migrate.latest({ migrationSource: migrationsUpTo(TARGET) })
      const rows = await conn('companies').orderBy('id').select('country', 'workingTime')
      const json = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value)
      assert.deepEqual(
        rows.map((r: any) => [r.country, json(r.workingTime)]),
        [
          ['DE', GERMAN],
          ['IT', ITALIAN],
          ['FR', GERMAN]
        ]
      )
    })
  })
}
