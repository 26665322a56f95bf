import { BadRequest, NotFound } from '@feathersjs/errors'
import { conflict } from '../errors'
import { Type } from '@feathersjs/typebox'
import type { Knex } from 'knex'
import { lockedForWrite } from '../db/dialect'
import { announceChange } from '../db/change-signal'
import type { Application, Params } from '../declarations'
import type { ValidationErrors } from '../resources/define-resource'
import { DateString, DayMinutes, INT32_MAX, Nullable } from '../resources/types'
import { badRequest } from '../resources/validation'
import { WEEKDAYS, WorkingTimeModel } from '../timesheets/working-time'
import { recomputeCompany } from '../timesheets/recompute'
import { COMPANY_RECOMPUTED, RecomputeReason, companyRecomputed } from '../timesheets/events'
import { journalOf, loggedTransaction } from '../events/journal'
import { workDaysChanged, workDaysOf } from '../services/user-absences/user-absences.rules'
import { CompanyVersion, FIRST_VERSION_DAY, companyVersionOf, companyVersionOn } from '../timesheets/schedule'
import { VersionRange, assertNoLockedMonthIn, earliestOf, rangeOf } from '../timesheets/schedule-changes'
import { EARLIEST_DAY, addDays, today } from '../timesheets/periods'
import { validateBodyWith } from './settings.hooks'
import { COUNTRY_CODES } from '../companies/country-codes'

const breakRuleSchema = Type.Object(
  { afterMinutes: DayMinutes(), minBreakMinutes: DayMinutes(1) },
  { additionalProperties: false }
)

/**
 * The parts of a working-time version; each replaces the stored one as a whole, the parts left out
 * stay, and so do the days `targetMinutes` leaves out ("Fridays 300" changes only Fridays).
 */
const modelParts = {
  targetMinutes: Type.Optional(
    Type.Object(Object.fromEntries(WEEKDAYS.map((day) => [day, Type.Optional(DayMinutes())])), {
      additionalProperties: false
    })
  ),
  breakRules: Type.Optional(Type.Array(breakRuleSchema, { maxItems: 10 })),
  maxDailyMinutes: Type.Optional(DayMinutes(1)),
  carryOverCapMinutes: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: INT32_MAX })))
}

export const workingTimeVersionSchema = Type.Object(
  { validFrom: Type.Optional(DateString()), ...modelParts },
  { $id: 'SettingsWorkingTimeVersion', additionalProperties: false }
)

export const companySettingsPatchSchema = Type.Object(
  {
    country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
    timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 }))
  },
  { $id: 'SettingsCompanyPatch', additionalProperties: false }
)

export interface WorkingTimeVersion extends CompanyVersion {
  id: number
}

export interface CompanySettings {
  id: number
  name: string
  country: string
  timezone: string
  /** The version in effect today (company timezone). */
  workingTime: WorkingTimeVersion
  /** Every version, ascending by `validFrom` (CONTRACT §11.2). */
  workingTimeVersions: WorkingTimeVersion[]
}

/** The same list the CLI checks (ICU also names retired and reserved codes such as UK, DD, XK). */
export const isCountryCode = (code: string) => COUNTRY_CODES.has(code)

/** An IANA name spelled as the time-zone database spells it (`europe/berlin` and `+01:00` are not). */
export function isTimezone(name: string) {
  try {
    return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone === name
  } catch {
    return false
  }
}

/** A model with the parts a body gives: whole parts replaced, the days of `targetMinutes` one by one. */
function withParts<M extends WorkingTimeModel>(model: M, body: Partial<Record<keyof WorkingTimeModel, unknown>>): M {
  const targetMinutes = { ...model.targetMinutes, ...(body.targetMinutes as object | undefined) }
  return { ...model, ...body, targetMinutes }
}

/** Rules that span fields: ascending break rules, targets within the daily maximum. */
function modelErrors(model: WorkingTimeModel): ValidationErrors {
  const errors: ValidationErrors = {}
  model.breakRules.forEach((rule, i) => {
    if (i > 0 && rule.afterMinutes <= model.breakRules[i - 1].afterMinutes) {
      errors[`breakRules.${i}.afterMinutes`] = 'must be greater than that of the previous rule'
    }
  })
  for (const day of WEEKDAYS) {
    if (model.targetMinutes[day] > model.maxDailyMinutes)
      errors[`targetMinutes.${day}`] = `must be ≤ maxDailyMinutes (${model.maxDailyMinutes})`
  }
  return errors
}

