import { BadRequest, Forbidden, NotFound } from '@feathersjs/errors'
import { Type } from '@feathersjs/typebox'
import bcrypt from 'bcryptjs'
import type { Knex } from 'knex'
import type { Application, Params } from '../declarations'
import { Email, Str } from '../resources/types'
import { badRequest } from '../resources/validation'
import { createAccount, deactivateAccount, passwordError, setPassword } from '../services/users/user-accounts'
import { validateBodyWith } from './settings.hooks'
import { announceRevokedKeys } from '../sync/topics'
import { journalOf, loggedTransaction } from '../events/journal'

/** Admins are /v1 users: their changes are logged as `users.*` events with the admin as actor. */
const USERS_PATH = 'v1/users'

// Lengths are checked by passwordError (bytes as well as characters), with the messages /v1 uses.
const Password = () => Type.String({ maxLength: 1000 })

export const adminDataSchema = Type.Object(
  { email: Email(), fullName: Str(255, { minLength: 1 }), password: Password() },
  { $id: 'SettingsAdminData', additionalProperties: false }
)

export const passwordChangeSchema = Type.Object(
  { currentPassword: Type.String({ maxLength: 1000 }), password: Password() },
  { $id: 'SettingsPasswordChange', additionalProperties: false }
)

export interface AdminItem {
  id: number
  fullName: string
  email: string
  createdAt: string
  deactivatedAt: string | null
  /** The admin who is signed in. */
  isCurrentUser: boolean
}

/** Never `users.*`: the password hash must not leave the database. */
const ADMIN_COLUMNS = ['id', 'fullName', 'email', 'createdAt', 'deactivatedAt']

const iso = (value: unknown) => (value ? new Date(value as string).toISOString() : null)

/**
 * `settings/admins`: the company's administrators (CONTRACT §10.1), which an API key can never
 * change. `create` adds one, `patch` on one's own id changes one's own password (the current
 * one is required), `remove` deactivates (the row stays; never the last active admin: 409).
 * Password changes and deactivation end the admin's settings sessions, including this one.
 */
/** A row of ADMIN_COLUMNS. */
interface AdminRow {
  id: number
  fullName: string
  email: string
  createdAt: unknown
  deactivatedAt: unknown
}

export class AdminsService {
  constructor(private readonly app: Application) {}

  private get db(): Knex {
    return this.app.get('knex')
  }

  private toItem(row: AdminRow, params: Params): AdminItem {
    return {
      id: row.id,
      fullName: row.fullName,
      email: row.email,
      createdAt: iso(row.createdAt)!,
      deactivatedAt: iso(row.deactivatedAt),
      isCurrentUser: row.id === params.user!.id
    }
  }

  private admins(params: Params) {
    return this.db('users').where({ companyId: params.company!.id, roleType: 'admin' })
  }

  async find(params: Params): Promise<AdminItem[]> {
    const rows = await this.admins(params).orderBy('id').select(ADMIN_COLUMNS)
    return rows.map((row) => this.toItem(row, params))
  }

  async get(id: number, params: Params): Promise<AdminItem> {
    const row = await this.admins(params).where({ id }).first(ADMIN_COLUMNS)
    if (!row) throw new NotFound(`No administrator with id ${id}`)
    return this.toItem(row, params)
  }

  async create(data: unknown, params: Params): Promise<AdminItem> {
    const body = validateBodyWith(adminDataSchema, 'Admin', data)
    const problem = passwordError(body.password)
    if (problem) throw badRequest('Invalid Admin body', { password: problem })
    const id = await loggedTransaction(this.app, this.db, params, async (tx, trx) => {
      const created = await createAccount(trx, {
        companyId: params.company!.id,
        email: body.email,
        fullName: body.fullName,
        roleType: 'admin',
        password: body.password
      })
      journalOf(tx).touch(USERS_PATH, 'created', [created])
      return created
    })
    return this.get(id, params)
  }

  async patch(id: number | null, data: unknown, params: Params): Promise<AdminItem> {
    if (id === null) throw new BadRequest('PATCH needs an administrator id')
    const existing = await this.get(id, params)
    if (!existing.isCurrentUser)
      throw new Forbidden('You can change only your own password', { reason: 'not-own-account', ids: [id] })
    const body = validateBodyWith(passwordChangeSchema, 'PasswordChange', data)
    const problem = passwordError(body.password)
    if (problem) throw badRequest('Invalid PasswordChange body', { password: problem })
    const { passwordHash } = await this.db('users').where({ id }).first('passwordHash')
    if (!passwordHash || !(await bcrypt.compare(body.currentPassword, passwordHash))) {
      throw badRequest('Invalid PasswordChange body', { currentPassword: 'is not your current password' })
    }
    await loggedTransaction(this.app, this.db, params, async (tx, trx) => {
      await setPassword(trx, id, body.password)
      journalOf(tx).touch(USERS_PATH, 'patched', [id])
    })
    return this.get(id, params)
  }

  async remove(id: number, params: Params): Promise<AdminItem> {
    await this.get(id, params)
    const { apiKeyIds } = await loggedTransaction(this.app, this.db, params, async (tx, trx) => {
      const deactivated = await deactivateAccount(trx, params.company!.id, id)
      journalOf(tx).touch(USERS_PATH, 'patched', [id])
      return deactivated
    })
    // After commit: the deactivated admin's keys stop (CONTRACT §12).
    announceRevokedKeys(this.app.get('bus'), apiKeyIds)
    return this.get(id, params)
  }
}
