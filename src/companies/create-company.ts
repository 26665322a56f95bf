import type { Knex } from 'knex'
import { createApiKey } from '../auth/api-keys'
import { hashPassword } from '../auth/passwords'
import * as catalogues from './catalogues'
import { COUNTRY_CODES } from './country-codes'
import { FIRST_VERSION_DAY } from '../timesheets/schedule'
import { defaultWorkingTime } from '../timesheets/working-time'
import { today } from '../timesheets/periods'

export interface CreateCompanyInput {
  name: string
  country: string
  timezone?: string
  adminEmail: string
  adminPassword?: string
  adminName?: string
}

const isValidTimezone = (timezone: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: timezone })
    return true
  } catch {
    return false
  }
}

export function validateCompanyInput(input: CreateCompanyInput): Record<string, string> {
  const errors: Record<string, string> = {}
  if (!input.name?.trim() || input.name.length > 255) errors.name = 'is required (at most 255 characters)'
  if (!COUNTRY_CODES.has(input.country ?? ''))
    errors.country = 'must be an ISO 3166 alpha-2 country code such as DE or IT'
  if (input.timezone !== undefined && !isValidTimezone(input.timezone))
    errors.timezone = 'must be an IANA timezone such as Europe/Berlin'
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(input.adminEmail ?? '')) errors.adminEmail = 'must be an email address'
  if (input.adminPassword !== undefined && input.adminPassword.length < 8)
    errors.adminPassword = 'must be at least 8 characters long'
  return errors
}

/**
 * Creates a company with its localized catalogues, an admin user and one API key, in one
 * transaction: a company never exists half-seeded.
 */
export async function createCompany(db: Knex, secret: string, input: CreateCompanyInput) {
  const lang = catalogues.languageOf(input.country)
  const now = new Date().toISOString()
  const stamps = { createdAt: now, updatedAt: now }
  return db.transaction(async (trx) => {
    const [company] = await trx('companies').insert(
      {
        name: input.name.trim(),
        country: input.country,
        timezone: input.timezone ?? catalogues.defaultTimezone(input.country),
        ...stamps
      },
      ['id']
    )
    const companyId = Number(company.id)
    // The model seeded by country, as the company's first version: it holds from the start of the calendar (CONTRACT §11.2).
    const model = defaultWorkingTime(input.country)
    await trx('company_working_times').insert({
      companyId,
      validFrom: FIRST_VERSION_DAY,
      targetMinutes: JSON.stringify(model.targetMinutes),
      breakRules: JSON.stringify(model.breakRules),
      maxDailyMinutes: model.maxDailyMinutes,
      carryOverCapMinutes: model.carryOverCapMinutes,
      ...stamps
    })
    const seed = async (table: string, rows: Record<string, unknown>[]) => {
      const inserted = await trx(table).insert(
        rows.map((row, order) => ({ companyId, order, ...row, ...stamps })),
        ['id']
      )
      return inserted.map((r: { id: number | string }) => Number(r.id))
    }
    const roleIds = await seed(
      'roles',
      catalogues.roles.map((r) => ({ type: r.type, name: r.name[lang] }))
    )
    await seed(
      'assignment_types',
      catalogues.assignmentTypes.map((t) => ({ name: t.name[lang], color: t.color }))
    )
    await seed(
      'assignment_status_types',
      catalogues.assignmentStatusTypes.map((t) => ({ name: t.name[lang], category: t.category }))
    )
    const eventTypeIds = await seed(
      'assignment_event_types',
      catalogues.assignmentEventTypes.map((t) => ({ name: t.name[lang], shortName: t.shortName[lang], color: t.color }))
    )
    const eventTypeId = Object.fromEntries(catalogues.assignmentEventTypes.map((t, i) => [t.key, eventTypeIds[i]]))
    await seed(
      'assignment_event_group_types',
      catalogues.assignmentEventGroupTypes.map((t) => ({ name: t.name[lang] }))
    )
    await seed(
      'time_entry_types',
      catalogues.timeEntryTypes.map((t) => ({
        name: t.name[lang],
        eventTypeId: t.eventType ? eventTypeId[t.eventType] : null,
        isUnassigned: t.isUnassigned ?? false
      }))
    )
    await seed(
      'user_absence_types',
      catalogues.userAbsenceTypes.map((t) => ({
        name: t.name[lang],
        color: t.color,
        needApproval: t.needApproval,
        needCompensation: t.needCompensation,
        countAsWorkingTime: t.countAsWorkingTime,
        isAbsenceHourly: false
      }))
    )
    await seed(
      'upload_categories',
      catalogues.uploadCategories.map((c) => ({ name: c.name[lang], color: c.color, roleIds: JSON.stringify([]) }))
    )
    const [admin] = await trx('users').insert(
      {
        companyId,
        fullName: input.adminName ?? 'Administrator',
        email: input.adminEmail,
        emailNormalized: input.adminEmail.trim().toLowerCase(),
        passwordHash: input.adminPassword ? await hashPassword(input.adminPassword) : null,
        roleId: roleIds[0],
        roleType: catalogues.roles[0].type,
        employedFrom: today(input.timezone ?? catalogues.defaultTimezone(input.country)),
        ...stamps
      },
      ['id']
    )
    const adminUserId = Number(admin.id)
    const key = await createApiKey(trx, secret, { companyId, userId: adminUserId, name: 'default' })
    return { companyId, adminUserId, apiKey: key.key, apiKeyId: key.id }
  })
}
