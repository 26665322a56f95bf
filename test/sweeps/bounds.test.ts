import assert from 'node:assert/strict'
import fc from 'fast-check'
import { forEachDatabase, TestCompany } from '../support/harness'
import { newUser as newUserOf } from '../support/users'
import { escapeLike } from '../../src/db/like-pattern'

/**
 * CONTRACT §10.3, bounds on work: timestamps and dates within 1970..2100, a time entry of at most
 * 24 hours, an absence of at most 1096 days, reads whose work follows the days they read (also
 * over rows stored before the bounds existed), and `$like` escapes that mean the same on both
 * databases. A generous wall-clock bound (a minute, where the unbounded code took minutes) only
 * catches work that grows with a span; the row counts say what was computed.
 */
const QUICK_MS = 60000

/** Runs `request` and returns its response with how long it took. */
async function timed<T>(request: () => Promise<T>): Promise<{ res: T; ms: number }> {
  const started = Date.now()
  const res = await request()
  return { res, ms: Date.now() - started }
}

forEachDatabase('bounds on work', (suite) => {
  let a: TestCompany
  let workType: number
  let vacationType: number

  const newUser = (account: { employedFrom?: string } = {}) => newUserOf(a, account)
  const entry = (body: Record<string, unknown>) => a.api.post('/v1/time-entries', { typeId: workType, ...body })
  const absence = (body: Record<string, unknown>) => a.api.post('/v1/user-absences', { typeId: vacationType, ...body })
  const approved = { requestedAt: '2023-12-01T10:00:00Z', approvedAt: '2023-12-01T11:00:00Z' }
  const rowsOf = async (table: string, userId: number) =>
    Number((await suite.server().knex(table).where({ userId }).count({ n: '*' }))[0].n)

  before(async () => {
    a = await suite.company({ country: 'DE' })
    const knex = suite.server().knex
    workType = (await knex('timeEntryTypes').where({ companyId: a.id }).orderBy('order').first('id')).id
    vacationType = (await knex('userAbsenceTypes').where({ companyId: a.id }).orderBy('order').first('id')).id
  })

  describe('timestamps and dates', () => {
    it('refuses timestamps before 1970 or after 2100 in bodies, naming the field', async () => {
      const userId = await newUser()
      const early = await entry({ userId, startsAt: '1969-12-31T23:59:59Z', endsAt: '1970-01-01T01:00:00Z' })
      assert.equal(early.status, 400, early.text)
      assert.match(
        early.body.data.validationErrors.startsAt,
        /between 1970-01-01T00:00:00.000Z and 2100-01-01T00:00:00.000Z/
      )
      const late = await entry({ userId, startsAt: '2099-12-31T23:00:00Z', endsAt: '2100-01-01T00:00:00.001Z' })
      assert.equal(late.status, 400, late.text)
      assert.ok(late.body.data.validationErrors.endsAt, late.text)
      // An offset counts: 00:30+01:00 is 23:30 of the day before in UTC.
      const offset = await entry({ userId, startsAt: '1970-01-01T00:30:00+01:00' })
      assert.equal(offset.status, 400, offset.text)
      const absurd = await absence({ userId, startsAt: '2000-01-01T00:00:00Z', endsAt: '+275760-09-13T00:00:00Z' })
      assert.equal(absurd.status, 400, absurd.text)
      assert.ok(absurd.body.data.validationErrors.endsAt, absurd.text)
    })

    it('accepts the bounds themselves', async () => {
      const userId = await newUser()
      const first = await entry({ userId, startsAt: '1970-01-01T00:00:00Z', endsAt: '1970-01-01T01:00:00Z' })
      assert.equal(first.status, 201, first.text)
      assert.equal(first.body.startsAt, '1970-01-01T00:00:00.000Z')
      const last = await entry({ userId, startsAt: '2099-12-31T23:00:00Z', endsAt: '2100-01-01T00:00:00Z' })
      assert.equal(last.status, 201, last.text)
    })

    it('refuses timestamps and dates out of range in filters, naming the parameter', async () => {
      for (const [path, query, param] of [
        ['/v1/time-entries', { 'startsAt[$gte]': '1969-12-31T23:59:59Z' }, 'startsAt[$gte]'],
        ['/v1/time-entries', { 'endsAt[$lt]': '2100-01-01T00:00:00.001Z' }, 'endsAt[$lt]'],
        ['/v1/user-absences', { startsAt: '9999-12-31T00:00:00Z' }, 'startsAt'],
        ['/v1/time-sheet-days', { 'day[$gte]': '1969-12-31' }, 'day[$gte]'],
        ['/v1/time-sheet-days', { day: '2100-01-01' }, 'day'],
        ['/v1/time-sheet-months', { 'month[$in]': ['2026-01-01', '2100-01-01'] }, 'month[$in][1]']
      ] as [string, Record<string, string | string[]>, string][]) {
        const res = await a.api.get(path, query)
        assert.equal(res.status, 400, `${path} ${JSON.stringify(query)}: ${res.text}`)
        assert.ok(res.body.data.validationErrors[param], `${param}: ${res.text}`)
      }
      for (const [path, query] of [
        ['/v1/time-entries', { 'startsAt[$gte]': '1970-01-01T00:00:00Z', 'startsAt[$lte]': '2100-01-01T00:00:00Z' }],
        ['/v1/time-sheet-days', { 'day[$gte]': '1970-01-01', 'day[$lte]': '2099-12-31' }]
      ] as const) {
        const res = await a.api.get(path, query)
        assert.equal(res.status, 200, `${path} ${JSON.stringify(query)}: ${res.text}`)
      }
    })

    it('refuses a by-user date past 2099 as out of range, not as malformed', async () => {
      const userId = await newUser()
      const res = await a.api.get('/v1/time-sheet-days/by-user', { userId, day: '2100-01-01' })
      assert.equal(res.status, 400, res.text)
      assert.ok(res.body.data.validationErrors.day, res.text)
    })
  })

  describe('time entries span at most 24 hours', () => {
    it('refuses the 8 000-year entry at once, naming endsAt', async () => {
      const userId = await newUser()
      const { res, ms } = await timed(() =>
        entry({ userId, startsAt: '2026-11-02T08:00:00Z', endsAt: '9999-12-31T00:00:00Z' })
      )
      assert.equal(res.status, 400, res.text)
      assert.ok(res.body.data.validationErrors.endsAt, res.text)
      assert.ok(ms < QUICK_MS, `${ms} ms`)
    })

    it('accepts exactly 24 hours and refuses 24 h 01, on create and on a PATCH of either end', async () => {
      const userId = await newUser()
      const day = await entry({ userId, startsAt: '2026-11-02T06:00:00Z', endsAt: '2026-11-03T06:00:00Z' })
      assert.equal(day.status, 201, day.text)
      assert.equal(day.body.duration, 1440)
      const longer = await entry({ userId, startsAt: '2026-11-04T06:00:00Z', endsAt: '2026-11-05T06:01:00Z' })
      assert.equal(longer.status, 400, longer.text)
      assert.ok(longer.body.data.validationErrors.endsAt, longer.text)
      const patchEnd = await a.api.patch(`/v1/time-entries/${day.body.id}`, { endsAt: '2026-11-03T06:00:01Z' })
      assert.equal(patchEnd.status, 400, patchEnd.text)
      assert.ok(patchEnd.body.data.validationErrors.endsAt, patchEnd.text)
      const patchStart = await a.api.patch(`/v1/time-entries/${day.body.id}`, { startsAt: '2026-11-02T05:59:59Z' })
      assert.equal(patchStart.status, 400, patchStart.text)
      assert.ok(patchStart.body.data.validationErrors.endsAt, patchStart.text)
      assert.equal((await a.api.get(`/v1/time-entries/${day.body.id}`)).body.startsAt, '2026-11-02T06:00:00.000Z')
    })

    it('lets a running entry run past 24 hours, and a by-user read of today stays quick', async () => {
      const userId = await newUser()
      const startsAt = new Date(Date.now() - 25 * 3600_000).toISOString()
      const running = await entry({ userId, startsAt })
      assert.equal(running.status, 201, running.text)
      const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin' }).format(new Date())
      const { res, ms } = await timed(() => a.api.get('/v1/time-sheet-days/by-user', { userId, day: today }))
      assert.equal(res.status, 200, res.text)
      assert.ok(ms < QUICK_MS, `${ms} ms`)
      // Ending it now would span 25 hours: refused, naming endsAt.
      const end = await a.api.patch(`/v1/time-entries/${running.body.id}`, { endsAt: new Date().toISOString() })
      assert.equal(end.status, 400, end.text)
      assert.ok(end.body.data.validationErrors.endsAt, end.text)
    })
  })

  describe('absences span at most 1096 days', () => {
    it('refuses the absence 2000-01-01..9999-12-31 at once, naming endsAt', async () => {
      const userId = await newUser()
      const { res, ms } = await timed(() =>
        absence({ userId, startsAt: '2000-01-01T00:00:00Z', endsAt: '9999-12-31T00:00:00Z', ...approved })
      )
      assert.equal(res.status, 400, res.text)
      assert.ok(res.body.data.validationErrors.endsAt, res.text)
      assert.ok(ms < QUICK_MS, `${ms} ms`)
    })

    it('accepts 1096 days and reads them back quickly; 1097 days are refused, also by a PATCH of the start', async () => {
      const userId = await newUser({ employedFrom: '2024-01-01' })
      // Rows before and after the absence: its recomputation reaches them.
      assert.equal((await a.api.get('/v1/time-sheet-months/by-user', { userId, month: '2024-01-01' })).status, 200)
      const created = await timed(() =>
        absence({ userId, startsAt: '2024-01-01T00:00:00+01:00', endsAt: '2027-01-01T00:00:00+01:00', ...approved })
      )
      assert.equal(created.res.status, 201, created.res.text)
      assert.ok(created.ms < QUICK_MS, `create: ${created.ms} ms`)
      assert.equal(created.res.body.workDays, 784) // the weekdays of 2024-01-01..2026-12-31
      const id = created.res.body.id
      for (const [path, query] of [
        [`/v1/user-absences/${id}`, {}],
        ['/v1/user-absences', { userId }],
        ['/v1/time-sheet-days/by-user', { userId, day: '2026-11-25' }],
        ['/v1/time-sheet-weeks/by-user', { userId, weekStart: '2026-11-23' }],
        ['/v1/time-sheet-months/by-user', { userId, month: '2026-11-01' }],
        ['/v1/time-sheet-months', { userId, size: 20 }]
      ] as const) {
        const { res, ms } = await timed(() => a.api.get(path, query))
        assert.equal(res.status, 200, `${path}: ${res.text}`)
        assert.ok(ms < QUICK_MS, `${path}: ${ms} ms`)
      }
      const day = await a.api.get('/v1/time-sheet-days/by-user', { userId, day: '2026-11-25' })
      assert.equal(day.body.expectedDuration, 0)
      const month = await a.api.get('/v1/time-sheet-months/by-user', { userId, month: '2026-11-01' })
      assert.equal(month.body.sumTarget, 0)
      // What was computed follows what was read: one day row, its week, the chain of months.
      assert.equal(await rowsOf('timeSheetDays', userId), 1)
      assert.equal(await rowsOf('timeSheetMonths', userId), 35) // 2024-01 .. 2026-11

      const longer = await absence({
        userId: await newUser(),
        startsAt: '2024-01-01T00:00:00+01:00',
        endsAt: '2027-01-02T00:00:00+01:00'
      })
      assert.equal(longer.status, 400, longer.text)
      assert.ok(longer.body.data.validationErrors.endsAt, longer.text)
      const earlier = await a.api.patch(`/v1/user-absences/${id}`, { startsAt: '2023-12-31T00:00:00+01:00' })
      assert.equal(earlier.status, 400, earlier.text)
      assert.ok(earlier.body.data.validationErrors.endsAt, earlier.text)
      const removed = await timed(() => a.api.delete(`/v1/user-absences/${id}`))
      assert.equal(removed.res.status, 204, removed.res.text)
      assert.ok(removed.ms < QUICK_MS, `delete: ${removed.ms} ms`)
      assert.equal(
        (await a.api.get('/v1/time-sheet-days/by-user', { userId, day: '2026-11-25' })).body.expectedDuration,
        480
      )
    })
  })

  describe('rows stored before the bounds existed', () => {
    it('reads a day, week and month under an approved absence 2000..9999 quickly and correctly', async () => {
      const userId = await newUser({ employedFrom: '2026-11-01' })
      const now = new Date().toISOString()
      const [row] = await suite.server().knex('userAbsences').insert(
        {
          companyId: a.id,
          userId,
          typeId: vacationType,
          status: 'approved',
          startsAt: '1999-12-31T23:00:00.000Z',
          endsAt: '9999-12-30T23:00:00.000Z',
          requestedAt: now,
          approvedAt: now,
          createdAt: now,
          updatedAt: now
        },
        ['id']
      )
      const id = Number(typeof row === 'object' ? row.id : row)
      for (const [path, query] of [
        ['/v1/time-sheet-days/by-user', { userId, day: '2026-11-25' }],
        ['/v1/time-sheet-weeks/by-user', { userId, weekStart: '2026-11-23' }],
        ['/v1/time-sheet-months/by-user', { userId, month: '2026-11-01' }],
        [`/v1/user-absences/${id}`, {}],
        ['/v1/user-absences', { userId }]
      ] as const) {
        const { res, ms } = await timed(() => a.api.get(path, query))
        assert.equal(res.status, 200, `${path}: ${res.text}`)
        assert.ok(ms < QUICK_MS, `${path}: ${ms} ms`)
      }
      assert.equal(
        (await a.api.get('/v1/time-sheet-days/by-user', { userId, day: '2026-11-25' })).body.expectedDuration,
        0
      )
      assert.equal(
        (await a.api.get('/v1/time-sheet-weeks/by-user', { userId, weekStart: '2026-11-23' })).body.sumTarget,
        0
      )
      // 2000-01-01..9999-12-30 in Berlin: its weekdays from employedFrom on (days before have no target), counted here one by one.
      let weekdays = 0
      for (let ms = Date.UTC(2026, 10, 1); ms <= Date.UTC(9999, 11, 30); ms += 86_400_000) {
        const weekday = new Date(ms).getUTCDay()
        if (weekday >= 1 && weekday <= 5) weekdays++
      }
      assert.equal((await a.api.get(`/v1/user-absences/${id}`)).body.workDays, weekdays)
      // Taking it back recomputes the rows that exist, not 2.9 million days.
      const removed = await timed(() => a.api.delete(`/v1/user-absences/${id}`))
      assert.equal(removed.res.status, 204, removed.res.text)
      assert.ok(removed.ms < QUICK_MS, `delete: ${removed.ms} ms`)
      assert.equal(
        (await a.api.get('/v1/time-sheet-days/by-user', { userId, day: '2026-11-25' })).body.expectedDuration,
        480
      )
    })

    it('reads the day of a stored 8 000-year entry quickly, flagging it as running past midnight', async () => {
      const userId = await newUser()
      const now = new Date().toISOString()
      await suite
        .server()
        .knex('timeEntries')
        .insert({
          companyId: a.id,
          userId,
          typeId: workType,
          startsAt: '2026-11-23T07:00:00.000Z',
          endsAt: '9999-12-31T00:00:00.000Z',
          workedMs: Date.parse('9999-12-31T00:00:00.000Z') - Date.parse('2026-11-23T07:00:00.000Z'),
          createdAt: now,
          updatedAt: now
        })
      for (const [path, query] of [
        ['/v1/time-sheet-days/by-user', { userId, day: '2026-11-23' }],
        ['/v1/time-sheet-weeks/by-user', { userId, weekStart: '2026-11-23' }],
        ['/v1/time-sheet-months/by-user', { userId, month: '2026-11-01' }]
      ] as const) {
        const { res, ms } = await timed(() => a.api.get(path, query))
        assert.equal(res.status, 200, `${path}: ${res.text}`)
        assert.ok(ms < QUICK_MS, `${path}: ${ms} ms`)
      }
      assert.equal(
        (await a.api.get('/v1/time-sheet-weeks/by-user', { userId, weekStart: '2026-11-23' })).body
          .hasMultipleDayTimeEntryCount,
        1
      )
    })
  })

  describe('$like patterns', () => {
    let ids: Record<string, number>
    before(async () => {
      ids = {}
      for (const name of [
        '50% Rabattaktion',
        '500 Rabattaktion',
        'a_b Firma',
        'axb Firma',
        'C:\\Temp Werkstatt',
        'Müller_50% Bau',
        'Müllerx500 Bau'
      ]) {
        const res = await a.api.post('/v1/customers', { companyName: `${name} ${process.pid}` })
        assert.equal(res.status, 201, res.text)
        ids[name] = res.body.id
      }
    })
    const found = async (pattern: string) => {
      const res = await a.api.get('/v1/customers', { 'companyName[$like]': pattern, size: 20 })
      assert.equal(res.status, 200, `${pattern}: ${res.text}`)
      return (res.body.items as { companyName: string }[])
        .map((item) => item.companyName.replace(` ${process.pid}`, ''))
        .sort()
    }

    it('takes an escaped % or _ literally, on the index paths too', async () => {
      assert.deepEqual(await found('%50\\%%'), ['50% Rabattaktion', 'Müller_50% Bau'])
      assert.deepEqual(await found('50\\% Rabatt%'), ['50% Rabattaktion'])
      // A run of three literal characters that includes the escaped % (trigram look-up).
      assert.deepEqual(await found('%0\\% rabattaktion%'), ['50% Rabattaktion'])
      assert.deepEqual(await found('a\\_b%'), ['a_b Firma'])
      assert.deepEqual(await found('a_b%'), ['a_b Firma', 'axb Firma'])
      // Non-ASCII letters take the GLOB path on SQLite.
      assert.deepEqual(await found('%müller\\_50\\%%'), ['Müller_50% Bau'])
      assert.deepEqual(await found('%müller_50%'), ['Müller_50% Bau', 'Müllerx500 Bau'])
    })

    it('takes a doubled backslash as one literal backslash', async () => {
      assert.deepEqual(await found('%c:\\\\temp%'), ['C:\\Temp Werkstatt'])
      assert.deepEqual(await found('%\\\\%'), ['C:\\Temp Werkstatt'])
    })

    it('refuses a lone trailing backslash or one before another character with 400 naming the parameter', async () => {
      for (const pattern of ['50\\', '%\\', '\\', '%50\\\\\\', 'c:\\temp%']) {
        const res = await a.api.get('/v1/customers', { 'companyName[$like]': pattern })
        assert.equal(res.status, 400, `${pattern}: ${res.text}`)
        assert.ok(res.body.data.validationErrors['companyName[$like]'], `${pattern}: ${res.text}`)
      }
      const users = await a.api.get('/v1/users', { 'fullName[$like]': 'x\\' })
      assert.equal(users.status, 400, users.text)
      assert.ok(users.body.data.validationErrors['fullName[$like]'], users.text)
    })

    it('finds any text exactly by its escaped pattern, on both databases (property)', async () => {
      let run = 0
      await fc.assert(
        fc.asyncProperty(
          fc.string({
            unit: fc.constantFrom('%', '_', '\\', 'a', 'B', 'Ä', 'ß', '*', '?', '[', ']', ' ', '"', '5'),
            minLength: 1,
            maxLength: 12
          }),
          async (text) => {
            const name = `esc${process.pid}r${++run} ${text}`
            const created = await a.api.post('/v1/customers', { companyName: name })
            assert.equal(created.status, 201, created.text)
            for (const pattern of [escapeLike(name), `%${escapeLike(`r${run} ${text}`)}`]) {
              const res = await a.api.get('/v1/customers', { 'companyName[$like]': pattern, size: 20 })
              assert.equal(res.status, 200, `${pattern}: ${res.text}`)
              assert.deepEqual(
                res.body.items.map((item: { id: number }) => item.id),
                [created.body.id],
                pattern
              )
            }
          }
        ),
        { numRuns: 15 }
      )
    })
  })
})
