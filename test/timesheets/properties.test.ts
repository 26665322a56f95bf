import assert from 'node:assert/strict'
import fc from 'fast-check'
import { DateTime } from 'luxon'
import { forEachDatabase, TestCompany } from '../support/harness'
import { changeWorkingTime, SheetTypes, sheetFixtures } from './fixtures'
import { assertConsistent, assertMatchesRecomputation } from './invariants'
import { daysFrom, monthOf, weekStartOf } from '../../src/timesheets/periods'
import { SHEET_STATUSES } from '../../src/timesheets/workflow'
import { WEEKDAYS } from '../../src/timesheets/working-time'

/**
 * Random sequences of entry, absence, override, status, carry, settings and account-start writes
 * for one user over four months (with a DST change), whose account starts on a random day of them; after every step the stored figures equal a recomputation
 * from scratch and the carry chain holds. FC_RUNS sets the number of sequences per database,
 * FC_SEED replays one.
 */
const ZONE = 'Europe/Berlin'
const DAYS = daysFrom('2026-02-02', '2026-05-31')
const RUNS = Number(process.env.FC_RUNS ?? 15)

const day = fc.integer({ min: 0, max: DAYS.length - 1 })
const status = fc.constantFrom(...SHEET_STATUSES)
const pick = fc.nat()
const local = (index: number, minutes: number) => DateTime.fromISO(DAYS[index], { zone: ZONE }).plus({ minutes }).toISO()!

const operation = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('entry' as const), day, start: fc.integer({ min: 0, max: 95 }), quarters: fc.integer({ min: 1, max: 48 }), running: fc.integer({ min: 0, max: 9 }).map((n) => n === 0) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('moveEntry' as const), pick, day, start: fc.integer({ min: 0, max: 95 }), quarters: fc.integer({ min: 1, max: 48 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('deleteEntry' as const), pick }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('absence' as const),
      type: fc.constantFrom('vacation', 'sick', 'training', 'overtime', 'hourly'),
      day,
      length: fc.integer({ min: 1, max: 4 }),
      approved: fc.boolean(),
      compensated: fc.boolean()
    })
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('decideAbsence' as const), pick, approve: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteAbsence' as const), pick }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('lookUp' as const), period: fc.constantFrom('day', 'week', 'month'), day }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('override' as const),
      day,
      field: fc.constantFrom('duration', 'breakTime', 'startsAt', 'endsAt'),
      value: fc.option(fc.integer({ min: 0, max: 1440 }), { freq: 3 })
    })
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('dayStatus' as const), day, to: status, submitFirst: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('weekStatus' as const), day, to: status, submitFirst: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('monthStatus' as const), day, to: status, submitFirst: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('monthCarry' as const), day, field: fc.constantFrom('carryInManual', 'carryOutManual'), value: fc.option(fc.integer({ min: -3000, max: 3000 })) })
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('account' as const), day: fc.option(day), openingBalance: fc.option(fc.integer({ min: -3000, max: 3000 })) })
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('settings' as const), weekday: fc.constantFrom(...WEEKDAYS), target: fc.integer({ min: 0, max: 600 }), cap: fc.option(fc.integer({ min: 0, max: 900 })) })
  }
)

type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never

