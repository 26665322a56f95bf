import assert from 'node:assert/strict'
import { forEachDatabase } from '../../support/harness'
import { sheetFixtures } from '../../support/timesheets/fixtures'
import { assertConsistent, assertMatchesRecomputation } from '../../support/timesheets/invariants'

/**
 * entryFlags has one `(starts_at < ? and ends_at > ?)` arm per midnight on SQLite, which refuses an
 * expression deeper than 1000 ("Expression tree is too large"). A run is as long as the periods a
 * write recomputes: an absence of up to MAX_ABSENCE_DAYS (1096) days recomputes every month it
 * touches, so its run is ~1100 days with kept days at its ends. entryFlags now asks in pieces of at
 * most 366 days (without them this was a 500 on SQLite).
 */
forEachDatabase('entry flags over a run of more than 1000 days', (suite) => {
  const f = sheetFixtures(suite)

  it('approves a 1096-day absence for a user with three years of month rows', async () => {
    const a = await suite.company({ country: 'DE' })
    const types = await f.typesOf(a)
    const userId = await f.newUser(a, { employedFrom: '2023-01-01' })
    // Entries at both ends: the month rows from 2023-01 to 2026-02 exist (gap-free), with daily figures.
    await f.entry(a, types, userId, '2023-01-03T08:00:00+01:00', '2023-01-03T12:00:00+01:00')
    await f.entry(a, types, userId, '2026-02-20T08:00:00+01:00', '2026-02-20T12:00:00+01:00')
    await f.month(a, userId, '2026-02-01')
    const res = await a.api.post('/v1/user-absences', {
      typeId: types.vacation,
      userId,
      startsAt: '2023-01-10T00:00:00+01:00',
      endsAt: '2026-01-10T00:00:00+01:00',
      requestedAt: new Date().toISOString(),
      approvedAt: new Date().toISOString()
    })
    assert.equal(res.status, 201, res.text)
    assertConsistent(await assertMatchesRecomputation(suite.server().knex, a.id, userId))
  })
})
