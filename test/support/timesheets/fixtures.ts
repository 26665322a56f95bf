import assert from 'node:assert/strict'
import type { DatabaseSuite, TestCompany } from '../harness'
import { recomputeCompany } from '../../../src/timesheets/recompute'
import { companyVersionOf } from '../../../src/timesheets/schedule'
import { newUser as newUserOf } from '../users'

/**
 * Data for the time-sheet tests, made through the API: users, entries, absences and the
 * by-user look-ups. Helpers make data; the tests assert.
 */

export interface SheetTypes {
  work: number
  vacation: number
  sick: number
  training: number
  overtime: number
  hourly: number
}

export function sheetFixtures(suite: DatabaseSuite) {
  const knex = () => suite.server().knex

  /** A worker; `account` sets where its time account starts (default: today, CONTRACT §11.1). */
  const newUser = (company: TestCompany, account: { employedFrom?: string; openingBalance?: number } = {}) =>
    newUserOf(company, account)

  /** The seeded time entry and absence types, plus an hourly absence type (no seeded type is hourly). */
  const typesOf = async (company: TestCompany): Promise<SheetTypes> => {
    const [work] = (await knex()('timeEntryTypes').where({ companyId: company.id }).orderBy('order')).map(
      (t: any) => t.id
    )
    const [vacation, sick, training, overtime] = (
      await knex()('userAbsenceTypes').where({ companyId: company.id }).orderBy('order')
    ).map((t: any) => t.id)
    const now = new Date().toISOString()
    const [hourly] = await knex()('userAbsenceTypes').insert(
      {
        companyId: company.id,
        name: 'Arzttermin',
        order: 10,
        needApproval: false,
        needCompensation: false,
        countAsWorkingTime: false,
        isAbsenceHourly: true,
        createdAt: now,
        updatedAt: now
      },
      ['id']
    )
    return { work, vacation, sick, training, overtime, hourly: hourly.id }
  }

  const entry = async (
    company: TestCompany,
    types: SheetTypes,
    userId: number,
    startsAt: string,
    endsAt: string | null,
    expected = 201
  ) => {
    const res = await company.api.post('/v1/time-entries', { typeId: types.work, userId, startsAt, endsAt })
    assert.equal(res.status, expected, res.text)
    return res.body
  }

  /** An approved absence (requested and approved at once). */
  const absence = async (
    company: TestCompany,
    typeId: number,
    userId: number,
    startsAt: string,
    endsAt: string,
    extra: Record<string, unknown> = {}
  ) => {
    const at = new Date().toISOString()
    const res = await company.api.post('/v1/user-absences', {
      typeId,
      userId,
      startsAt,
      endsAt,
      requestedAt: at,
      approvedAt: at,
      ...extra
    })
    assert.equal(res.status, 201, res.text)
    return res.body
  }

  const lookUp = async (company: TestCompany, collection: string, query: Record<string, string | number>) => {
    const res = await company.api.get(`/v1/${collection}/by-user`, query)
    assert.equal(res.status, 200, res.text)
    return res.body
  }

  return {
    knex,
    newUser,
    typesOf,
    entry,
    absence,
    day: (company: TestCompany, userId: number, day: string) => lookUp(company, 'time-sheet-days', { userId, day }),
    week: (company: TestCompany, userId: number, weekStart: string) =>
      lookUp(company, 'time-sheet-weeks', { userId, weekStart }),
    month: (company: TestCompany, userId: number, month: string) =>
      lookUp(company, 'time-sheet-months', { userId, month })
  }
}

/**
 * Changes a company's first working-time version (the one that holds from the start of the
 * calendar) and recomputes its time sheets, as `PATCH /settings/working-times/:id` does.
 */
export async function changeWorkingTime(suite: DatabaseSuite, company: TestCompany, change: (model: any) => void) {
  const knex = suite.server().knex
  const version = await knex('company_working_times').where({ companyId: company.id }).orderBy('validFrom').first()
  const model = companyVersionOf(version)
  change(model)
  await knex.transaction(async (trx) => {
    await trx('company_working_times')
      .where({ id: version.id })
      .update({
        targetMinutes: JSON.stringify(model.targetMinutes),
        breakRules: JSON.stringify(model.breakRules),
        maxDailyMinutes: model.maxDailyMinutes,
        carryOverCapMinutes: model.carryOverCapMinutes
      })
    await recomputeCompany(trx, company.id, null)
  })
}

/** A model with 60 target minutes on Mondays only, so that month figures stay readable. */
export const mondayHour = (model: any) => {
  for (const day of Object.keys(model.targetMinutes)) model.targetMinutes[day] = day === 'monday' ? 60 : 0
  model.carryOverCapMinutes = null
}
