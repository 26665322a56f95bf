import assert from 'node:assert/strict'
import { forEachDatabase } from '../support/harness'
import { settingsSession } from '../support/settings-session'
import { sheetFixtures } from '../support/timesheets/fixtures'
import { assertConsistent, assertMatchesRecomputation } from '../support/timesheets/invariants'

/**
 * Company-wide writes (a working-time version on the settings page, which recomputes every user
 * under each user's lock) at the same moment as per-user writes (time entries, a user's own
 * version, an account change): on PostgreSQL they wait for each other, none fails (an outside
 * check found 40P01 deadlocks answered 500), and the figures equal a recomputation from scratch.
 */
const WEEK = { monday: 480, tuesday: 480, wednesday: 480, thursday: 480, friday: 480, saturday: 0, sunday: 0 }

forEachDatabase('working-time writes in parallel with time writes', (suite) => {
  const f = sheetFixtures(suite)

  it('settings versions, entries, user versions and account changes in parallel: no 5xx, consistent figures', async function () {
    const company = await suite.company({ country: 'DE' })
    const types = await f.typesOf(company)
    const admin = await settingsSession(suite.server(), company)
    const users = [
      await f.newUser(company, { employedFrom: '2026-06-01' }),
      await f.newUser(company, { employedFrom: '2026-06-01' })
    ]
    for (const userId of users) await f.month(company, userId, '2026-11-01')

    const statuses: number[] = []
    for (let round = 0; round < 5; round++) {
      const day = String(round + 2).padStart(2, '0')
      const results = await Promise.all([
        ...users.map((userId) =>
          company.api.post('/v1/time-entries', {
            typeId: types.work,
            userId,
            startsAt: `2026-11-${day}T07:00:00Z`,
            endsAt: `2026-11-${day}T09:00:00Z`
          })
        ),
        admin.post('/settings/working-times', {
          validFrom: `2026-07-${10 + round}`,
          targetMinutes: { ...WEEK, friday: 300 + round }
        }),
        company.api.post('/v1/user-working-times', {
          userId: users[0],
          validFrom: `2026-08-${10 + round}`,
          targets: { mon: 240, tue: 240, wed: 240, thu: 0, fri: 0, sat: 0, sun: 0 }
        }),
        company.api.patch(`/v1/users/${users[1]}`, { employedFrom: `2026-06-0${1 + (round % 2)}` })
      ])
      for (const res of results) assert.ok(res.status < 300, `round ${round}: ${res.status} ${res.text.slice(0, 300)}`)
      statuses.push(...results.map((res) => res.status))
    }
    assert.equal(statuses.length, 25)
    const entries = await company.api.get('/v1/time-entries', { size: 20 })
    assert.equal(entries.body.total, 10)
    for (const userId of users)
      assertConsistent(await assertMatchesRecomputation(suite.server().knex, company.id, userId))
  })
})
