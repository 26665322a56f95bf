import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { testDatabases } from '../../support/databases'
import { migrationBefore, migrationsUpTo, scratchDatabase } from '../../support/scratch-database'
import { runCli } from '../../support/cli'
import { assertMatchesRecomputation } from '../../support/timesheets/invariants'
import { MINUTE_MS } from '../../../src/timesheets/durations'

/**
 * The migration to working-time versions (CONTRACT §11.2) keeps each company's model as its first
 * version, valid from 1970-01-01, and drops `companies.working_time`; `crewclock migrate` then
 * recomputes the users whose stored figures the §11.5 rule change moves (an approved
 * needCompensation absence without a compensation decision now keeps the day's target).
 */
const TARGET = '20261125000002_working_time_versions'

for (const db of testDatabases()) {
  describe(`working-time versions migration [${db.name}]`, function () {
    const scratch = scratchDatabase(db, 'working-time-versions')

    it('keeps the model as the first version and recomputes the figures the compensation rule moves, once', async () => {
      const { conn, url } = scratch
      await conn.migrate.latest({ migrationSource: migrationsUpTo(await migrationBefore(TARGET)) })
      const stamps = { createdAt: '2026-06-10T08:00:00.000Z', updatedAt: '2026-06-10T08:00:00.000Z' }
      const model = {
        targetMinutes: {
          monday: 300,
          tuesday: 480,
          wednesday: 480,
          thursday: 480,
          friday: 480,
          saturday: 0,
          sunday: 0
        },
        breakRules: [{ afterMinutes: 360, minBreakMinutes: 30 }],
        maxDailyMinutes: 600,
        carryOverCapMinutes: 1200
      }
      const [company] = await conn('companies').insert(
        { name: 'Old', country: 'DE', timezone: 'Europe/Berlin', workingTime: JSON.stringify(model), ...stamps },
        ['id']
      )
      const companyId = Number(company.id)
      const [role] = await conn('roles').insert({ companyId, name: 'Worker', type: 'worker', ...stamps }, ['id'])
      const [overtime] = await conn('userAbsenceTypes').insert(
        { companyId, name: 'Überstundenabbau', needApproval: true, needCompensation: true, ...stamps },
        ['id']
      )
      const [user] = await conn('users').insert(
        {
          companyId,
          fullName: 'U',
          email: 'u@old.test',
          emailNormalized: 'u@old.test',
          roleId: role.id,
          roleType: 'worker',
          employedFrom: '2026-06-01',
          openingBalance: 0,
          ...stamps
        },
        ['id']
      )
      const userId = Number(user.id)
      // Monday 2026-06-15, approved, no compensation decision yet: the old rule took the 300 minutes off the target.
      await conn('userAbsences').insert({
        companyId,
        userId,
        typeId: overtime.id,
        startsAt: '2026-06-14T22:00:00.000Z',
        endsAt: '2026-06-15T22:00:00.000Z',
        requestedAt: '2026-06-10T08:00:00.000Z',
        approvedAt: '2026-06-10T09:00:00.000Z',
        status: 'approved',
        ...stamps
      })
      // The month row as the old rule stored it: June has 21 weekdays, 5 Mondays (1 500) and 17 other weekdays (8 160); one Monday off.
      const oldTargetMs = (1500 + 8160 - 300) * MINUTE_MS
      await conn('timeSheetMonths').insert({
        companyId,
        userId,
        month: '2026-06-01',
        sumTargetComputedMs: oldTargetMs,
        sumActualComputedMs: 0,
        carryOutComputedMs: -oldTargetMs,
        carryOutMs: -oldTargetMs,
        dailyFigures: '[]',
        ...stamps
      })

      const env = {
        DATABASE_URL: url,
        DATA_DIR: path.dirname(url.startsWith('sqlite://') ? url.slice('sqlite://'.length) : fs.mkdtempSync('/tmp/cc-'))
      }
      const migrated = await runCli(['migrate', '--json'], env)
      assert.equal(migrated.code, 0, migrated.stderr)
      assert.deepEqual(
        JSON.parse(migrated.stdout)
          .applied.map((name: string) => name.replace(/\.(ts|js)$/, ''))
          .slice(0, 1),
        [TARGET]
      )

      const versions = await conn('companyWorkingTimes').where({ companyId })
      assert.equal(versions.length, 1)
      const json = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value)
      const day = (value: unknown) => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value))
      assert.equal(day(versions[0].validFrom), '1970-01-01')
      assert.deepEqual(json(versions[0].targetMinutes), model.targetMinutes)
      assert.deepEqual(json(versions[0].breakRules), model.breakRules)
      assert.deepEqual([Number(versions[0].maxDailyMinutes), Number(versions[0].carryOverCapMinutes)], [600, 1200])
      const columns = Object.keys(await conn('companies').columnInfo())
      assert.ok(
        !columns.includes('working_time') && !columns.includes('workingTime'),
        `companies still has working_time: ${columns}`
      )

      const month = await conn('timeSheetMonths').where({ companyId, userId }).first()
      assert.equal(
        Number(month.sumTargetComputedMs),
        (1500 + 8160) * MINUTE_MS,
        'the compensation Monday keeps its target'
      )
      await assertMatchesRecomputation(conn, companyId, userId)

      // Run again: nothing is pending, nothing is recomputed.
      const again = await runCli(['migrate', '--json'], env)
      assert.equal(again.code, 0, again.stderr)
      assert.deepEqual(JSON.parse(again.stdout).applied, [])
    })
  })
}
