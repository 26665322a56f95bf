import { NotFound } from '@feathersjs/errors'
import { Type } from '@feathersjs/typebox'
import type { Knex } from 'knex'
import type { Application, Params } from '../declarations'
import type { ValidationErrors } from '../resources/define-resource'
import { INT32_MAX, Nullable } from '../resources/types'
import { badRequest } from '../resources/validation'
import { parseWorkingTime, WEEKDAYS, WorkingTimeModel } from '../timesheets/working-time'
import { recomputeCompany } from '../timesheets/recompute'
import { validateBodyWith } from './settings.hooks'
import { COUNTRY_CODES } from '../companies/country-codes'

const DayMinutes = (minimum = 0) => Type.Integer({ minimum, maximum: 1440 })

const breakRuleSchema = Type.Object({ afterMinutes: DayMinutes(), minBreakMinutes: DayMinutes(1) }, { additionalProperties: false })

/** Every part of the model replaces the stored one as a whole; the parts left out stay. */
export const workingTimePatchSchema = Type.Object(
  {
    targetMinutes: Type.Optional(Type.Object(Object.fromEntries(WEEKDAYS.map((day) => [day, DayMinutes()])), { additionalProperties: false })),
    breakRules: Type.Optional(Type.Array(breakRuleSchema, { maxItems: 10 })),
    maxDailyMinutes: Type.Optional(DayMinutes(1)),
    carryOverCapMinutes: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: INT32_MAX })))
  },
  { additionalProperties: false }
)

export const companySettingsPatchSchema = Type.Object(
  {
    country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
    timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    workingTime: Type.Optional(workingTimePatchSchema)
  },
  { $id: 'SettingsCompanyPatch', additionalProperties: false }
)

export interface CompanySettings {
  id: number
  name: string
  country: string
  timezone: string
  workingTime: WorkingTimeModel
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

/** Rules that span fields: ascending break rules, targets within the daily maximum. */
function modelErrors(model: WorkingTimeModel): ValidationErrors {
  const errors: ValidationErrors = {}
  model.breakRules.forEach((rule, i) => {
    if (i > 0 && rule.afterMinutes <= model.breakRules[i - 1].afterMinutes) {
      errors[`workingTime.breakRules.${i}.afterMinutes`] = 'must be greater than that of the previous rule'
    }
  })
  for (const day of WEEKDAYS) {
    if (model.targetMinutes[day] > model.maxDailyMinutes) errors[`workingTime.targetMinutes.${day}`] = `must be ≤ maxDailyMinutes (${model.maxDailyMinutes})`
  }
  return errors
}

/**
 * `settings/company`: the company's country, timezone and working-time model (CONTRACT §7.1).
 * `find` reads it, `PATCH /settings/company` (no id) changes it in one transaction.
 */
export class CompanySettingsService {
  constructor(private readonly app: Application) {}

  private get db(): Knex {
    return this.app.get('knex' as any)
  }

  private async read(db: Knex | Knex.Transaction, companyId: number): Promise<CompanySettings> {
    const row = await db('companies').select('id', 'name', 'country', 'timezone', 'workingTime').where({ id: companyId }).first()
    return { id: row.id, name: row.name, country: row.country, timezone: row.timezone, workingTime: parseWorkingTime(row.workingTime, row.country) }
  }

  async find(params: Params): Promise<CompanySettings> {
    return this.read(this.db, params.company!.id)
  }

  async patch(id: null | number | string, data: unknown, params: Params): Promise<CompanySettings> {
    if (id !== null) throw new NotFound('The company settings have no id: PATCH /settings/company')
    const body = validateBodyWith(companySettingsPatchSchema, 'CompanySettings', data)
    const companyId = params.company!.id
    return this.db.transaction(async (trx) => {
      const current = await this.read(trx, companyId)
      const next = { ...current, ...body, workingTime: { ...current.workingTime, ...body.workingTime } } as CompanySettings
      const errors: ValidationErrors = {
        ...(body.country !== undefined && !isCountryCode(body.country) ? { country: 'must be an ISO 3166 alpha-2 country code such as DE or IT' } : {}),
        ...(body.timezone !== undefined && !isTimezone(body.timezone) ? { timezone: 'must be an IANA timezone such as Europe/Berlin' } : {}),
        ...modelErrors(next.workingTime)
      }
      if (Object.keys(errors).length) throw badRequest('Invalid CompanySettings body', errors)
      await trx('companies')
        .where({ id: companyId })
        .update({ country: next.country, timezone: next.timezone, workingTime: JSON.stringify(next.workingTime), updatedAt: new Date().toISOString() })
      if (next.timezone !== current.timezone || JSON.stringify(next.workingTime) !== JSON.stringify(current.workingTime)) {
        // The model has no validity dates: every day is recomputed, except that approved days
        // stay frozen and locked months keep their snapshots (CONTRACT §7.6).
        await recomputeCompany(trx, companyId, null)
      }
      return this.read(trx, companyId)
    })
  }
}
