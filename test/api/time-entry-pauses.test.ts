import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../support/harness'
import { SheetTypes, sheetFixtures } from '../support/timesheets/fixtures'

/** The pause list of a time entry (CONTRACT §11.4, §11.6 precisions). */
forEachDatabase('time-entry pauses', (suite) => {
  const f = sheetFixtures(suite)
  let a: TestCompany
  let types: SheetTypes

  before(async () => {
    a = await suite.company({ country: 'DE' })
    types = await f.typesOf(a)
  })

  const create = (body: Record<string, unknown>) => a.api.post('/v1/time-entries', { typeId: types.work, ...body })
  const patch = (id: number, body: Record<string, unknown>) => a.api.patch(`/v1/time-entries/${id}`, body)
  const pause = (startsAt: string, endsAt: string | null) => ({ startsAt, endsAt })
  const errorsOf = (res: { status: number; text: string; body: any }) => {
    assert.equal(res.status, 400, res.text)
    return res.body.data.validationErrors as Record<string, string>
  }

  it('back-fills the pauses of a finished entry: duration and the day figures leave them out', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-11-01' })
    const res = await create({
      userId,
      startsAt: '2026-11-16T08:00:00Z',
      endsAt: '2026-11-16T12:00:00Z',
      pauses: [pause('2026-11-16T10:00:00Z', '2026-11-16T10:30:00Z')]
    })
    assert.equal(res.status, 201, res.text)
    assert.equal(res.body.duration, 210)
    assert.deepEqual(res.body.pauses, [pause('2026-11-16T10:00:00.000Z', '2026-11-16T10:30:00.000Z')])
    assert.equal(res.body.pausedAt, null)
    assert.deepEqual((await a.api.get(`/v1/time-entries/${res.body.id}`)).body, res.body)
    const day = await f.day(a, userId, '2026-11-16')
    assert.deepEqual([day.duration, day.breakTime], [210, 30])
  })

  it('opens a pause with pausedAt, closes it at resumedAt, refuses resumedAt alone (400)', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-11-01' })
    const { body } = await create({ userId, startsAt: '2026-11-17T08:00:00Z' })
    assert.deepEqual(body.pauses, [])
    const paused = await patch(body.id, { pausedAt: '2026-11-17T10:00:00Z' })
    assert.equal(paused.status, 200, paused.text)
    assert.equal(paused.body.pausedAt, '2026-11-17T10:00:00.000Z')
    assert.deepEqual(paused.body.pauses, [pause('2026-11-17T10:00:00.000Z', null)])
    assert.equal(
      errorsOf(await patch(body.id, { resumedAt: '2026-11-17T10:20:00Z' })).resumedAt,
      'is accepted only together with pausedAt: null'
    )
    assert.ok(errorsOf(await patch(body.id, { pausedAt: null, resumedAt: '2026-11-17T09:00:00Z' })).resumedAt)
    const resumed = await patch(body.id, { pausedAt: null, resumedAt: '2026-11-17T10:20:00Z' })
    assert.equal(resumed.status, 200, resumed.text)
    assert.equal(resumed.body.pausedAt, null)
    assert.deepEqual(resumed.body.pauses, [pause('2026-11-17T10:00:00.000Z', '2026-11-17T10:20:00.000Z')])
    const ended = await patch(body.id, { endsAt: '2026-11-17T12:00:00Z' })
    assert.equal(ended.body.duration, 240 - 20)
  })

  it('closes the open pause at endsAt when the entry is stopped', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-11-01' })
    const { body } = await create({
      userId,
      startsAt: '2026-11-18T08:00:00Z',
      pauses: [pause('2026-11-18T09:00:00Z', '2026-11-18T09:15:00Z'), pause('2026-11-18T11:00:00Z', null)]
    })
    assert.equal(body.pausedAt, '2026-11-18T11:00:00.000Z')
    const ended = await patch(body.id, { endsAt: '2026-11-18T11:30:00Z' })
    assert.equal(ended.status, 200, ended.text)
    assert.equal(ended.body.pausedAt, null)
    assert.deepEqual(ended.body.pauses, [
      pause('2026-11-18T09:00:00.000Z', '2026-11-18T09:15:00.000Z'),
      pause('2026-11-18T11:00:00.000Z', '2026-11-18T11:30:00.000Z')
    ])
    assert.equal(ended.body.duration, 210 - 15 - 30)
  })

  it('refuses invalid pause lists naming pauses.N.* (400) and sorts unordered ones', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-11-01' })
    const finished = { userId, startsAt: '2026-11-19T08:00:00Z', endsAt: '2026-11-19T12:00:00Z' }
    const invalid: [Record<string, unknown>, string][] = [
      [{ ...finished, pauses: [pause('2026-11-19T07:30:00Z', '2026-11-19T08:30:00Z')] }, 'pauses.0.startsAt'],
      [{ ...finished, pauses: [pause('2026-11-19T11:30:00Z', '2026-11-19T12:30:00Z')] }, 'pauses.0.endsAt'],
      [
        {
          ...finished,
          pauses: [
            pause('2026-11-19T09:00:00Z', '2026-11-19T10:00:00Z'),
            pause('2026-11-19T09:30:00Z', '2026-11-19T10:30:00Z')
          ]
        },
        'pauses.1.startsAt'
      ],
      [{ ...finished, pauses: [pause('2026-11-19T10:00:00Z', '2026-11-19T09:00:00Z')] }, 'pauses.0.endsAt'],
      [{ ...finished, pauses: [pause('2026-11-19T10:00:00Z', null)] }, 'pauses.0.endsAt'],
      [
        {
          userId,
          startsAt: '2026-11-19T08:00:00Z',
          pauses: [pause('2026-11-19T09:00:00Z', null), pause('2026-11-19T10:00:00Z', null)]
        },
        'pauses.1.endsAt'
      ],
      [{ ...finished, pauses: [pause('2026-11-19T10:00:00', '2026-11-19T10:30:00Z')] }, 'pauses.0.startsAt'],
      [{ ...finished, pauses: [pause('2100-01-02T00:00:00Z', '2026-11-19T10:30:00Z')] }, 'pauses.0.startsAt']
    ]
    for (const [body, path] of invalid) {
      const errors = errorsOf(await create(body))
      assert.ok(errors[path], `${JSON.stringify(body.pauses)}: ${JSON.stringify(errors)}`)
    }
    assert.equal((await a.api.get('/v1/time-entries', { userId })).body.total, 0)

    // Unordered input is stored sorted; touching pauses, and pauses at the entry's edges, are fine.
    const sorted = await create({
      ...finished,
      pauses: [
        pause('2026-11-19T11:45:00Z', '2026-11-19T12:00:00Z'),
        pause('2026-11-19T08:00:00Z', '2026-11-19T08:10:00Z'),
        pause('2026-11-19T08:10:00Z', '2026-11-19T08:20:00Z')
      ]
    })
    assert.equal(sorted.status, 201, sorted.text)
    assert.deepEqual(
      sorted.body.pauses.map((p: any) => p.startsAt),
      ['2026-11-19T08:00:00.000Z', '2026-11-19T08:10:00.000Z', '2026-11-19T11:45:00.000Z']
    )
    assert.equal(sorted.body.duration, 240 - 35)
  })

  it('replaces the list on PATCH; [] clears it; pauses with pausedAt in one body is 400; the span must hold the pauses', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-11-01' })
    const { body } = await create({
      userId,
      startsAt: '2026-11-20T08:00:00Z',
      endsAt: '2026-11-20T12:00:00Z',
      pauses: [pause('2026-11-20T09:00:00Z', '2026-11-20T09:30:00Z')]
    })
    const replaced = await patch(body.id, { pauses: [pause('2026-11-20T10:00:00Z', '2026-11-20T10:15:00Z')] })
    assert.equal(replaced.status, 200, replaced.text)
    assert.deepEqual(replaced.body.pauses, [pause('2026-11-20T10:00:00.000Z', '2026-11-20T10:15:00.000Z')])
    assert.equal(replaced.body.duration, 225)
    assert.equal((await f.day(a, userId, '2026-11-20')).duration, 225)
    assert.equal(errorsOf(await patch(body.id, { endsAt: '2026-11-20T10:05:00Z' })).endsAt.includes('pause'), true)
    const cleared = await patch(body.id, { pauses: [] })
    assert.deepEqual([cleared.body.pauses, cleared.body.duration], [[], 240])
    assert.equal((await f.day(a, userId, '2026-11-20')).duration, 240)

    const running = await create({ userId, startsAt: '2026-11-21T08:00:00Z' })
    assert.ok(errorsOf(await patch(running.body.id, { pausedAt: '2026-11-21T09:00:00Z', pauses: [] })).pauses)
    const open = await patch(running.body.id, { pauses: [pause('2026-11-21T09:00:00Z', null)] })
    assert.equal(open.body.pausedAt, '2026-11-21T09:00:00.000Z')
    const closed = await patch(running.body.id, { pauses: null })
    assert.deepEqual([closed.body.pauses, closed.body.pausedAt], [[], null])
  })

  it('refuses a pause change on an approved day (409)', async () => {
    const userId = await f.newUser(a, { employedFrom: '2026-11-01' })
    const { body } = await create({ userId, startsAt: '2026-11-23T08:00:00Z', endsAt: '2026-11-23T12:00:00Z' })
    const day = await f.day(a, userId, '2026-11-23')
    for (const status of ['submitted', 'approved'])
      assert.equal((await a.api.patch(`/v1/time-sheet-days/${day.id}`, { status })).status, 200)
    const refused = await patch(body.id, { pauses: [pause('2026-11-23T10:00:00Z', '2026-11-23T10:30:00Z')] })
    assert.equal(refused.status, 409, refused.text)
    assert.deepEqual((await a.api.get(`/v1/time-entries/${body.id}`)).body.pauses, [])
  })
})