const versionItem = (row: Record<string, unknown>): WorkingTimeVersion => ({
  id: Number(row.id),
  ...companyVersionOf(row)
})

/** The columns of a version (documents as JSON text, which both databases take). */
const storedRow = (version: CompanyVersion): Record<string, unknown> => ({
  validFrom: version.validFrom,
  targetMinutes: JSON.stringify(version.targetMinutes),
  breakRules: JSON.stringify(version.breakRules),
  maxDailyMinutes: version.maxDailyMinutes,
  carryOverCapMinutes: version.carryOverCapMinutes
})

/** Whether two versions hold the same day and parts (key order of stored documents does not count). */
const sameVersion = (a: CompanyVersion, b: CompanyVersion) =>
  a.validFrom === b.validFrom &&
  a.maxDailyMinutes === b.maxDailyMinutes &&
  a.carryOverCapMinutes === b.carryOverCapMinutes &&
  WEEKDAYS.every((day) => a.targetMinutes[day] === b.targetMinutes[day]) &&
  a.breakRules.length === b.breakRules.length &&
  a.breakRules.every(
    (rule, i) =>
      rule.afterMinutes === b.breakRules[i].afterMinutes && rule.minBreakMinutes === b.breakRules[i].minBreakMinutes
  )

async function versionsOf(db: Knex | Knex.Transaction, companyId: number): Promise<WorkingTimeVersion[]> {
  return (await db('company_working_times').where({ companyId }).orderBy('validFrom')).map(versionItem)
}

/**
 * Serialises the writes of one company's settings, versions and timezone alike (PostgreSQL; SQLite
 * runs one write at a time), and reads the timezone as it stands under that lock. (NO KEY UPDATE:
 * every insert of a row of the company takes a key-share lock on it through its foreign key.)
 */
async function lockCompany(trx: Knex.Transaction, companyId: number): Promise<{ timezone: string }> {
  return lockedForWrite(trx, trx('companies').where({ id: companyId })).first('timezone')
}

/**
 * Recomputes the company from `fromDay` and logs what changed as one `company.recomputed`
 * (nothing when no stored figure and no absence's `workDays` changed). Runs in the settings
 * write's logged transaction, after the change it follows.
 */
async function recomputeAndLog(
  app: Application,
  params: Params,
  trx: Knex.Transaction,
  reason: RecomputeReason,
  fromDay: string | null,
  workDaysBefore: Map<number, { workDays: number }>
) {
  const companyId = params.company!.id
  const changed = await recomputeCompany(trx, companyId, fromDay)
  const call = { app, params, trx, companyId }
  const absences = workDaysChanged(workDaysBefore, await workDaysOf(call, null, fromDay))
  const data = await companyRecomputed(trx, companyId, { reason, fromDay, changed, absences })
  if (data) journalOf(params).companyEvent(COMPANY_RECOMPUTED, { ...data })
}

/**
 * `settings/company`: the company's country and timezone, and its working-time versions to read
 * (CONTRACT §7.1, §11.2). `find` reads it, `PATCH /settings/company` (no id) changes country and
 * timezone; versions are written through `settings/working-times`.
 */
export class CompanySettingsService {
  constructor(private readonly app: Application) {}

  private get db(): Knex {
    return this.app.get('knex')
  }

  private async read(db: Knex | Knex.Transaction, companyId: number): Promise<CompanySettings> {
    const row = await db('companies').select('id', 'name', 'country', 'timezone').where({ id: companyId }).first()
    const versions = await versionsOf(db, companyId)
    const current = companyVersionOn(versions, today(row.timezone))
    return {
      id: row.id,
      name: row.name,
      country: row.country,
      timezone: row.timezone,
      workingTime: current,
      workingTimeVersions: versions
    }
  }

  async find(params: Params): Promise<CompanySettings> {
    return this.read(this.db, params.company!.id)
  }

