import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../support/harness'
import { socketClient } from '../support/socket'
import { settingsSession } from '../support/settings-session'
import { newUser } from '../support/users'
import { until } from '../support/wait'
import { headOf, readAll } from '../support/changes'
import { createApiKey } from '../../src/auth/api-keys'

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64'
)
const png = () => {
  const body = new FormData()
  body.append('file', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'photo.png')
  return body
}

/** The events of one record (`type` prefix and id) among `items`. */
const about = (items: any[], collection: string, id: number) =>
  items.filter((event) => event.type.startsWith(`${collection}.`) && event.data.id === id)

const SHEETS = ['time-sheet-days', 'time-sheet-weeks', 'time-sheet-months']

forEachDatabase('change feed: consequences', (suite) => {
  let a: TestCompany
  let typeId: number

  before(async () => {
    a = await suite.company()
    typeId = (await suite.server().knex('timeEntryTypes').where({ companyId: a.id }).orderBy('order').first('id')).id
  })

  const entry = async (userId: number, day: string, from = '08:00', to = '12:00') => {
    const res = await a.api.post('/v1/time-entries', {
      typeId,
      userId,
      startsAt: `${day}T${from}:00.000Z`,
      endsAt: `${day}T${to}:00.000Z`
    })
    assert.equal(res.status, 201, res.text)
    return res.body
  }
  const lookUp = async (collection: string, query: Record<string, string | number>) => {
    const res = await a.api.get(`/v1/${collection}/by-user`, query)
    assert.equal(res.status, 200, res.text)
    return res.body
  }

  /** Each record's last event in `items` equals what GET returns now (nothing changed it since). */
  const assertLatestAsRest = async (items: any[]) => {
    const latest = new Map<string, any>()
    for (const event of items)
      if (!event.type.startsWith('company.')) latest.set(`${event.type.split('.')[0]} ${event.data.id}`, event)
    for (const event of latest.values()) {
      const collection = event.type.split('.')[0]
      const res = await a.api.get(`/v1/${collection}/${event.data.id}`)
      if (event.type.endsWith('.removed')) assert.equal(res.status, 404, res.text)
      else assert.deepEqual(event.data, res.body, `${event.type} ${event.data.id}`)
    }
  }

  /** Socket events of the three sheet services, as [type, record] pairs. */
  const sheetSockets = async () => {
    const socket = socketClient(suite.server().url)
    await socket.client.authenticate({ strategy: 'apiKey', apiKey: a.apiKey })
    const received: { type: string; data: any }[] = []
    for (const collection of SHEETS)
      for (const event of ['created', 'patched', 'removed'])
        socket.client
          .service(`v1/${collection}`)
          .on(event, (data: any) => received.push({ type: `${collection}.${event}`, data }))
    return { received, close: socket.close }
  }
  const key = (event: { type: string; data: any }) => `${event.type} ${event.data.id}`

  it('a week move logs its days and its month (counts move), as sockets announce them', async () => {
    const userId = await newUser(a, { employedFrom: '2026-09-01' })
    await entry(userId, '2026-10-06')
    const week = await lookUp('time-sheet-weeks', { userId, weekStart: '2026-10-05' })
    const month = await lookUp('time-sheet-months', { userId, month: '2026-10-01' })
    await lookUp('time-sheet-days', { userId, day: '2026-10-06' })
    const start = await headOf(a.api)
    const sockets = await sheetSockets()
    try {
      const moved = await a.api.patch(`/v1/time-sheet-weeks/${week.id}`, { status: 'submitted' })
      assert.equal(moved.status, 200, moved.text)
      const { items } = await readAll(a.api, start)
      const monthEvents = about(items, 'time-sheet-months', month.id)
      assert.deepEqual(
        monthEvents.map((event) => event.type),
        ['time-sheet-months.patched']
      )
      assert.equal(month.submittedCount, 0)
      assert.equal(monthEvents[0].data.submittedCount, 7)
      const days = items.filter((event) => event.type.startsWith('time-sheet-days.'))
      assert.equal(new Set(days.map((event) => event.data.day)).size, 7)
      for (const day of days) assert.equal(day.data.status, 'submitted')
      // The week itself once, first: the request's own record before its consequences.
      assert.equal(items[0].type, 'time-sheet-weeks.patched')
      assert.deepEqual(items[0].data, moved.body)
      assert.equal(about(items, 'time-sheet-weeks', week.id).length, 1)
      assert.equal(new Set(items.map((event) => event.requestId)).size, 1)
      await assertLatestAsRest(items)
      // Sockets carry exactly the log's events.
      await until(() => sockets.received.length >= items.length)
      assert.deepEqual(
        new Map(sockets.received.map((event) => [key(event), event.data])),
        new Map(items.map((event) => [key(event), event.data]))
      )
    } finally {
      sockets.close()
    }
  })

  it("a month's manual carry logs the later months whose carry moves", async () => {
    const userId = await newUser(a, { employedFrom: '2026-09-01' })
    const september = await lookUp('time-sheet-months', { userId, month: '2026-09-01' })
    const october = await lookUp('time-sheet-months', { userId, month: '2026-10-01' })
    const start = await headOf(a.api)
    const patched = await a.api.patch(`/v1/time-sheet-months/${september.id}`, { carryOutManual: 120 })
    assert.equal(patched.status, 200, patched.text)
    const { items } = await readAll(a.api, start)
    assert.deepEqual(
      items.map((event) => [event.type, event.data.id]),
      [
        ['time-sheet-months.patched', september.id],
        ['time-sheet-months.patched', october.id]
      ]
    )
    assert.notEqual(october.carryIn, 120)
    assert.equal(items[1].data.carryIn, 120)
    await assertLatestAsRest(items)
  })

  it('a month move logs its weeks and days', async () => {
    const userId = await newUser(a, { employedFrom: '2026-09-01' })
    await entry(userId, '2026-09-08', '08:00', '18:00')
    const september = await lookUp('time-sheet-months', { userId, month: '2026-09-01' })
    const week = await lookUp('time-sheet-weeks', { userId, weekStart: '2026-09-07' })
    const start = await headOf(a.api)
    const sockets = await sheetSockets()
    try {
      // Submit, then approve (and lock).
      assert.equal((await a.api.patch(`/v1/time-sheet-months/${september.id}`, { status: 'submitted' })).status, 200)
      const approved = await a.api.patch(`/v1/time-sheet-months/${september.id}`, { status: 'approved' })
      assert.equal(approved.status, 200, approved.text)
      const { items } = await readAll(a.api, start)
      const weeks = items.filter((event) => event.type.startsWith('time-sheet-weeks.'))
      // Every week touching September (31 Aug .. 28 Sep), the one that existed as patched.
      assert.deepEqual([...new Set(weeks.map((event) => event.data.weekStart))].sort(), [
        '2026-08-31',
        '2026-09-07',
        '2026-09-14',
        '2026-09-21',
        '2026-09-28'
      ])
      assert.ok(about(items, 'time-sheet-weeks', week.id).every((event) => event.type === 'time-sheet-weeks.patched'))
      const days = items.filter((event) => event.type.startsWith('time-sheet-days.'))
      assert.equal(new Set(days.filter((event) => event.data.day.startsWith('2026-09')).map((e) => e.data.id)).size, 30)
      await assertLatestAsRest(items)
      await until(() => sockets.received.length >= items.length)
      // Per request, each record once on sockets; the log has each record's last state once per request.
      const lastOnSocket = new Map(sockets.received.map((event) => [key(event), event.data]))
      const lastInLog = new Map(items.map((event) => [key(event), event.data]))
      assert.deepEqual(lastOnSocket, lastInLog)
      assert.equal(sockets.received.length, items.length)
    } finally {
      sockets.close()
    }
  })

  it('deleting a group logs its events patched (groupId null)', async () => {
    const customer = await a.api.post('/v1/customers', { companyName: 'Group GmbH' })
    const assignment = await a.api.post('/v1/assignments', { name: 'G', customerId: customer.body.id })
    const group = await a.api.post('/v1/assignment-event-groups', { assignmentId: assignment.body.id })
    const eventTypeId = (await suite.server().knex('assignmentEventTypes').where({ companyId: a.id }).first('id')).id
    const events = []
    for (let i = 0; i < 2; i++) {
      const res = await a.api.post('/v1/assignment-events', {
        assignmentId: assignment.body.id,
        typeId: eventTypeId,
        groupId: group.body.id
      })
      assert.equal(res.status, 201, res.text)
      events.push(res.body)
    }
    const start = await headOf(a.api)
    assert.equal((await a.api.delete(`/v1/assignment-event-groups/${group.body.id}`)).status, 204)
    const { items } = await readAll(a.api, start)
    assert.deepEqual(
      items.map((event) => [event.type, event.data.id]),
      [
        ['assignment-events.patched', events[0].id],
        ['assignment-events.patched', events[1].id],
        ['assignment-event-groups.removed', group.body.id]
      ]
    )
    for (const event of items.slice(0, 2)) assert.equal(event.data.groupId, null)
    assert.deepEqual(items[2].data, group.body)
    await assertLatestAsRest(items)
  })

  it('deleting a gang logs the events that lose it', async () => {
    const member = await newUser(a)
    const gang = await a.api.post('/v1/gangs', { name: 'Night shift', userIds: [member] })
    const other = await a.api.post('/v1/gangs', { name: 'Day shift' })
    const customer = await a.api.post('/v1/customers', { companyName: 'Gang GmbH' })
    const assignment = await a.api.post('/v1/assignments', { name: 'G', customerId: customer.body.id })
    const eventTypeId = (await suite.server().knex('assignmentEventTypes').where({ companyId: a.id }).first('id')).id
    const event = await a.api.post('/v1/assignment-events', {
      assignmentId: assignment.body.id,
      typeId: eventTypeId,
      assignedGangs: [gang.body.id, other.body.id]
    })
    const untouched = await a.api.post('/v1/assignment-events', {
      assignmentId: assignment.body.id,
      typeId: eventTypeId,
      assignedGangs: [other.body.id]
    })
    const start = await headOf(a.api)
    assert.equal((await a.api.delete(`/v1/gangs/${gang.body.id}`)).status, 204)
    const { items } = await readAll(a.api, start)
    assert.deepEqual(
      items.map((e) => [e.type, e.data.id]),
      [
        ['assignment-events.patched', event.body.id],
        ['gangs.removed', gang.body.id]
      ]
    )
    assert.deepEqual(items[0].data.assignedGangs, [other.body.id])
    assert.deepEqual(items[1].data, gang.body)
    assert.equal(about(items, 'assignment-events', untouched.body.id).length, 0)
    await assertLatestAsRest(items)
  })

  it('deleting an assignment logs its uploads, events and groups removed as they were, then the assignment', async () => {
    const customer = await a.api.post('/v1/customers', { companyName: 'Cascade GmbH' })
    const assignment = await a.api.post('/v1/assignments', { name: 'C', customerId: customer.body.id })
    const id = assignment.body.id
    const group = await a.api.post('/v1/assignment-event-groups', { assignmentId: id })
    const eventTypeId = (await suite.server().knex('assignmentEventTypes').where({ companyId: a.id }).first('id')).id
    const event = await a.api.post('/v1/assignment-events', {
      assignmentId: id,
      typeId: eventTypeId,
      groupId: group.body.id
    })
    const upload = await a.api.post(`/v1/assignments/${id}/uploads`, undefined, { raw: png() })
    assert.equal(upload.status, 201, upload.text)
    const eventUpload = await a.api.post(`/v1/assignment-events/${event.body.id}/uploads`, undefined, { raw: png() })
    assert.equal(eventUpload.status, 201, eventUpload.text)
    const before = {
      assignment: (await a.api.get(`/v1/assignments/${id}`)).body,
      group: (await a.api.get(`/v1/assignment-event-groups/${group.body.id}`)).body,
      event: (await a.api.get(`/v1/assignment-events/${event.body.id}`)).body,
      upload: (await a.api.get(`/v1/assignments/${id}/uploads/${upload.body.id}`)).body,
      eventUpload: (await a.api.get(`/v1/assignment-events/${event.body.id}/uploads/${eventUpload.body.id}`)).body
    }
    const start = await headOf(a.api)
    const deleted = await a.api.delete(`/v1/assignments/${id}`)
    assert.equal(deleted.status, 204, deleted.text)
    const { items } = await readAll(a.api, start)
    assert.deepEqual(
      items.map((e) => [e.type, e.data.id]),
      [
        ['uploads.removed', upload.body.id],
        ['uploads.removed', eventUpload.body.id],
        ['assignment-events.removed', event.body.id],
        ['assignment-event-groups.removed', group.body.id],
        ['assignments.removed', id]
      ]
    )
    // Download links are signed when read: the rest of the upload is as GET showed it.
    const withoutLink = ({ downloadUrl, ...rest }: any) => (assert.match(downloadUrl, /\/download\?/), rest)
    assert.deepEqual(withoutLink(items[0].data), withoutLink(before.upload))
    assert.deepEqual(withoutLink(items[1].data), withoutLink(before.eventUpload))
    assert.equal(items[1].data.assignmentEventId, event.body.id)
    assert.deepEqual(items[2].data, before.event)
    assert.deepEqual(items[3].data, before.group)
    assert.deepEqual(items[4].data, before.assignment)
  })

  it('a by-user look-up that creates rows logs them as created; a second look-up logs nothing', async () => {
    const userId = await newUser(a, { employedFrom: '2026-10-01' })
    const start = await headOf(a.api)
    const day = await lookUp('time-sheet-days', { userId, day: '2026-10-14' })
    const { items } = await readAll(a.api, start)
    assert.ok(items.length > 0)
    for (const event of items) assert.match(event.type, /^time-sheet-(days|weeks|months)\.created$/)
    assert.deepEqual(about(items, 'time-sheet-days', day.id)[0].data, day)
    assert.deepEqual(
      items.filter((event) => event.type === 'time-sheet-weeks.created').map((event) => event.data.weekStart),
      ['2026-10-12']
    )
    await assertLatestAsRest(items)
    const head = await headOf(a.api)
    await lookUp('time-sheet-days', { userId, day: '2026-10-14' })
    assert.equal(await headOf(a.api), head)
  })

  it("an absence logs the sheet rows it changes; a user's working-time version logs the absences whose workDays move", async () => {
    const userId = await newUser(a, { employedFrom: '2026-09-01' })
    const vacation = (
      await suite.server().knex('userAbsenceTypes').where({ companyId: a.id }).orderBy('order').first('id')
    ).id
    const day = await lookUp('time-sheet-days', { userId, day: '2026-10-13' })
    const start = await headOf(a.api)
    const at = new Date().toISOString()
    const absence = await a.api.post('/v1/user-absences', {
      typeId: vacation,
      userId,
      startsAt: '2026-10-12T00:00:00.000Z',
      endsAt: '2026-10-17T00:00:00.000Z',
      requestedAt: at,
      approvedAt: at
    })
    assert.equal(absence.status, 201, absence.text)
    const { items } = await readAll(a.api, start)
    assert.equal(items[0].type, 'user-absences.created')
    assert.deepEqual(
      about(items, 'time-sheet-days', day.id).map((event) => event.type),
      ['time-sheet-days.patched']
    )
    assert.ok(items.some((event) => event.type === 'time-sheet-weeks.patched'))
    assert.ok(items.some((event) => event.type === 'time-sheet-months.patched'))
    await assertLatestAsRest(items)

    // Fridays off from October: the absence keeps its row but loses a work day.
    const versionStart = await headOf(a.api)
    const version = await a.api.post('/v1/user-working-times', {
      userId,
      validFrom: '2026-10-01',
      targets: { mon: 480, tue: 480, wed: 480, thu: 480, fri: 0, sat: 0, sun: 0 }
    })
    assert.equal(version.status, 201, version.text)
    const changed = await readAll(a.api, versionStart)
    const absenceEvents = about(changed.items, 'user-absences', absence.body.id)
    assert.deepEqual(
      absenceEvents.map((event) => event.type),
      ['user-absences.patched']
    )
    assert.equal(absenceEvents[0].data.workDays, absence.body.workDays - 1)
    assert.equal(changed.items[0].type, 'user-working-times.created')
    await assertLatestAsRest(changed.items)
  })

  it('a company-wide recompute on the settings page logs one company.recomputed, by the admin', async () => {
    const company = await suite.company()
    const admin = await settingsSession(suite.server(), company)
    // Nothing to recompute yet: a new version changes no stored value and logs nothing.
    const quiet = await admin.post('/settings/working-times', { validFrom: '2026-06-01', maxDailyMinutes: 600 })
    assert.equal(quiet.status, 201, quiet.text)
    assert.deepEqual((await company.api.get('/v1/changes')).body, { items: [], next: '0' })

    const users = [
      await newUser(company, { employedFrom: '2026-09-01' }),
      await newUser(company, { employedFrom: '2026-09-01' })
    ]
    for (const userId of users) {
      const res = await company.api.get('/v1/time-sheet-months/by-user', { userId, month: '2026-10-01' })
      assert.equal(res.status, 200, res.text)
    }
    const start = await headOf(company.api)
    const version = await admin.post('/settings/working-times', {
      validFrom: '2026-10-01',
      targetMinutes: { monday: 60, tuesday: 0, wednesday: 0, thursday: 0, friday: 0, saturday: 0, sunday: 0 }
    })
    assert.equal(version.status, 201, version.text)
    const { items } = await readAll(company.api, start)
    assert.equal(items.length, 1)
    assert.equal(items[0].type, 'company.recomputed')
    assert.deepEqual(items[0].actor, { userId: company.adminUserId })
    assert.deepEqual(items[0].data, {
      reason: 'working-time-versions',
      fromDay: '2026-10-01',
      userIds: users,
      months: ['2026-10-01']
    })
    // A key reading time sheets sees it; one reading customers only does not.
    const keyOf = async (scopes: string[]) =>
      company.api.withKey(
        (
          await createApiKey(suite.server().knex, suite.server().app.get('appSecret'), {
            companyId: company.id,
            userId: company.adminUserId,
            scopes
          })
        ).key
      )
    assert.equal((await readAll(await keyOf(['time-sheet-months:read']), start)).items.length, 1)
    assert.equal((await readAll(await keyOf(['customers:read']), start)).items.length, 0)

    // A timezone change recomputes every day: an entry of Monday 04:00 in Berlin is Sunday 22:00 in New York.
    const workType = (
      await suite.server().knex('timeEntryTypes').where({ companyId: company.id }).orderBy('order').first('id')
    ).id
    const clocked = await company.api.post('/v1/time-entries', {
      typeId: workType,
      userId: users[0],
      startsAt: '2026-10-05T02:00:00.000Z',
      endsAt: '2026-10-05T03:00:00.000Z'
    })
    assert.equal(clocked.status, 201, clocked.text)
    const monday = await company.api.get('/v1/time-sheet-days/by-user', { userId: users[0], day: '2026-10-05' })
    assert.equal(monday.body.duration, 60)
    const beforeZone = await headOf(company.api)
    const zone = await admin.patch('/settings/company', { timezone: 'America/New_York' })
    assert.equal(zone.status, 200, zone.text)
    const moved = await readAll(company.api, beforeZone)
    assert.deepEqual(
      moved.items.map((event) => [event.type, event.data.reason, event.data.fromDay, event.data.userIds]),
      [['company.recomputed', 'timezone', null, [users[0]]]]
    )
    assert.equal((await company.api.get(`/v1/time-sheet-days/${monday.body.id}`)).body.duration, 0)
  })

  it('an admin created or deactivated on the settings page is logged as users.* by that admin', async () => {
    const company = await suite.company()
    const admin = await settingsSession(suite.server(), company)
    const created = await admin.post('/settings/admins', {
      email: `second-${Date.now()}@example.test`,
      fullName: 'Second Admin',
      password: 'a long password'
    })
    assert.equal(created.status, 201, created.text)
    assert.equal((await admin.delete(`/settings/admins/${created.body.id}`)).status, 204)
    const { items } = await readAll(company.api)
    assert.deepEqual(
      items.map((event) => [event.type, event.data.id]),
      [
        ['users.created', created.body.id],
        ['users.patched', created.body.id]
      ]
    )
    for (const event of items) assert.deepEqual(event.actor, { userId: company.adminUserId })
    assert.ok(items[1].data.deactivatedAt)
    assert.deepEqual(items[1].data, (await company.api.get(`/v1/users/${created.body.id}`)).body)
  })
})