forEachDatabase('time-sheet properties', (suite) => {
  const f = sheetFixtures(suite)

  interface Run {
    company: TestCompany
    types: SheetTypes
    userId: number
    entries: number[]
    absences: number[]
  }

  const ok = (res: { status: number; text: string }, allowed: number[], label: string) => {
    assert.ok(allowed.includes(res.status), `${label}: ${res.status} ${res.text.slice(0, 300)}`)
    return res.status < 300
  }

  const lookUpPath = (period: string, index: number) => {
    const value = period === 'day' ? DAYS[index] : period === 'week' ? weekStartOf(DAYS[index]) : monthOf(DAYS[index])
    const param = period === 'day' ? 'day' : period === 'week' ? 'weekStart' : 'month'
    return { path: `/v1/time-sheet-${period}s`, query: { userId: 0, [param]: value } }
  }

  async function lookUp(run: Run, period: string, index: number) {
    const { path, query } = lookUpPath(period, index)
    const res = await run.company.api.get(`${path}/by-user`, { ...query, userId: run.userId })
    assert.equal(res.status, 200, res.text)
    return res.body
  }

  async function apply(run: Run, op: Operation) {
    const { api } = run.company
    const label = JSON.stringify(op)
    const at = (list: number[], n: number) => (list.length ? list[n % list.length] : undefined)
    switch (op.kind) {
      case 'entry': {
        const body = { typeId: run.types.work, userId: run.userId, startsAt: local(op.day, op.start * 15), endsAt: op.running ? null : local(op.day, (op.start + op.quarters) * 15) }
        const res = await api.post('/v1/time-entries', body)
        if (ok(res, [201, 409], label)) run.entries.push(res.body.id)
        return
      }
      case 'moveEntry': {
        const id = at(run.entries, op.pick)
        if (id) ok(await api.patch(`/v1/time-entries/${id}`, { startsAt: local(op.day, op.start * 15), endsAt: local(op.day, (op.start + op.quarters) * 15) }), [200, 400, 409], label)
        return
      }
      case 'deleteEntry': {
        const id = at(run.entries, op.pick)
        if (id && ok(await api.delete(`/v1/time-entries/${id}`), [204, 409], label)) run.entries = run.entries.filter((e) => e !== id)
        return
      }
      case 'absence': {
        const hourly = op.type === 'hourly'
        const startsAt = local(op.day, hourly ? 8 * 60 : 0)
        const endsAt = local(op.day, hourly ? (8 + op.length) * 60 : op.length * 1440)
        const decided = '2026-01-15T09:00:00Z'
        const res = await api.post('/v1/user-absences', {
          typeId: run.types[op.type as keyof SheetTypes],
          userId: run.userId,
          startsAt,
          endsAt,
          ...(op.approved ? { requestedAt: decided, approvedAt: decided } : {}),
          ...(op.approved && op.compensated && op.type === 'overtime' ? { compensationApprovedAt: decided } : {})
        })
        if (ok(res, [201, 409], label)) run.absences.push(res.body.id)
        return
      }
      case 'decideAbsence': {
        const id = at(run.absences, op.pick)
        const body = op.approve ? { requestedAt: '2026-01-15T09:00:00Z', approvedAt: '2026-01-15T10:00:00Z', declinedAt: null } : { approvedAt: null }
        if (id) ok(await api.patch(`/v1/user-absences/${id}`, body), [200, 409], label)
        return
      }
      case 'deleteAbsence': {
        const id = at(run.absences, op.pick)
        if (id && ok(await api.delete(`/v1/user-absences/${id}`), [204, 409], label)) run.absences = run.absences.filter((a) => a !== id)
        return
      }
      case 'lookUp':
        await lookUp(run, op.period, op.day)
        return
      case 'override': {
        const sheet = await lookUp(run, 'day', op.day)
        const value = op.value === null ? null : op.field === 'startsAt' || op.field === 'endsAt' ? local(op.day, Math.min(op.value, 1439)) : op.value
        ok(await api.patch(`/v1/time-sheet-days/${sheet.id}`, { [op.field]: value }), [200, 400, 409], label)
        return
      }
      case 'dayStatus':
      case 'weekStatus':
      case 'monthStatus': {
        const period = op.kind.replace('Status', '')
        const sheet = await lookUp(run, period, op.day)
        // Deciding right after submitting reaches approved days and locked months more often.
        if (op.submitFirst && (op.to === 'approved' || op.to === 'declined')) {
          ok(await api.patch(`/v1/time-sheet-${period}s/${sheet.id}`, { status: 'submitted' }), [200, 409], label)
        }
        ok(await api.patch(`/v1/time-sheet-${period}s/${sheet.id}`, { status: op.to }), [200, 409], label)
        return
      }
      case 'monthCarry': {
        const sheet = await lookUp(run, 'month', op.day)
        ok(await api.patch(`/v1/time-sheet-months/${sheet.id}`, { [op.field]: op.value }), [200, 409], label)
        return
      }
      case 'account': {
        const body = { ...(op.day === null ? {} : { employedFrom: DAYS[op.day] }), ...(op.openingBalance === null ? {} : { openingBalance: op.openingBalance }) }
        ok(await api.patch(`/v1/users/${run.userId}`, body), [200, 409], label)
        return
      }
      case 'settings':
        await changeWorkingTime(suite, run.company, (model) => {
          model.targetMinutes[op.weekday] = op.target
          model.carryOverCapMinutes = op.cap
        })
    }
  }

  it('keeps stored figures equal to a recomputation from scratch and the carry chain intact after every write', async function () {
    this.timeout(600000)
    const account = fc.record({ start: day, openingBalance: fc.integer({ min: -3000, max: 3000 }) })
    const property = fc.asyncProperty(account, fc.array(operation, { minLength: 1, maxLength: 20 }), async ({ start, openingBalance }, ops) => {
      const company = await suite.company({ country: 'DE' })
      const userId = await f.newUser(company, { employedFrom: DAYS[start], openingBalance })
      const run: Run = { company, types: await f.typesOf(company), userId, entries: [], absences: [] }
      for (const op of ops) {
        await apply(run, op)
        assertConsistent(await assertMatchesRecomputation(suite.server().knex, company.id, run.userId))
      }
    })
    await fc.assert(property, { numRuns: RUNS, ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}) })
  })
})
