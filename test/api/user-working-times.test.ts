import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../support/harness'
import { socketClient } from '../support/socket'
import { SheetTypes, changeWorkingTime, mondayHour, sheetFixtures } from '../support/timesheets/fixtures'
import { assertConsistent, assertMatchesRecomputation } from '../support/timesheets/invariants'
import { until } from '../support/wait'
import { createRestClient } from '../../src/client'
import { companyVersionOf } from '../../src/timesheets/schedule'
import { addDays, addMonths, monthOf, today } from '../../src/timesheets/periods'

/**
 * `/v1/user-working-times` (CONTRACT §11.2, §11.6): a user's own weekly targets from a day on.
 * September 2026 starts on a Tuesday and has 22 weekdays; October 2026 starts on a Thursday.
 */
const FIELDS = ['createdAt', 'externalId', 'id', 'note', 'targets', 'updatedAt', 'userId', 'validFrom']
const ZONE = 'Europe/Berlin'

type Targets = Record<'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun', number>
const week = (mon: number, tue: number, wed: number, thu: number, fri: number, sat = 0, sun = 0): Targets => ({
  mon,
  tue,
  wed,
  thu,
  fri,
  sat,
  sun
})
/** 20 hours on Monday to Thursday. */
const PART_TIME = week(300, 300, 300, 300, 0)

