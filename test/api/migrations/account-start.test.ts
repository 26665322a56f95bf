import assert from 'node:assert/strict'
import { testDatabases } from '../../support/databases'
import { migrationBefore, migrationsUpTo, scratchDatabase } from '../../support/scratch-database'

/**
 * The migration that gives existing users `employed_from` (CONTRACT §11.1, docs/decisions.md)
 * keeps their figures: a user with month rows starts on the first day of the earliest one; a user
 * without starts on the earliest of the creation day and the first entry or absence, as days of
 * the company's timezone. Run on a database of its own, migrated up to the migration before.
 */
const TARGET = '20261125000001_user_accounts'

for (const db of testDatabases()) {
  describe(`account start migration [${db.name}]`, function () {
    const scratch = scratchDatabase(db, 'account-start')

    it('starts users with month rows on their first month, others on their first recorded day (company timezone)', async () => {
      const { conn } = scratch
      await conn.migrate.latest({ migrationSource: migrationsUpTo(await migrationBefore(TARGET)) })
      const stamps = { createdAt: '2026-06-10T08:00:00.000Z', updatedAt: '2026-06-10T08:00:00.000Z' }
      const [company] = await conn('companies').insert(
        { name: 'Old', country: 'DE', timezone: 'Europe/Berlin', ...stamps },
        ['id']
      )
      const companyId = Number(company.id)
      const [role] = await conn('roles').insert({ companyId, name: 'Worker', type: 'worker', ...stamps }, ['id'])
      const [type] = await conn('timeEntryTypes').insert({ companyId, name: 'Work', ...stamps }, ['id'])
      const user = async (n: number, createdAt: string) => {
        const [row] = await conn('users').insert(
          {
            companyId,
            fullName: `U${n}`,
            email: `u${n}@old.test`,
            emailNormalized: `u${n}@old.test`,
            roleId: role.id,
            roleType: 'worker',
            createdAt,
            updatedAt: createdAt
          },
          ['id']
        )
        return Number(row.id)
      }
      const withMonths = await user(1, '2026-06-10T08:00:00.000Z')
      for (const month of ['2026-03-01', '2026-04-01'])
        await conn('timeSheetMonths').insert({ companyId, userId: withMonths, month, dailyFigures: '[]', ...stamps })
      // An entry before the first month row does not move the start: that would open a gap in the chain.
      await conn('timeEntries').insert({
        companyId,
        userId: withMonths,
        typeId: type.id,
        startsAt: '2026-01-05T08:00:00.000Z',
        endsAt: '2026-01-05T09:00:00.000Z',
        workedMs: 3_600_000,
        ...stamps
      })
      const withEntry = await user(2, '2026-05-05T08:00:00.000Z')
      // 23:30 UTC on 31 January is 1 February in Berlin.
      await conn('timeEntries').insert({
        companyId,
        userId: withEntry,
        typeId: type.id,
        startsAt: '2026-01-31T23:30:00.000Z',
        endsAt: '2026-02-01T01:00:00.000Z',
        workedMs: 5_400_000,
        ...stamps
      })
      const bare = await user(3, '2026-07-14T22:30:00.000Z')

      await conn.migrate.latest({ migrationSource: migrationsUpTo(TARGET) })
      const rows = await conn('users').where({ companyId }).orderBy('id').select('id', 'employedFrom', 'openingBalance')
      const day = (value: unknown) => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value))
      assert.deepEqual(
        rows.map((r: any) => [Number(r.id), day(r.employedFrom), Number(r.openingBalance)]),
        [
          [withMonths, '2026-03-01', 0],
          [withEntry, '2026-02-01', 0],
          [bare, '2026-07-15', 0]
        ]
      )
    })
  })
}
