import assert from 'node:assert/strict'
import { forEachDatabase } from '../../support/harness'
import { sheetFixtures } from '../../support/timesheets/fixtures'
import { assertConsistent, assertMatchesRecomputation } from '../../support/timesheets/invariants'

/**
 * The kept days' running and multi-day flags (entryFlags: one OR arm per midnight on SQLite,
 * width_bucket over the midnights on PostgreSQL) in zones whose DST change is at midnight, on the
 * edges: an entry starting exactly at a day's first instant (01:00 where midnight is skipped),
 * ending exactly at a midnight, starting in the repeated hour before a midnight, 1 ms either side.
 * Each case is written, then another day of the same week and month is written so that the case's
 * day is kept as stored, and the stored rows must equal a recomputation from scratch.
 */
forEachDatabase('midnight crossing of kept days in DST-at-midnight zones', (suite) => {
  const f = sheetFixtures(suite)

  const cases: {
    zone: string
    week: string
    month: string
    other: string
    entries: [string, string][]
    multi: number
  }[] = [
    {
      // Chile: 2026-09-06 starts at 01:00 (-03), the 5th has 23 hours.
      zone: 'America/Santiago',
      week: '2026-08-31',
      month: '2026-09-01',
      other: '2026-09-01T08:00:00-04:00',
      entries: [
        ['2026-09-06T01:00:00-03:00', '2026-09-07T00:00:00-03:00'], // the whole 23-hour day: not multi-day
        ['2026-09-05T20:00:00-04:00', '2026-09-06T01:00:00-03:00'], // ends at the 6th's first instant: not multi-day
        ['2026-09-03T22:00:00-04:00', '2026-09-04T00:00:00.001-04:00'] // 1 ms past midnight: multi-day
      ],
      multi: 1
    },
    {
      // Chile: 2026-04-04 ends at 24:00 (-03), which is 23:00 (-04) again; the 4th has 25 hours.
      zone: 'America/Santiago',
      week: '2026-03-30',
      month: '2026-04-01',
      other: '2026-03-31T08:00:00-03:00',
      entries: [
        ['2026-04-04T23:30:00-04:00', '2026-04-05T00:00:00-04:00'], // the repeated hour, ends at the midnight
        ['2026-04-02T23:59:59.999-03:00', '2026-04-03T00:00:00.001-03:00'] // 2 ms across a midnight: multi-day
      ],
      multi: 1
    },
    {
      // Lebanon: 2026-10-25 00:00 (+03) becomes 23:00 (+02) of the 24th, which has 25 hours.
      zone: 'Asia/Beirut',
      week: '2026-10-19',
      month: '2026-10-01',
      other: '2026-10-20T08:00:00+03:00',
      entries: [
        ['2026-10-24T23:30:00+03:00', '2026-10-24T23:30:00+02:00'], // from the first 23:30 to the second: same day
        ['2026-10-24T23:30:00+02:00', '2026-10-25T00:30:00+02:00'] // crosses the midnight: multi-day
      ],
      multi: 1
    },
    {
      // Cuba: 2026-03-08 starts at 01:00 (-04); 2026-11-01 01:00 (-04) becomes 00:00 (-05).
      zone: 'America/Havana',
      week: '2026-03-02',
      month: '2026-03-01',
      other: '2026-03-02T08:00:00-05:00',
      entries: [
        ['2026-03-08T01:00:00-04:00', '2026-03-09T00:00:00-04:00'], // exactly the 8th
        ['2026-03-07T01:00:00-05:00', '2026-03-08T01:00:00-04:00'], // to the 8th's first instant: not multi-day
        ['2026-03-05T23:00:00-05:00', '2026-03-06T00:00:00.001-05:00'] // 1 ms past midnight: multi-day
      ],
      multi: 1
    }
  ]

  for (const c of cases) {
    it(`${c.zone}, week of ${c.week}: flags of kept days equal a recomputation from scratch`, async () => {
      const a = await suite.company({ country: 'DE', timezone: c.zone })
      const types = await f.typesOf(a)
      const userId = await f.newUser(a, { employedFrom: c.month })
      for (const [from, to] of c.entries) await f.entry(a, types, userId, from, to)
      assert.equal((await f.week(a, userId, c.week)).hasMultipleDayTimeEntryCount, c.multi)
      assert.equal((await f.month(a, userId, c.month)).hasMultipleDayTimeEntryCount, c.multi)
      // Another day of the week and month: the cases' days are now kept as stored.
      const end = new Date(Date.parse(c.other) + 3600_000).toISOString()
      await f.entry(a, types, userId, c.other, end)
      assert.equal((await f.week(a, userId, c.week)).hasMultipleDayTimeEntryCount, c.multi)
      assert.equal((await f.month(a, userId, c.month)).hasMultipleDayTimeEntryCount, c.multi)
      // Another write to that day, with the cases' days kept again.
      await f.entry(a, types, userId, end, new Date(Date.parse(end) + 60_000).toISOString())
      assert.equal((await f.week(a, userId, c.week)).hasMultipleDayTimeEntryCount, c.multi)
      assertConsistent(await assertMatchesRecomputation(suite.server().knex, a.id, userId))
    })
  }
})
