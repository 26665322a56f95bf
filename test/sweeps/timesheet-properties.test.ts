import assert from 'node:assert/strict'
import fc from 'fast-check'
import { forEachDatabase, TestCompany } from '../support/harness'
import type { HttpClient } from '../support/http'
import { settingsSession } from '../support/settings-session'
import { SheetTypes, sheetFixtures } from '../support/timesheets/fixtures'
import { assertConsistent, assertMatchesRecomputation } from '../support/timesheets/invariants'
import { History, OracleAbsence, assertTargetsMatchOracle } from '../support/timesheets/target-oracle'
import { userWorkingTimes as versions } from '../support/timesheets/user-working-times'
import { DAYS, DECIDED, Operation, Pauses, ZONE, day, local, operation } from '../support/timesheets/operations'
import { monthOf, weekStartOf } from '../../src/timesheets/periods'

/**
 * Random sequences of entry (with pauses), absence, compensation, override, status, carry,
 * working-time version (company versions through `settings/working-times`, the user's through
 * `/v1/user-working-times`) and account-start writes for one user over four months (with a DST
 * change), whose account starts on a random day of them. After every step the stored figures
 * equal a recomputation from scratch, the carry chain holds, and every day that follows its inputs
 * has the target an independent oracle computes from what the test wrote (./target-oracle.ts).
 * FC_RUNS sets the number of sequences per database, FC_SEED replays one.
 */
const RUNS = Number(process.env.FC_RUNS ?? 15)

