import { Forbidden } from '@feathersjs/errors'
import type { WriteContext } from '../../resources/define-resource'

/** Fields of an admin user that only the settings page and the CLI may change (CONTRACT §10.1). */
const ADMIN_ACCOUNT_FIELDS = ['password', 'email', 'deactivatedAt'] as const

const sameInstant = (a: unknown, b: unknown) =>
  a == null || b == null ? a == null && b == null : new Date(String(a)).getTime() === new Date(String(b)).getTime()

/** Whether a body value would change what is stored; a password always does (it cannot be compared). */
function changes(field: (typeof ADMIN_ACCOUNT_FIELDS)[number], value: unknown, existing: Record<string, unknown>) {
  if (value === undefined) return false
  if (field === 'email') return value !== existing.email
  if (field === 'deactivatedAt') return !sameInstant(value, existing.deactivatedAt)
  return true
}

const forbidden = (message: string, fields: string[]) => new Forbidden(message, { reason: 'admin-account', fields })

/**
 * An API key can never make, unmake or take over an administrator: an admin's login is the
 * settings page's power, and a key that could set an admin's password or email (or create an
 * admin with a known password) would gain it. Values equal to the stored ones are not changes,
 * so an integration that writes back a whole user still works.
 */
export async function refuseAdminChangesByKey({
  data,
  method,
  existing,
  companyId,
  params,
  trx
}: WriteContext<unknown>) {
  // /v1 refuses settings tokens, so every external call is made with a key; internal calls
  // (the settings page, the CLI) are the places where admins are managed.
  if (!params.provider && !params.apiKey) return
  const roleType = async (roleId: unknown) =>
    roleId == null
      ? undefined
      : ((await trx('roles').where({ id: roleId, companyId }).first('type'))?.type as string | undefined)
  if (method === 'create') {
    if ((await roleType(data.roleId)) === 'admin') {
      throw forbidden(
        'An API key cannot create an administrator: add administrators on the settings page or with `crewclock user create --role admin`',
        ['roleId']
      )
    }
    return
  }
  const wasAdmin = existing!.roleType === 'admin'
  if (
    data.roleId !== undefined &&
    data.roleId !== existing!.roleId &&
    (wasAdmin || (await roleType(data.roleId)) === 'admin')
  ) {
    throw forbidden(
      wasAdmin
        ? 'An API key cannot change the role of an administrator'
        : 'An API key cannot make a user an administrator: use the settings page or the CLI',
      ['roleId']
    )
  }
  if (!wasAdmin) return
  const fields = ADMIN_ACCOUNT_FIELDS.filter((field) => changes(field, data[field], existing!))
  if (fields.length) {
    throw forbidden(
      `An API key cannot change the ${fields.join(', ')} of an administrator: use the settings page or the CLI`,
      [...fields]
    )
  }
}