  async patch(id: null | number | string, data: unknown, params: Params): Promise<CompanySettings> {
    if (id !== null) throw new NotFound('The company settings have no id: PATCH /settings/company')
    if (data && typeof data === 'object' && 'workingTime' in data) {
      throw badRequest('Invalid CompanySettings body', {
        workingTime:
          'is changed by versions from a date: POST /settings/working-times (a new version) or PATCH /settings/working-times/:id'
      })
    }
    const body = validateBodyWith(companySettingsPatchSchema, 'CompanySettings', data)
    const companyId = params.company!.id
    return loggedTransaction(this.app, this.db, params, async (tx, trx) => {
      // Under the lock: two timezone changes at once must not both compare with the old zone
      // (the second would see no change and skip the recomputation its own change needs).
      await lockCompany(trx, companyId)
      const current = await this.read(trx, companyId)
      const next = { ...current, ...body }
      const errors: ValidationErrors = {
        ...(body.country !== undefined && !isCountryCode(body.country)
          ? { country: 'must be an ISO 3166 alpha-2 country code such as DE or IT' }
          : {}),
        ...(body.timezone !== undefined && !isTimezone(body.timezone)
          ? { timezone: 'must be an IANA timezone such as Europe/Berlin' }
          : {})
      }
      if (Object.keys(errors).length) throw badRequest('Invalid CompanySettings body', errors)
      const zoneChanged = next.timezone !== current.timezone
      const workDaysBefore = zoneChanged
        ? await workDaysOf({ app: this.app, params: tx, trx, companyId }, null, null)
        : null
      await trx('companies')
        .where({ id: companyId })
        .update({ country: next.country, timezone: next.timezone, updatedAt: new Date().toISOString() })
      // Requests carry the company's timezone and country from the key cache: it hears of the change at the commit.
      await announceChange(trx)
      // Every calendar day moves with the timezone: all days are recomputed, except that approved
      // days stay frozen and locked months keep their snapshots (CONTRACT §7.6).
      if (workDaysBefore) await recomputeAndLog(this.app, tx, trx, 'timezone', null, workDaysBefore)
      return this.read(trx, companyId)
    })
  }
}

/**
 * `settings/working-times`: the versions of the company's working-time model (CONTRACT §11.2).
 * `create` adds a version from `validFrom` (default: tomorrow, company timezone) whose parts left
 * out are those of the version in effect that day; `patch` changes a version's parts or moves
 * its `validFrom`; `remove` deletes one (never the first, which holds from the start of the
 * calendar). Each write recomputes the unlocked time sheets of every user from the earliest day
 * it changes, and is refused (409) when it would change a locked month.
 */
export class WorkingTimesService {
  /** Item paths only for PATCH and DELETE: on the collection they are 405, not a missing version. */
  readonly options = { multi: false }

  constructor(private readonly app: Application) {}

  private get db(): Knex {
    return this.app.get('knex')
  }

  async find(params: Params): Promise<WorkingTimeVersion[]> {
    return versionsOf(this.db, params.company!.id)
  }

  /**
   * Runs `work` under the company's lock and recomputes from the earliest day of the ranges it
   * changed (none: nothing changed, nothing to check or recompute).
   */
  private async write(
    params: Params,
    work: (
      trx: Knex.Transaction,
      versions: WorkingTimeVersion[],
      company: { id: number; timezone: string },
      prepare: (ranges: VersionRange[]) => Promise<void>
    ) => Promise<{ id?: number; ranges: VersionRange[] }>
  ) {
    const companyId = params.company!.id
    return loggedTransaction(this.app, this.db, params, async (tx, trx) => {
      const { timezone } = await lockCompany(trx, companyId)
      let workDaysBefore = new Map<number, { workDays: number }>()
      // Before the version's row is written: the absences' workDays as they were.
      const prepare = async (ranges: VersionRange[]) => {
        await assertNoLockedMonthIn(trx, companyId, null, ranges)
        workDaysBefore = await workDaysOf({ app: this.app, params: tx, trx, companyId }, null, earliestOf(ranges))
      }
      const { id, ranges } = await work(trx, await versionsOf(trx, companyId), { id: companyId, timezone }, prepare)
      if (ranges.length)
        await recomputeAndLog(this.app, tx, trx, 'working-time-versions', earliestOf(ranges), workDaysBefore)
      return id === undefined
        ? undefined
        : versionItem(await trx('company_working_times').where({ id, companyId }).first())
    })
  }

