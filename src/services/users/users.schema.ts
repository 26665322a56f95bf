import { Type } from '@feathersjs/typebox'
import { defineResource, output, writable, writeOnly } from '../../resources/define-resource'
import type { ValidationErrors } from '../../resources/define-resource'
import { Color, DateString, Email, Enum, Id, Num, Str, Timestamp } from '../../resources/types'
import { ROLE_TYPES } from '../../companies/catalogues'
import { hashPassword } from '../../auth/passwords'
import { refuseAdminChangesByKey } from './users.rules'
import { afterAccountWrite, checkAccountWrite } from './user-account-start'
import { PASSWORD_MAX_BYTES, PASSWORD_MIN_LENGTH, passwordError } from './user-accounts'
import { conflict } from '../../errors'
import { announceChange } from '../../db/change-signal'

/**
 * Email is the global login identity (unique across companies, case-insensitive: CONTRACT §6),
 * kept in `email_normalized`; `roleType` is copied from the role so that it can be filtered.
 */
export const userResource = defineResource({
  path: 'users',
  entity: 'User',
  displayNames: { DE: 'Benutzer/Mitarbeiter', IT: 'Dipendente' },
  methods: ['find', 'get', 'create', 'patch'],
  fields: {
    fullName: writable(Str(255, { minLength: 1 }), { nullable: false }),
    email: writable(Email(), { nullable: false }),
    password: writeOnly(Type.String({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_BYTES }), {
      stored: false
    }),
    shortName: writable(Str()),
    staffNumber: writable(Str()),
    color: writable(Color()),
    roleId: writable(Id(), { nullable: false }),
    roleType: output(Enum(ROLE_TYPES), { nullable: false }),
    deactivatedAt: writable(Timestamp()),
    externalId: writable(Str()),
    employedFrom: writable(
      DateString({
        description:
          'The first day of the time account (company timezone); days before it have target 0. Default: the day the user is created.'
      }),
      { nullable: false }
    ),
    openingBalance: writable(
      Num({
        minimum: -100_000,
        maximum: 100_000,
        description:
          'Overtime balance in minutes brought over from a previous system: the carry-in of the month of employedFrom.'
      }),
      { nullable: false }
    )
  },
  required: ['fullName', 'email'],
  references: { roleId: { table: 'roles' } },
  filters: [
    'id',
    'roleId',
    'fullName',
    'email',
    'shortName',
    'roleType',
    'staffNumber',
    'deactivatedAt',
    'externalId',
    'employedFrom',
    'openingBalance',
    'createdAt',
    'updatedAt'
  ],
  async beforeWrite(write) {
    const { data, method, existing, companyId, trx, params } = write
    const errors: ValidationErrors = {}
    // The schema counts characters; bcrypt's limit is in bytes (the settings page and CLI use the same rule).
    const passwordProblem = typeof data.password === 'string' ? passwordError(data.password) : null
    if (passwordProblem) errors.password = passwordProblem
    // After the field checks: its 403 decides only a body without invalid fields, which a throw would hide.
    if (Object.keys(errors).length > 0) return errors
    await refuseAdminChangesByKey(write)
    Object.assign(errors, await checkAccountWrite(write))
    if (Object.keys(errors).length > 0) return errors
    if (method === 'create' && data.roleId === undefined) {
      const worker = await trx('roles').where({ companyId, type: 'worker' }).first('id')
      data.roleId = worker?.id
    }
    // The key's own user would lock the key out with its next request.
    if (method === 'patch' && data.deactivatedAt && !existing!.deactivatedAt && existing!.id === params.user?.id) {
      throw conflict('The user of this API key cannot deactivate itself', {
        reason: 'own-account',
        ids: [existing!.id]
      })
    }
    // A cached key principal holds its user's name, email and role: every instance forgets it at the commit.
    if (method === 'patch') await announceChange(trx)
    return errors
  },
  async toRow(row, { data, trx }) {
    if (data.email !== undefined) row.emailNormalized = String(data.email).toLowerCase()
    // Non-admins have no settings sessions (CONTRACT §2), so no session version to bump here.
    if (data.password !== undefined)
      row.passwordHash = data.password === null ? null : await hashPassword(data.password)
    if (row.roleId !== undefined) {
      const role = await trx('roles').where({ id: row.roleId }).first('type')
      row.roleType = role.type
    }
  },
  afterWrite: afterAccountWrite
})
