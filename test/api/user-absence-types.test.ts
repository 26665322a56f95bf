import assert from 'node:assert/strict'
import { forEachDatabase, languageCompanies } from '../support/harness'
import { newUser } from '../support/users'
import { assertMatchesRecomputation } from '../support/timesheets/invariants'

const FIELDS = [
  'color',
  'countAsWorkingTime',
  'createdAt',
  'deactivatedAt',
  'id',
  'isAbsenceHourly',
  'name',
  'needApproval',
  'needCompensation',
  'order',
  'updatedAt'
]

forEachDatabase('user-absence-types', (suite) => {
  const lang = languageCompanies(suite)

  it('lists the seeded types with their rules, named in the company language', async () => {
    const res = await lang.de.api.get('/v1/user-absence-types')
    assert.equal(res.status, 200)
    assert.deepEqual(Object.keys(res.body.items[0]).sort(), FIELDS)
    assert.deepEqual(
      res.body.items.map((t: any) => [
        t.name,
        t.needApproval,
        t.needCompensation,
        t.countAsWorkingTime,
        t.isAbsenceHourly,
        t.order
      ]),
      [
        ['Urlaub', true, false, false, false, 0],
        ['Krankheit', false, false, false, false, 1],
        ['Fortbildung', true, false, true, false, 2],
        ['Überstundenabbau', true, true, false, false, 3]
      ]
    )
    assert.deepEqual(
      (await lang.it.api.get('/v1/user-absence-types')).body.items.map((t: any) => t.name),
      ['Ferie', 'Malattia', 'Formazione', 'Recupero ore']
    )
    assert.deepEqual(
      (await lang.fr.api.get('/v1/user-absence-types')).body.items.map((t: any) => t.name),
      ['Vacation', 'Sick leave', 'Further training', 'Overtime compensation']
    )
  })

  it('creates a type (201): flags default to false, order after the last one', async () => {
    const res = await lang.de.api.post('/v1/user-absence-types', { name: 'Elternzeit', color: '#AABBCC' })
    assert.equal(res.status, 201)
    assert.deepEqual(Object.keys(res.body).sort(), FIELDS)
    assert.deepEqual(
      [res.body.needApproval, res.body.needCompensation, res.body.countAsWorkingTime, res.body.isAbsenceHourly],
      [false, false, false, false]
    )
    assert.equal(res.body.order, 4)
    assert.deepEqual((await lang.de.api.get(`/v1/user-absence-types/${res.body.id}`)).body, res.body)
    const hourly = await lang.de.api.post('/v1/user-absence-types', {
      name: 'Arzttermin',
      needApproval: true,
      countAsWorkingTime: true,
      isAbsenceHourly: true,
      order: 1
    })
    assert.equal(hourly.status, 201)
    assert.deepEqual(
      [hourly.body.needApproval, hourly.body.countAsWorkingTime, hourly.body.isAbsenceHourly, hourly.body.order],
      [true, true, true, 1]
    )
  })

  it('validates bodies: name required, colour format, flags not null, deactivatedAt only by PATCH, create-only flags', async () => {
    const bad = await lang.de.api.post('/v1/user-absence-types', {
      color: '#12345',
      needApproval: null,
      deactivatedAt: '2026-01-01T00:00:00Z'
    })
    assert.equal(bad.status, 400)
    assert.deepEqual(Object.keys(bad.body.data.validationErrors).sort(), [
      'color',
      'deactivatedAt',
      'name',
      'needApproval'
    ])
    assert.equal(bad.body.data.validationErrors.deactivatedAt, 'can only be changed by PATCH')
    const created = await lang.de.api.post('/v1/user-absence-types', { name: 'Sonderurlaub' })
    const patch = await lang.de.api.patch(`/v1/user-absence-types/${created.body.id}`, {
      countAsWorkingTime: true,
      isAbsenceHourly: true
    })
    assert.equal(patch.status, 400)
    assert.deepEqual(patch.body.data.validationErrors, {
      countAsWorkingTime: 'can only be set on create',
      isAbsenceHourly: 'can only be set on create'
    })
    const ok = await lang.de.api.patch(`/v1/user-absence-types/${created.body.id}`, {
      name: 'Sonderurlaub (bezahlt)',
      needApproval: true,
      needCompensation: true,
      color: null,
      order: 7
    })
    assert.equal(ok.status, 200)
    assert.deepEqual(
      [ok.body.name, ok.body.needApproval, ok.body.needCompensation, ok.body.color, ok.body.order],
      ['Sonderurlaub (bezahlt)', true, true, null, 7]
    )
  })

  it('deactivates by PATCH; the type stays readable and filterable', async () => {
    const created = await lang.it.api.post('/v1/user-absence-types', { name: 'Permesso' })
    const res = await lang.it.api.patch(`/v1/user-absence-types/${created.body.id}`, {
      deactivatedAt: '2026-02-01T00:00:00+01:00'
    })
    assert.equal(res.status, 200)
    assert.equal(res.body.deactivatedAt, '2026-01-31T23:00:00.000Z')
    assert.equal(
      (await lang.it.api.get(`/v1/user-absence-types/${created.body.id}`)).body.deactivatedAt,
      '2026-01-31T23:00:00.000Z'
    )
    assert.deepEqual(
      (await lang.it.api.get('/v1/user-absence-types', { 'deactivatedAt[$ne]': 'null' })).body.items.map(
        (t: any) => t.id
      ),
      [created.body.id]
    )
    assert.equal((await lang.it.api.get('/v1/user-absence-types', { deactivatedAt: 'null' })).body.total, 4)
    assert.equal(
      (
        await lang.it.api.get('/v1/user-absence-types', {
          'deactivatedAt[$gte]': '2026-01-31T23:00:00Z',
          'id[$in]': [created.body.id]
        })
      ).body.total,
      1
    )
  })

  it('filters by id and deactivatedAt only', async () => {
    const all = (await lang.fr.api.get('/v1/user-absence-types')).body.items
    assert.deepEqual(
      (
        await lang.fr.api.get('/v1/user-absence-types', { 'id[$in]': [all[0].id, all[3].id], '$sort[id]': -1 })
      ).body.items.map((t: any) => t.id),
      [all[3].id, all[0].id]
    )
    for (const name of ['name', 'needApproval', 'order', 'createdAt']) {
      const res = await lang.fr.api.get('/v1/user-absence-types', { [name]: '1' })
      assert.equal(res.status, 400, name)
      assert.ok(res.body.data.validationErrors[name], name)
    }
  })

  it("a changed needCompensation recomputes the days of the type's approved absences, logged; approved days stay frozen", async () => {
    const company = await suite.company({ country: 'DE' })
    const api = company.api
    const type = await api.post('/v1/user-absence-types', { name: 'Freizeitausgleich', needApproval: false })
    assert.equal(type.status, 201, type.text)
    const [worker, approver] = [
      await newUser(company, { employedFrom: '2026-10-01' }),
      await newUser(company, { employedFrom: '2026-10-01' })
    ]
    // A Monday and a Tuesday off (DE: 8 h days), one for each user; the second user's day is then approved.
    const off = async (userId: number, day: string) => {
      const res = await api.post('/v1/user-absences', {
        userId,
        typeId: type.body.id,
        startsAt: `${day}T00:00:00+01:00`,
        endsAt: `${day}T23:59:59+01:00`,
        requestedAt: '2026-11-01T08:00:00Z'
      })
      assert.equal(res.status, 201, res.text)
      const sheet = await api.get(`/v1/time-sheet-days/by-user?userId=${userId}&day=${day}`)
      assert.equal(sheet.status, 200, sheet.text)
      return sheet.body
    }
    const before = await off(worker, '2026-11-16')
    const frozen = await off(approver, '2026-11-17')
    assert.equal(before.expectedDuration, 0, 'time off without compensation takes the target')
    for (const status of ['submitted', 'approved']) {
      const moved = await api.patch(`/v1/time-sheet-days/${frozen.id}`, { status })
      assert.equal(moved.status, 200, moved.text)
    }
    // The log's head: read the feed to its end.
    const headOf = async (after = '0') => {
      for (;;) {
        const page = (await api.get(`/v1/changes?after=${after}&size=500`)).body
        if (page.items.length === 0) return page.next as string
        after = page.next
      }
    }
    const cursor = await headOf()

    const patched = await api.patch(`/v1/user-absence-types/${type.body.id}`, { needCompensation: true })
    assert.equal(patched.status, 200, patched.text)
    const after = (await api.get(`/v1/time-sheet-days/${before.id}`)).body
    assert.equal(after.expectedDuration, 480, 'compensated time off keeps the target (CONTRACT §11.5)')
    assert.equal((await api.get(`/v1/time-sheet-days/${frozen.id}`)).body.expectedDuration, 0, 'approved: frozen')
    const week = (await api.get(`/v1/time-sheet-weeks?userId=${approver}`)).body.items[0]
    assert.equal(week.recomputableCount, 1, 'the frozen day is counted as recomputable')
    for (const userId of [worker, approver]) await assertMatchesRecomputation(suite.server().knex, company.id, userId)
    const events = (await api.get(`/v1/changes?after=${cursor}&size=500`)).body.items
    const logged = (type: string, id: number) => events.find((e: any) => e.type === type && e.data.id === id)
    assert.equal(logged('time-sheet-days.patched', before.id)?.data.expectedDuration, 480)
    assert.equal(logged('time-sheet-days.patched', frozen.id)?.data.expectedDuration, 0, 'frozen, flagged')
    assert.equal(logged('time-sheet-weeks.patched', week.id)?.data.recomputableCount, 1)
    assert.ok(events.some((e: any) => e.type === 'time-sheet-months.patched' && e.data.userId === worker))
    assert.equal(events[0].type, 'user-absence-types.patched')

    // Another field, or the same value again: nothing to recompute, no sheet event.
    const next = await headOf(cursor)
    assert.equal(
      (await api.patch(`/v1/user-absence-types/${type.body.id}`, { needCompensation: true, order: 7 })).status,
      200
    )
    const quiet = (await api.get(`/v1/changes?after=${next}&size=500`)).body.items
    assert.deepEqual(
      quiet.map((e: any) => e.type),
      ['user-absence-types.patched']
    )
  })

  it('answers 405 for DELETE; the type stays', async () => {
    const [type] = (await lang.de.api.get('/v1/user-absence-types')).body.items
    assert.equal((await lang.de.api.delete(`/v1/user-absence-types/${type.id}`)).status, 405)
    assert.equal((await lang.de.api.get(`/v1/user-absence-types/${type.id}`)).status, 200)
  })

  it('is isolated: company B can neither see nor change company A types', async () => {
    const created = await lang.de.api.post('/v1/user-absence-types', { name: 'Only DE' })
    const id = created.body.id
    assert.equal((await lang.fr.api.get(`/v1/user-absence-types/${id}`)).status, 404)
    assert.equal((await lang.fr.api.patch(`/v1/user-absence-types/${id}`, { name: 'Hacked' })).status, 404)
    assert.equal((await lang.fr.api.get('/v1/user-absence-types', { id })).body.total, 0)
    assert.equal((await lang.de.api.get(`/v1/user-absence-types/${id}`)).body.name, 'Only DE')
  })
})