  /** The stored row of `next` after checking it; 400 naming the fields. */
  private checked(next: CompanyVersion, validFromGiven: boolean): Record<string, unknown> {
    const errors = modelErrors(next)
    if (validFromGiven && next.validFrom < EARLIEST_DAY) errors.validFrom = `must not be before ${EARLIEST_DAY}`
    if (Object.keys(errors).length) throw badRequest('Invalid WorkingTimeVersion body', errors)
    return storedRow(next)
  }

  private static duplicate(validFrom: string) {
    return conflict(`A working-time version from ${validFrom} exists; change it (PATCH) instead`, {
      reason: 'version-exists',
      validationErrors: { validFrom: 'is taken by another version' }
    })
  }

  async create(data: unknown, params: Params): Promise<WorkingTimeVersion> {
    const body = validateBodyWith(workingTimeVersionSchema, 'WorkingTimeVersion', data)
    const result = await this.write(params, async (trx, versions, company, prepare) => {
      const validFrom: string = body.validFrom ?? addDays(today(company.timezone), 1)
      const { id: _id, validFrom: _from, ...base } = companyVersionOn(versions, validFrom)
      // A bad body is 400 whatever else is wrong: 1970-01-01 is before 2000, not the first version's day.
      const row = this.checked({ ...withParts(base, body), validFrom } as CompanyVersion, true)
      if (versions.some((version) => version.validFrom === validFrom)) throw WorkingTimesService.duplicate(validFrom)
      const ranges = [
        rangeOf(
          validFrom,
          versions.map((version) => version.validFrom)
        )
      ]
      await prepare(ranges)
      const now = new Date().toISOString()
      const [inserted] = await trx('company_working_times').insert(
        { companyId: company.id, ...row, createdAt: now, updatedAt: now },
        ['id']
      )
      return { id: Number(inserted.id), ranges }
    })
    return result!
  }

  async patch(id: number, data: unknown, params: Params): Promise<WorkingTimeVersion> {
    const body = validateBodyWith(workingTimeVersionSchema, 'WorkingTimeVersion', data)
    const result = await this.write(params, async (trx, versions, company, prepare) => {
      const index = versions.findIndex((version) => version.id === id)
      if (index < 0) throw new NotFound(`No working-time version ${id}`)
      const { id: _id, ...existing } = versions[index]
      const others = versions.filter((version) => version.id !== id).map((version) => version.validFrom)
      const validFrom: string = body.validFrom ?? existing.validFrom
      if (index === 0 && validFrom !== existing.validFrom) {
        throw new BadRequest(
          `Invalid WorkingTimeVersion body: validFrom of the first version is ${FIRST_VERSION_DAY}: it holds from the start of the calendar`,
          {
            validationErrors: { validFrom: `cannot change on the first version (${FIRST_VERSION_DAY})` }
          }
        )
      }
      const next = { ...withParts(existing, body), validFrom } as CompanyVersion
      const row = this.checked(next, body.validFrom !== undefined && index > 0)
      if (others.includes(validFrom)) throw WorkingTimesService.duplicate(validFrom)
      // Writing a version back as it is changes no day: no 409 for a locked month it spans, no recomputation.
      if (sameVersion(next, existing)) return { id, ranges: [] }
      const ranges = [rangeOf(existing.validFrom, others), rangeOf(validFrom, others)]
      await prepare(ranges)
      await trx('company_working_times')
        .where({ id, companyId: company.id })
        .update({ ...row, updatedAt: new Date().toISOString() })
      return { id, ranges }
    })
    return result!
  }

  async remove(id: number, params: Params): Promise<null> {
    await this.write(params, async (trx, versions, company, prepare) => {
      const index = versions.findIndex((version) => version.id === id)
      if (index < 0) throw new NotFound(`No working-time version ${id}`)
      if (index === 0) {
        throw conflict(
          `The first working-time version holds from ${FIRST_VERSION_DAY} and cannot be deleted; change it (PATCH) instead`,
          { reason: 'first-version', ids: [id] }
        )
      }
      const others = versions.filter((version) => version.id !== id).map((version) => version.validFrom)
      const ranges = [rangeOf(versions[index].validFrom, others)]
      await prepare(ranges)
      await trx('company_working_times').where({ id, companyId: company.id }).delete()
      return { ranges }
    })
    return null
  }
}