forEachDatabase('time-sheet properties', (suite) => {
  const f = sheetFixtures(suite)

  interface Entry {
    startsAt: number
    endsAt: number | null
  }

  interface Run {
    company: TestCompany
    settings: HttpClient
    types: SheetTypes
    userId: number
    entries: Map<number, Entry>
    /** The absences as last answered, by id. */
    absences: Map<number, any>
    // What the oracle needs, kept from the test's own successful writes.
    employedFrom: string
    companyVersions: ({ id: number } & History['company'][number])[]
    userVersions: ({ id: number } & History['user'][number])[]
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

  const at = <T>(list: T[], n: number) => (list.length ? list[n % list.length] : undefined)
  const iso = (ms: number) => new Date(ms).toISOString()
  const entryOf = (body: any): Entry => ({
    startsAt: Date.parse(body.startsAt),
    endsAt: body.endsAt === null ? null : Date.parse(body.endsAt)
  })

  /** The pause list of `shares` on an entry, to the minute. */
  function pauseList(entry: Entry, shares: Pauses) {
    const span = (entry.endsAt ?? entry.startsAt + 8 * 3600000) - entry.startsAt
    const point = (share: number) => entry.startsAt + Math.round((span * share) / 100 / 60000) * 60000
    return shares.map(({ at: from, length, open }) => ({
      startsAt: iso(point(from)),
      endsAt: open ? null : iso(point(from + length))
    }))
  }

  /** What the oracle reads: the test's own record of the account, the versions and the absences. */
  function historyOf(run: Run): History {
    const kinds: Record<number, Pick<OracleAbsence, 'kind' | 'hourly'>> = {
      [run.types.vacation]: { kind: 'plain', hourly: false },
      [run.types.sick]: { kind: 'plain', hourly: false },
      [run.types.training]: { kind: 'credit', hourly: false },
      [run.types.overtime]: { kind: 'compensation', hourly: false },
      [run.types.hourly]: { kind: 'plain', hourly: true }
    }
    return {
      zone: ZONE,
      employedFrom: run.employedFrom,
      company: run.companyVersions,
      user: run.userVersions,
      absences: [...run.absences.values()].map((a) => ({
        startsAt: a.startsAt,
        endsAt: a.endsAt,
        ...kinds[a.typeId],
        approved: a.approvedAt !== null && a.declinedAt === null,
        compensationDeclined: a.compensationDeclinedAt !== null
      }))
    }
  }

  async function apply(run: Run, op: Operation) {
    const { api } = run.company
    const label = JSON.stringify(op)
    switch (op.kind) {
      case 'entry': {
        const startsAt = local(op.day, op.start * 15)
        const endsAt = op.running ? null : local(op.day, (op.start + op.quarters) * 15)
        const span = { startsAt: Date.parse(startsAt), endsAt: endsAt === null ? null : Date.parse(endsAt) }
        const body = {
          typeId: run.types.work,
          userId: run.userId,
          startsAt,
          endsAt,
          ...(op.pauses ? { pauses: pauseList(span, op.pauses) } : {})
        }
        const res = await api.post('/v1/time-entries', body)
        if (ok(res, [201, 400, 409], label)) run.entries.set(res.body.id, entryOf(res.body))
        return
      }
      case 'moveEntry': {
        const id = at([...run.entries.keys()], op.pick)
        if (id === undefined) return
        const res = await api.patch(`/v1/time-entries/${id}`, {
          startsAt: local(op.day, op.start * 15),
          endsAt: local(op.day, (op.start + op.quarters) * 15)
        })
        if (ok(res, [200, 400, 409], label)) run.entries.set(id, entryOf(res.body))
        return
      }
      case 'pauses': {
        const id = at([...run.entries.keys()], op.pick)
        if (id !== undefined)
          ok(
            await api.patch(`/v1/time-entries/${id}`, { pauses: pauseList(run.entries.get(id)!, op.pauses) }),
            [200, 400, 409],
            label
          )
        return
      }
      case 'deleteEntry': {
        const id = at([...run.entries.keys()], op.pick)
        if (id !== undefined && ok(await api.delete(`/v1/time-entries/${id}`), [204, 409], label))
          run.entries.delete(id)
        return
      }
      case 'absence': {
        const hourly = op.type === 'hourly'
        const startsAt = local(op.day, hourly ? 8 * 60 : 0)
        const endsAt = local(op.day, hourly ? (8 + op.length) * 60 : op.length * 1440)
        const compensation = op.approved && op.type === 'overtime' && op.compensation !== null
        const res = await api.post('/v1/user-absences', {
          typeId: run.types[op.type as keyof SheetTypes],
          userId: run.userId,
          startsAt,
          endsAt,
          ...(op.approved ? { requestedAt: DECIDED, approvedAt: DECIDED } : {}),
          ...(compensation
            ? { [op.compensation === 'approved' ? 'compensationApprovedAt' : 'compensationDeclinedAt']: DECIDED }
            : {})
        })
        if (ok(res, [201, 409], label)) run.absences.set(res.body.id, res.body)
        return
      }
      case 'decideAbsence': {
        const id = at([...run.absences.keys()], op.pick)
        const body = op.approve
          ? { requestedAt: DECIDED, approvedAt: '2026-01-15T10:00:00Z', declinedAt: null }
          : { approvedAt: null }
        if (id === undefined) return
        const res = await api.patch(`/v1/user-absences/${id}`, body)
        if (ok(res, [200, 409], label)) run.absences.set(id, res.body)
        return
      }
      case 'compensate': {
        // A decision on one of the user's overtime compensations; without one, an approved one on `day` first.
        let id = at(
          [...run.absences.values()].filter((a) => a.typeId === run.types.overtime).map((a) => a.id as number),
          op.pick
        )
        if (id === undefined) {
          const res = await api.post('/v1/user-absences', {
            typeId: run.types.overtime,
            userId: run.userId,
            startsAt: local(op.day, 0),
            endsAt: local(op.day, 1440),
            requestedAt: DECIDED,
            approvedAt: DECIDED
          })
          if (!ok(res, [201, 409], label)) return
          run.absences.set(res.body.id, res.body)
          id = res.body.id as number
        }
        const decided = op.decision === 'clear' ? null : '2026-01-16T09:00:00Z'
        const body = {
          compensationApprovedAt: op.decision === 'approve' ? decided : null,
          compensationDeclinedAt: op.decision === 'decline' ? decided : null
        }
        // Without requestedAt a decision is 409 (CONTRACT §7.3), as is one on an approved day or in a locked month.
        const res = await api.patch(`/v1/user-absences/${id}`, body)
        if (ok(res, [200, 409], label)) run.absences.set(id, res.body)
        return
      }
      case 'deleteAbsence': {
        const id = at([...run.absences.keys()], op.pick)
        if (id !== undefined && ok(await api.delete(`/v1/user-absences/${id}`), [204, 409], label))
          run.absences.delete(id)
        return
      }
      case 'lookUp':
        await lookUp(run, op.period, op.day)
        return
      case 'override': {
        const sheet = await lookUp(run, 'day', op.day)
        const value =
          op.value === null
            ? null
            : op.field === 'startsAt' || op.field === 'endsAt'
              ? local(op.day, Math.min(op.value, 1439))
              : op.value
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
        const body = {
          ...(op.day === null ? {} : { employedFrom: DAYS[op.day] }),
          ...(op.openingBalance === null ? {} : { openingBalance: op.openingBalance })
        }
        const res = await api.patch(`/v1/users/${run.userId}`, body)
        if (ok(res, [200, 409], label)) run.employedFrom = res.body.employedFrom
        return
      }
      case 'companyVersion': {
        // Versions from a day of the window; the first one (from 1970) can be changed but not moved or deleted.
        const existing =
          op.action === 'delete' ? at(run.companyVersions.slice(1), op.pick) : at(run.companyVersions, op.pick)
        const validFrom = DAYS[op.day]
        if (op.action === 'create') {
          const res = await run.settings.post('/settings/working-times', {
            validFrom,
            targetMinutes: op.targets,
            carryOverCapMinutes: op.cap
          })
          if (ok(res, [201, 409], label))
            run.companyVersions = [...run.companyVersions, { id: res.body.id, validFrom, targetMinutes: op.targets }]
        } else if (op.action === 'patch' && existing) {
          const move = op.move && existing !== run.companyVersions[0]
          const res = await run.settings.patch(`/settings/working-times/${existing.id}`, {
            targetMinutes: op.targets,
            carryOverCapMinutes: op.cap,
            ...(move ? { validFrom } : {})
          })
          if (ok(res, [200, 409], label)) {
            run.companyVersions = run.companyVersions.map((v) =>
              v === existing ? { id: v.id, validFrom: move ? validFrom : v.validFrom, targetMinutes: op.targets } : v
            )
          }
        } else if (op.action === 'delete' && existing) {
          if (ok(await run.settings.delete(`/settings/working-times/${existing.id}`), [204, 409], label))
            run.companyVersions = run.companyVersions.filter((v) => v !== existing)
        }
        return
      }
      case 'userVersion': {
        const existing = at(run.userVersions, op.pick)
        const validFrom = DAYS[op.day]
        if (op.action === 'create') {
          const res = await versions.create(run.company, run.userId, { validFrom, targets: op.targets })
          if (ok(res, [201, 409], label))
            run.userVersions = [...run.userVersions, { id: res.body.id, validFrom, targets: op.targets }]
        } else if (op.action === 'patch' && existing) {
          const res = await versions.patch(run.company, existing.id, {
            targets: op.targets,
            ...(op.move ? { validFrom } : {})
          })
          if (ok(res, [200, 409], label)) {
            run.userVersions = run.userVersions.map((v) =>
              v === existing ? { id: v.id, validFrom: op.move ? validFrom : v.validFrom, targets: op.targets } : v
            )
          }
        } else if (op.action === 'delete' && existing) {
          if (ok(await versions.remove(run.company, existing.id), [204, 409], label))
            run.userVersions = run.userVersions.filter((v) => v !== existing)
        }
      }
    }
  }

  it('keeps stored figures equal to a recomputation from scratch, the carry chain intact and the targets the oracle computes after every write', async function () {
    this.timeout(600000)
    const account = fc.record({ start: day, openingBalance: fc.integer({ min: -3000, max: 3000 }) })
    const property = fc.asyncProperty(
      account,
      fc.array(operation, { minLength: 1, maxLength: 20 }),
      async ({ start, openingBalance }, ops) => {
        const company = await suite.company({ country: 'DE' })
        const settings = await settingsSession(suite.server(), company)
        const userId = await f.newUser(company, { employedFrom: DAYS[start], openingBalance })
        const seeded = await settings.get('/settings/working-times')
        assert.equal(seeded.status, 200, seeded.text)
        const run: Run = {
          company,
          settings,
          types: await f.typesOf(company),
          userId,
          entries: new Map(),
          absences: new Map(),
          employedFrom: DAYS[start],
          companyVersions: seeded.body.map((v: any) => ({
            id: v.id,
            validFrom: v.validFrom,
            targetMinutes: v.targetMinutes
          })),
          userVersions: []
        }
        for (const op of ops) {
          await apply(run, op)
          const stored = await assertMatchesRecomputation(suite.server().knex, company.id, run.userId)
          assertConsistent(stored)
          assertTargetsMatchOracle(stored, historyOf(run))
        }
      }
    )
    await fc.assert(property, { numRuns: RUNS, ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}) })
  })
})