forEachDatabase('user-working-times', (suite) => {
  const f = sheetFixtures(suite)
  let a: TestCompany
  let b: TestCompany
  let types: SheetTypes

  before(async () => {
    a = await suite.company({ country: 'DE' })
    b = await suite.company({ country: 'DE' })
    types = await f.typesOf(a)
  })

  const post = (company: TestCompany, body: Record<string, unknown>) => company.api.post('/v1/user-working-times', body)
  const url = (id: number) => `/v1/user-working-times/${id}`
  const created = async (company: TestCompany, body: Record<string, unknown>) => {
    const res = await post(company, body)
    assert.equal(res.status, 201, res.text)
    return res.body
  }
  const consistent = async (company: TestCompany, userId: number) =>
    assertConsistent(await assertMatchesRecomputation(suite.server().knex, company.id, userId))

  /** Every stored sheet row of the user, all columns, and the user's versions: what a refused write must leave as it was. */
  async function snapshot(company: TestCompany, userId: number) {
    const knex = suite.server().knex
    const rows: Record<string, unknown[]> = {}
    for (const table of ['time_sheet_days', 'time_sheet_weeks', 'time_sheet_months', 'user_working_times']) {
      rows[table] = await knex(table).where({ companyId: company.id, userId }).orderBy('id')
    }
    return JSON.parse(JSON.stringify(rows))
  }

  const validationErrors = (res: { body: any }) => Object.keys(res.body?.data?.validationErrors ?? {}).sort()

  describe('the collection', () => {
    it('creates, reads, lists, changes and deletes versions (201, full shape, 204)', async () => {
      const userId = await f.newUser(a, { employedFrom: '2026-09-01' })
      const first = await created(a, {
        userId,
        validFrom: '2026-09-16',
        targets: PART_TIME,
        note: 'Teilzeit 20 h',
        externalId: 'UWT-1'
      })
      assert.deepEqual(Object.keys(first).sort(), FIELDS)
      assert.deepEqual(
        [first.userId, first.validFrom, first.targets, first.note, first.externalId],
        [userId, '2026-09-16', PART_TIME, 'Teilzeit 20 h', 'UWT-1']
      )
      const got = await a.api.get(url(first.id))
      assert.equal(got.status, 200)
      assert.deepEqual(got.body, first)
      // Optional fields may be left out.
      const second = await created(a, { userId, validFrom: '2026-11-02', targets: week(480, 480, 480, 480, 480) })
      assert.deepEqual([second.note, second.externalId], [null, null])

      const ids = async (query: Record<string, string | number | (string | number)[]>) => {
        const res = await a.api.get('/v1/user-working-times', query)
        assert.equal(res.status, 200, res.text)
        return res.body.items.map((item: any) => item.id)
      }
      assert.deepEqual(await ids({ userId }), [first.id, second.id])
      assert.deepEqual(await ids({ userId, 'validFrom[$gte]': '2026-10-01' }), [second.id])
      assert.deepEqual(await ids({ userId, validFrom: '2026-09-16' }), [first.id])
      assert.deepEqual(await ids({ userId, '$sort[validFrom]': -1 }), [second.id, first.id])
      assert.deepEqual(await ids({ 'id[$in]': [first.id, second.id], externalId: 'UWT-1' }), [first.id])
      assert.deepEqual(
        await ids({ userId, 'createdAt[$lte]': new Date().toISOString(), 'updatedAt[$gte]': first.createdAt }),
        [first.id, second.id]
      )
      const page = await a.api.get('/v1/user-working-times', { userId, size: 1 })
      assert.deepEqual([page.body.total, page.body.pages, page.body.items.length], [2, 2, 1])

      // A PATCH of note leaves the targets; a PATCH of targets replaces the whole week.
      let res = await a.api.patch(url(first.id), { note: 'Teilzeit ab Oktober', externalId: null })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual([res.body.note, res.body.externalId, res.body.targets], ['Teilzeit ab Oktober', null, PART_TIME])
      res = await a.api.patch(url(first.id), { targets: week(0, 240, 240, 240, 240) })
      assert.equal(res.status, 200, res.text)
      assert.deepEqual(res.body.targets, week(0, 240, 240, 240, 240))
      res = await a.api.patch(url(first.id), { validFrom: '2026-09-21' })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.body.validFrom, '2026-09-21')
      assert.deepEqual((await a.api.get(url(first.id))).body, res.body)

      assert.equal((await a.api.delete(url(second.id))).status, 204)
      assert.equal((await a.api.get(url(second.id))).status, 404)
      assert.equal(
        (await a.api.put(url(first.id), { userId, validFrom: '2026-09-21', targets: PART_TIME })).status,
        405
      )
      await consistent(a, userId)
    })

    it('refuses bad bodies with 400 naming each field, and stores nothing', async () => {
      const userId = await f.newUser(a, { employedFrom: '2026-09-01' })
      const other = await f.newUser(b)
      const retired = await f.newUser(a)
      assert.equal((await a.api.patch(`/v1/users/${retired}`, { deactivatedAt: new Date().toISOString() })).status, 200)
      const { wed: _wed, ...noWednesday } = PART_TIME
      const body = (change: Record<string, unknown>) => ({
        userId,
        validFrom: '2026-09-16',
        targets: PART_TIME,
        ...change
      })
      const cases: [Record<string, unknown>, string[]][] = [
        [body({ targets: noWednesday }), ['targets.wed']],
        [body({ targets: { ...PART_TIME, wed: 1441 } }), ['targets.wed']],
        [body({ targets: { ...PART_TIME, wed: -1 } }), ['targets.wed']],
        [body({ targets: { ...PART_TIME, wed: 7.5 } }), ['targets.wed']],
        [body({ targets: { ...PART_TIME, wed: '300' } }), ['targets.wed']],
        [body({ targets: { ...PART_TIME, holiday: 0 } }), ['targets.holiday']],
        [
          body({ targets: {} }),
          ['targets.fri', 'targets.mon', 'targets.sat', 'targets.sun', 'targets.thu', 'targets.tue', 'targets.wed']
        ],
        [body({ targets: null }), ['targets']],
        [body({ targets: [300, 300, 300, 300, 0, 0, 0] }), ['targets']],
        [{ userId, validFrom: '2026-09-16' }, ['targets']],
        [body({ validFrom: '2026-13-01' }), ['validFrom']],
        [body({ validFrom: '16.09.2026' }), ['validFrom']],
        [body({ validFrom: '2026-09-16T00:00:00Z' }), ['validFrom']],
        [body({ validFrom: '1999-12-31' }), ['validFrom']],
        [body({ validFrom: null }), ['validFrom']],
        [{ userId, targets: PART_TIME }, ['validFrom']],
        [body({ userId: other }), ['userId']],
        [body({ userId: 2_000_000_000 }), ['userId']],
        [body({ userId: retired }), ['userId']],
        [{ validFrom: '2026-09-16', targets: PART_TIME }, ['userId']],
        [body({ note: 'x'.repeat(10_001) }), ['note']],
        [body({ externalId: 'x'.repeat(256) }), ['externalId']],
        [body({ id: 5, createdAt: '2026-09-16T00:00:00Z', hours: 20 }), ['createdAt', 'hours', 'id']],
        // Every offending field in one 400.
        [
          body({ validFrom: '1999-01-04', targets: { ...PART_TIME, sun: 1441 }, userId: other }),
          ['targets.sun', 'userId', 'validFrom']
        ]
      ]
      for (const [sent, named] of cases) {
        const res = await post(a, sent)
        assert.equal(res.status, 400, `${JSON.stringify(sent).slice(0, 200)}: ${res.text.slice(0, 300)}`)
        assert.deepEqual(validationErrors(res), named, JSON.stringify(sent).slice(0, 200))
      }
      assert.equal((await a.api.get('/v1/user-working-times', { userId })).body.total, 0)

      const version = await created(a, body({}))
      const patches: [Record<string, unknown>, string[]][] = [
        [
          { targets: { mon: 0 } },
          ['targets.fri', 'targets.sat', 'targets.sun', 'targets.thu', 'targets.tue', 'targets.wed']
        ],
        [{ targets: { ...PART_TIME, mon: 1500 } }, ['targets.mon']],
        [{ targets: null }, ['targets']],
        [{ validFrom: '1999-12-31' }, ['validFrom']],
        [{ validFrom: null }, ['validFrom']],
        [{ userId }, ['userId']]
      ]
      for (const [sent, named] of patches) {
        const res = await a.api.patch(url(version.id), sent)
        assert.equal(res.status, 400, `${JSON.stringify(sent)}: ${res.text.slice(0, 300)}`)
        assert.deepEqual(validationErrors(res), named, JSON.stringify(sent))
      }
      assert.match(
        (await a.api.patch(url(version.id), { userId })).body.data.validationErrors.userId,
        /only be set on create/
      )
      assert.deepEqual((await a.api.get(url(version.id))).body, version)
    })

    it('keeps one version per user and validFrom: 409 naming validFrom on create and on a PATCH moving onto another', async () => {
      const userId = await f.newUser(a, { employedFrom: '2026-09-01' })
      const first = await created(a, { userId, validFrom: '2026-09-16', targets: PART_TIME })
      const second = await created(a, { userId, validFrom: '2026-10-05', targets: PART_TIME })
      const before = await snapshot(a, userId)
      const duplicate = await post(a, { userId, validFrom: '2026-09-16', targets: week(480, 480, 480, 480, 480) })
      assert.equal(duplicate.status, 409, duplicate.text)
      assert.deepEqual(validationErrors(duplicate), ['validFrom'])
      assert.equal(duplicate.body.data.userWorkingTimeId, first.id)
      const moved = await a.api.patch(url(second.id), { validFrom: '2026-09-16', note: 'moved' })
      assert.equal(moved.status, 409, moved.text)
      assert.deepEqual(validationErrors(moved), ['validFrom'])
      assert.deepEqual(await snapshot(a, userId), before)
      // Its own day is no conflict, and another user may have a version from the same day.
      assert.equal((await a.api.patch(url(second.id), { validFrom: '2026-10-05', targets: PART_TIME })).status, 200)
      await created(a, { userId: await f.newUser(a), validFrom: '2026-09-16', targets: PART_TIME })
    })

    it('has a display name, a description and a typed client', async () => {
      const italian = await suite.company({ country: 'IT' })
      const fr = await suite.company({ country: 'FR' })
      for (const [company, name] of [
        [a, 'Arbeitszeitmodell'],
        [italian, 'Orario di lavoro'],
        [fr, 'User working time']
      ] as const) {
        const res = await company.api.get('/v1/user-working-times/spec')
        assert.equal(res.status, 200)
        assert.equal(res.body.info.title, `crewclock API: ${name}`)
        assert.ok(res.body.paths['/v1/user-working-times/{userWorkingTimeId}'].patch)
      }
      const client = createRestClient(suite.server().url, a.apiKey)
      const userId = await f.newUser(a)
      const version = await client
        .service('v1/user-working-times')
        .create({ userId, validFrom: '2026-12-01', targets: PART_TIME })
      const minutes: number | undefined = version.targets?.thu
      assert.equal(minutes, 300)
      const list = await client
        .service('v1/user-working-times')
        .find({ query: { userId, validFrom: { $gte: '2026-12-01' } } })
      assert.deepEqual(
        list.items.map((item) => item.id),
        [version.id]
      )
      await client.service('v1/user-working-times').remove(version.id)
    })

    it('keeps companies apart: B cannot see, change or delete A’s versions, nor create one for A’s user', async () => {
      const userId = await f.newUser(a, { employedFrom: '2026-09-01' })
      const version = await created(a, { userId, validFrom: '2026-09-16', targets: PART_TIME, note: 'A only' })
      assert.equal((await b.api.get(url(version.id))).status, 404)
      assert.equal((await b.api.patch(url(version.id), { note: 'B was here' })).status, 404)
      assert.equal((await b.api.delete(url(version.id))).status, 404)
      const listed = await b.api.get('/v1/user-working-times', { userId })
      assert.deepEqual([listed.status, listed.body.total], [200, 0])
      assert.equal((await b.api.get('/v1/user-working-times', { 'id[$in]': [version.id] })).body.total, 0)
      const foreign = await post(b, { userId, validFrom: '2026-10-01', targets: PART_TIME })
      assert.equal(foreign.status, 400, foreign.text)
      assert.deepEqual(validationErrors(foreign), ['userId'])
      assert.deepEqual((await a.api.get(url(version.id))).body, version)
      assert.equal((await a.api.get('/v1/user-working-times', { userId })).body.total, 1)
    })
  })

  describe('effect on time sheets', () => {
    it('a part-time version from mid-month changes the targets from that day on only', async () => {
      const userId = await f.newUser(a, { employedFrom: '2026-09-01' })
      await f.entry(a, types, userId, '2026-09-15T08:00:00+02:00', '2026-09-15T12:00:00+02:00')
      const tuesday = await f.day(a, userId, '2026-09-15')
      await f.day(a, userId, '2026-09-16')
      await f.day(a, userId, '2026-09-18')
      const weekOf14 = await f.week(a, userId, '2026-09-14')
      const september = await f.month(a, userId, '2026-09-01')
      const october = await f.month(a, userId, '2026-10-01')
      assert.deepEqual(
        [weekOf14.sumTarget, september.sumTargetComputed, september.sumActual, september.carryOut],
        [2400, 22 * 480, 240, 240 - 22 * 480]
      )
      assert.deepEqual([october.carryIn, october.sumTargetComputed], [240 - 22 * 480, 22 * 480])
      const before = await suite
        .server()
        .knex('time_sheet_days')
        .where({ companyId: a.id, userId })
        .where('day', '<', '2026-09-16')
        .orderBy('day')

      await created(a, { userId, validFrom: '2026-09-16', targets: PART_TIME })

      const days = await Promise.all(
        ['2026-09-15', '2026-09-16', '2026-09-17', '2026-09-18', '2026-09-21'].map(
          async (day) => (await f.day(a, userId, day)).expectedDuration
        )
      )
      assert.deepEqual(days, [480, 300, 300, 0, 300])
      assert.deepEqual(await f.day(a, userId, '2026-09-15'), tuesday, 'the day before validFrom is as it was')
      const after = await suite
        .server()
        .knex('time_sheet_days')
        .where({ companyId: a.id, userId })
        .where('day', '<', '2026-09-16')
        .orderBy('day')
      assert.deepEqual(
        JSON.parse(JSON.stringify(after)),
        JSON.parse(JSON.stringify(before)),
        'no row before validFrom was written'
      )

      // Mon 14 and Tue 15 at 480, Wed 16 and Thu 17 at 300, Fri 18 at 0.
      const weekAfter = (await a.api.get(`/v1/time-sheet-weeks/${weekOf14.id}`)).body
      assert.deepEqual([weekAfter.sumTarget, weekAfter.sumActual], [1560, 240])
      // 11 weekdays up to the 15th at 480; from the 16th Mon–Thu at 300: 16, 17, 21–24, 28–30 = 9 days.
      const septemberAfter = await f.month(a, userId, '2026-09-01')
      assert.deepEqual(
        [
          septemberAfter.sumTargetComputed,
          septemberAfter.sumTarget,
          septemberAfter.sumActual,
          septemberAfter.carryIn,
          septemberAfter.carryOut
        ],
        [11 * 480 + 9 * 300, 7980, 240, 0, 240 - 7980]
      )
      // October: 17 days Monday to Thursday (five Thursdays) at 300; its carry-in follows September's.
      const octoberAfter = await f.month(a, userId, '2026-10-01')
      assert.deepEqual(
        [octoberAfter.sumTargetComputed, octoberAfter.carryIn, octoberAfter.carryOut],
        [17 * 300, -7740, -7740 - 5100]
      )
      await consistent(a, userId)
    })

    it("announces the rows it recomputes ('patched') and its own record to the company's sockets only", async () => {
      const userId = await f.newUser(a, { employedFrom: '2026-09-01' })
      const day = await f.day(a, userId, '2026-09-16')
      await f.day(a, userId, '2026-09-14')
      const weekRow = await f.week(a, userId, '2026-09-14')
      const month = await f.month(a, userId, '2026-09-01')
      const listen = async (company: TestCompany) => {
        const socket = socketClient(suite.server().url)
        await socket.client.authenticate({ strategy: 'apiKey', apiKey: company.apiKey })
        const heard: string[] = []
        for (const path of ['time-sheet-days', 'time-sheet-weeks', 'time-sheet-months']) {
          socket.client.service(`v1/${path}`).on('patched', (row: any) => {
            if (row.userId === userId) heard.push(`${path} ${row.id} ${row.expectedDuration ?? row.sumTarget}`)
          })
        }
        socket.client
          .service('v1/user-working-times')
          .on('created', (row: any) => heard.push(`user-working-times ${row.userId} ${row.validFrom}`))
        return { socket, heard }
      }
      const ours = await listen(a)
      const theirs = await listen(b)
      try {
        await created(a, { userId, validFrom: '2026-09-16', targets: PART_TIME })
        // Monday 14th (before validFrom) is not announced; Wednesday 16th is.
        const wanted = [
          `time-sheet-days ${day.id} 300`,
          `time-sheet-weeks ${weekRow.id} 1560`,
          `time-sheet-months ${month.id} 7980`,
          `user-working-times ${userId} 2026-09-16`
        ]
        await until(() => ours.heard.length >= wanted.length)
        await new Promise((r) => setTimeout(r, 100))
        assert.deepEqual(ours.heard.sort(), wanted.sort())
        assert.deepEqual(theirs.heard, [])
      } finally {
        ours.socket.close()
        theirs.socket.close()
      }
    })

    it("overrides the company's versions, and deleting it gives the days back to them", async () => {
      const e = await suite.company({ country: 'DE' })
      await changeWorkingTime(suite, e, mondayHour)
      // The company's second version: 100 minutes Monday to Friday from Monday 21 September.
      const knex = suite.server().knex
      const first = companyVersionOf(await knex('company_working_times').where({ companyId: e.id }).first())
      const now = new Date().toISOString()
      await knex('company_working_times').insert({
        companyId: e.id,
        validFrom: '2026-09-21',
        targetMinutes: JSON.stringify({
          ...first.targetMinutes,
          monday: 100,
          tuesday: 100,
          wednesday: 100,
          thursday: 100,
          friday: 100
        }),
        breakRules: JSON.stringify(first.breakRules),
        maxDailyMinutes: first.maxDailyMinutes,
        carryOverCapMinutes: null,
        createdAt: now,
        updatedAt: now
      })
      const userId = await f.newUser(e, { employedFrom: '2026-09-01' })
      const targetsOf = async (days: string[]) =>
        Promise.all(days.map(async (day) => (await f.day(e, userId, day)).expectedDuration))
      const days = ['2026-09-07', '2026-09-14', '2026-09-21', '2026-09-22', '2026-09-23']
      // Mondays 7 and 14 at 60 (first version), then 8 weekdays at 100 (second version).
      assert.equal((await f.month(e, userId, '2026-09-01')).sumTarget, 60 + 60 + 8 * 100)
      assert.deepEqual(await targetsOf(days), [60, 60, 100, 100, 100])

      const version = await created(e, { userId, validFrom: '2026-09-14', targets: week(200, 200, 0, 0, 0) })
      // From the 14th the user's own week holds, also over the company's later version: Mondays and Tuesdays 14–29 at 200.
      assert.equal((await f.month(e, userId, '2026-09-01')).sumTarget, 60 + 6 * 200)
      assert.deepEqual(await targetsOf(days), [60, 200, 200, 200, 0])

      const moved = await e.api.patch(url(version.id), { validFrom: '2026-09-22' })
      assert.equal(moved.status, 200, moved.text)
      // Monday 14 back at 60, Monday 21 at the company's 100, Tuesday 22, Monday 28 and Tuesday 29 at 200.
      assert.equal((await f.month(e, userId, '2026-09-01')).sumTarget, 60 + 60 + 100 + 3 * 200)
      assert.deepEqual(await targetsOf(days), [60, 60, 100, 200, 0])

      assert.equal((await e.api.delete(url(version.id))).status, 204)
      assert.equal((await f.month(e, userId, '2026-09-01')).sumTarget, 60 + 60 + 8 * 100)
      assert.deepEqual(await targetsOf(days), [60, 60, 100, 100, 100])
      await consistent(e, userId)
    })

    it('keeps approved days of unlocked months frozen and counts them in recomputableCount; reopening one recomputes it', async () => {
      const userId = await f.newUser(a, { employedFrom: '2026-09-01' })
      await f.entry(a, types, userId, '2026-09-07T08:00:00+02:00', '2026-09-07T12:00:00+02:00')
      const weekRow = await f.week(a, userId, '2026-09-07')
      for (const status of ['submitted', 'approved'])
        assert.equal((await a.api.patch(`/v1/time-sheet-weeks/${weekRow.id}`, { status })).status, 200)
      assert.deepEqual(
        [
          (await f.month(a, userId, '2026-09-01')).sumTarget,
          (await f.month(a, userId, '2026-09-01')).recomputableCount
        ],
        [22 * 480, 0]
      )

      const version = await created(a, { userId, validFrom: '2026-09-01', targets: week(240, 240, 240, 240, 240) })
      const frozen = (await a.api.get(`/v1/time-sheet-weeks/${weekRow.id}`)).body
      assert.deepEqual([frozen.status, frozen.sumTarget, frozen.recomputableCount], ['approved', 5 * 480, 5])
      const monday = await f.day(a, userId, '2026-09-07')
      assert.deepEqual([monday.status, monday.expectedDuration], ['approved', 480])
      // The five frozen weekdays at 480, the other 17 at 240.
      let month = await f.month(a, userId, '2026-09-01')
      assert.deepEqual([month.sumTarget, month.recomputableCount], [5 * 480 + 17 * 240, 5])

      assert.equal((await a.api.patch(`/v1/time-sheet-days/${monday.id}`, { status: 'draft' })).status, 200)
      assert.deepEqual([(await f.day(a, userId, '2026-09-07')).expectedDuration], [240])
      const reopened = (await a.api.get(`/v1/time-sheet-weeks/${weekRow.id}`)).body
      assert.deepEqual([reopened.sumTarget, reopened.recomputableCount], [240 + 4 * 480, 4])
      month = await f.month(a, userId, '2026-09-01')
      assert.deepEqual([month.sumTarget, month.recomputableCount], [4 * 480 + 18 * 240, 4])

      // Without the version the frozen days agree with their inputs again.
      assert.equal((await a.api.delete(url(version.id))).status, 204)
      const restored = (await a.api.get(`/v1/time-sheet-weeks/${weekRow.id}`)).body
      assert.deepEqual([restored.sumTarget, restored.recomputableCount], [5 * 480, 0])
      await consistent(a, userId)
    })

    it('serialises parallel writes for one user: one version per day wins, the others are 409, the figures match a recomputation', async () => {
      const userId = await f.newUser(a, { employedFrom: '2026-09-01' })
      await f.month(a, userId, '2026-10-01')
      const sameDay = [1, 2, 3, 4].map(() => post(a, { userId, validFrom: '2026-09-16', targets: PART_TIME }))
      const others = [
        post(a, { userId, validFrom: '2026-09-08', targets: week(100, 100, 100, 100, 100) }),
        post(a, { userId, validFrom: '2026-10-05', targets: week(0, 0, 480, 480, 480) }),
        a.api.post('/v1/time-entries', {
          typeId: types.work,
          userId,
          startsAt: '2026-09-17T08:00:00+02:00',
          endsAt: '2026-09-17T13:00:00+02:00'
        })
      ]
      const results = await Promise.all([...sameDay, ...others])
      assert.deepEqual(
        results
          .slice(0, 4)
          .map((res) => res.status)
          .sort(),
        [201, 409, 409, 409],
        results.map((res) => res.text.slice(0, 200)).join('\n')
      )
      assert.deepEqual(
        results.slice(4).map((res) => res.status),
        [201, 201, 201]
      )
      // 1–7: 5 weekdays at 480; 8–15: 6 weekdays at 100; 16–30: Mon–Thu at 300 (9 days).
      assert.equal((await f.month(a, userId, '2026-09-01')).sumTarget, 5 * 480 + 6 * 100 + 9 * 300)
      await consistent(a, userId)
    })

    it('refuses (409) a version whose range overlaps a locked month, on create, PATCH and delete, and changes nothing', async () => {
      const thisMonth = monthOf(today(ZONE))
      // Past months only: a future day cannot be approved (CONTRACT §11.3).
      const locked = addMonths(thisMonth, -2)
      const earlier = addMonths(thisMonth, -3)
      const userId = await f.newUser(a, { employedFrom: earlier })
      const v0 = await created(a, { userId, validFrom: addDays(earlier, 9), targets: PART_TIME })
      const v1 = await created(a, { userId, validFrom: locked, targets: week(240, 240, 240, 240, 240) })
      const month = await f.month(a, userId, locked)
      for (const status of ['submitted', 'approved']) {
        const res = await a.api.patch(`/v1/time-sheet-months/${month.id}`, { status })
        assert.equal(res.status, 200, res.text)
      }
      await f.month(a, userId, addMonths(locked, 1))
      const lockedMonth = await f.month(a, userId, locked)
      assert.ok(lockedMonth.lockedAt)
      const before = await snapshot(a, userId)

      const refused = [
        ['a version starting inside it', () => post(a, { userId, validFrom: addDays(locked, 3), targets: PART_TIME })],
        ['targets of the version that holds in it', () => a.api.patch(url(v1.id), { targets: PART_TIME })],
        ['moving that version out of it', () => a.api.patch(url(v1.id), { validFrom: addMonths(locked, 1) })],
        ['moving an earlier version into it', () => a.api.patch(url(v0.id), { validFrom: addDays(locked, 5) })],
        ['deleting the version that holds in it', () => a.api.delete(url(v1.id))]
      ] as const
      for (const [what, send] of refused) {
        const res = await send()
        assert.equal(res.status, 409, `${what}: ${res.text}`)
        assert.deepEqual(res.body.data.months, [locked], what)
        assert.deepEqual(validationErrors(res), ['validFrom'], what)
      }
      assert.deepEqual(await snapshot(a, userId), before, 'nothing changed')

      // A change that does not reach the locked month is fine: a note, the version whose range ends
      // where the locked month starts, and a version that starts after it.
      assert.equal(
        (await a.api.patch(url(v1.id), { note: 'locked month: reopen it to change the targets' })).status,
        200
      )
      const firstMonth = await f.month(a, userId, earlier)
      const res = await a.api.patch(url(v0.id), { targets: week(0, 0, 0, 0, 0) })
      assert.equal(res.status, 200, res.text)
      assert.ok((await f.month(a, userId, earlier)).sumTarget < firstMonth.sumTarget)
      const later = await created(a, {
        userId,
        validFrom: addDays(addMonths(locked, 1), 2),
        targets: week(0, 0, 0, 0, 0, 0, 0)
      })
      assert.equal((await f.day(a, userId, addDays(addMonths(locked, 1), 2))).expectedDuration, 0)
      assert.equal((await a.api.delete(url(later.id))).status, 204)
      assert.equal((await a.api.delete(url(v0.id))).status, 204)
      const after = await f.month(a, userId, locked)
      assert.deepEqual(
        [after.lockedAt, after.sumTarget, after.sumActual, after.carryOut],
        [lockedMonth.lockedAt, lockedMonth.sumTarget, lockedMonth.sumActual, lockedMonth.carryOut],
        'the locked month kept its figures'
      )
      await consistent(a, userId)
    })
  })
})
