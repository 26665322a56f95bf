import { NotFound } from '@feathersjs/errors'
import type { Knex } from 'knex'
import { hashPassword } from '../../auth/passwords'
import type { RoleType } from '../../companies/catalogues'
import { badRequest } from '../../resources/validation'
import { today } from '../../timesheets/periods'
import { conflict } from '../../errors'
import { announceChange } from '../../db/change-signal'
import { lockedForWrite } from '../../db/dialect'

/**
 * Account changes that only the settings page and the CLI make (CONTRACT §10.1): creating
 * administrators, setting passwords, deactivating. Each ends the user's settings sessions where
 * it must, by raising `users.session_version` (settings tokens carry the version they were minted at).
 */

export const PASSWORD_MIN_LENGTH = 8
/** bcrypt ignores everything after 72 bytes: a longer password would be silently weaker. */
export const PASSWORD_MAX_BYTES = 72
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

export function passwordError(password: unknown): string | null {
  if (typeof password !== 'string' || password.length < PASSWORD_MIN_LENGTH)
    return `must be at least ${PASSWORD_MIN_LENGTH} characters long`
  if (Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES)
    return `must be at most ${PASSWORD_MAX_BYTES} bytes long (UTF-8)`
  return null
}

export interface NewAccount {
  companyId: number
  email: string
  fullName: string
  roleType: RoleType
  password?: string | null
}

/** Field errors of a new account (admins must be able to sign in, so they need a password). */
export function accountErrors(input: Omit<NewAccount, 'companyId'>): Record<string, string> {
  const errors: Record<string, string> = {}
  if (typeof input.email !== 'string' || !EMAIL_PATTERN.test(input.email) || input.email.length > 255)
    errors.email = 'must be an email address'
  if (typeof input.fullName !== 'string' || !input.fullName.trim() || input.fullName.length > 255)
    errors.fullName = 'is required (at most 255 characters)'
  if (input.password != null || input.roleType === 'admin') {
    const problem =
      input.password == null
        ? 'is required for an administrator (who must be able to sign in)'
        : passwordError(input.password)
    if (problem) errors.password = problem
  }
  return errors
}

const normalizeEmail = (email: string) => email.trim().toLowerCase()

export const findUserByEmail = (db: Knex | Knex.Transaction, email: string) =>
  db('users')
    .where({ emailNormalized: normalizeEmail(email) })
    .first()

/** Creates a user of the company's role of that type; 409 when the email is taken (emails are global). */
export async function createAccount(db: Knex, input: NewAccount): Promise<number> {
  const errors = accountErrors(input)
  if (Object.keys(errors).length) throw badRequest('Invalid user', errors)
  const passwordHash = input.password ? await hashPassword(input.password) : null
  return db.transaction(async (trx) => {
    const role = await trx('roles').where({ companyId: input.companyId, type: input.roleType }).first('id', 'type')
    if (!role) throw new NotFound(`Company ${input.companyId} does not exist or has no ${input.roleType} role`)
    if (await findUserByEmail(trx, input.email))
      throw conflict('A user with this email already exists', {
        reason: 'duplicate',
        validationErrors: { email: 'already exists' }
      })
    const now = new Date().toISOString()
    const [row] = await trx('users').insert(
      {
        companyId: input.companyId,
        fullName: input.fullName.trim(),
        email: input.email.trim(),
        emailNormalized: normalizeEmail(input.email),
        passwordHash,
        roleId: role.id,
        roleType: role.type,
        employedFrom: today((await trx('companies').where({ id: input.companyId }).first('timezone')).timezone),
        createdAt: now,
        updatedAt: now
      },
      ['id']
    )
    return Number(row.id ?? row)
  })
}

/** Sets a password and ends every settings session of the user. */
export async function setPassword(db: Knex | Knex.Transaction, userId: number, password: string) {
  const problem = passwordError(password)
  if (problem) throw badRequest('Invalid password', { password: problem })
  const passwordHash = await hashPassword(password)
  await db('users')
    .where({ id: userId })
    .update({
      passwordHash,
      sessionVersion: db.raw('?? + 1', ['session_version']),
      updatedAt: new Date().toISOString()
    })
}

/**
 * Deactivates a user and ends their settings sessions. A company keeps at least one active
 * administrator: the company's active admins are locked first, so two admins deactivating each
 * other at the same moment cannot both succeed (PostgreSQL; SQLite has one writer anyway). In id
 * order, as every lock of several users is taken, and `FOR NO KEY UPDATE` (`lockedForWrite`), not
 * `FOR UPDATE`: the key-share lock of a write that references an admin (an absence naming them as
 * its approver, an entry of theirs) does not hold it up, nor it them, so the two cannot deadlock.
 * Answers the ids of the user's keys, which stop authenticating with it: a caller with the sync
 * bus announces them (`announceRevokedKeys`) so that their sockets are disconnected at once.
 */
export async function deactivateAccount(db: Knex, companyId: number, userId: number): Promise<{ apiKeyIds: number[] }> {
  return db.transaction(async (trx) => {
    const user = await trx('users').where({ id: userId, companyId }).first('id', 'roleType', 'deactivatedAt')
    if (!user) throw new NotFound(`No user with id ${userId}`)
    if (user.deactivatedAt)
      throw conflict('The user is already deactivated', { reason: 'already-deactivated', ids: [userId] })
    if (user.roleType === 'admin') {
      const admins = await lockedForWrite(
        trx,
        trx('users').where({ companyId, roleType: 'admin' }).whereNull('deactivatedAt').orderBy('id')
      ).select('id')
      if (admins.every((admin) => admin.id === userId)) {
        throw conflict(
          'The last active administrator of a company cannot be deactivated: add another administrator first',
          { reason: 'last-admin', ids: [userId] }
        )
      }
    }
    const now = new Date().toISOString()
    await trx('users')
      .where({ id: userId })
      .update({ deactivatedAt: now, sessionVersion: trx.raw('?? + 1', ['session_version']), updatedAt: now })
    const keys = await trx('api_keys').where({ companyId, userId }).whereNull('revokedAt').select('id')
    // The user's keys stop authenticating: every instance's key cache hears of it at the commit.
    await announceChange(trx)
    return { apiKeyIds: keys.map((key) => Number(key.id)) }
  })
}

/** Ends every settings session of the user (logout): tokens carry the version they were minted at. */
export const endSessions = (db: Knex, userId: number) =>
  db('users').where({ id: userId }).increment('sessionVersion', 1)
