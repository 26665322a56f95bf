import { AuthenticationBaseStrategy, AuthenticationService, JWTStrategy } from '@feathersjs/authentication'
import type { AuthenticationRequest, AuthenticationResult, AuthenticationParams } from '@feathersjs/authentication'
import { LocalStrategy } from '@feathersjs/authentication-local'
import { NotAuthenticated } from '@feathersjs/errors'
import type { IncomingMessage } from 'node:http'
import type { Knex } from 'knex'
import type { Application, ActingUser, CompanyContext } from '../declarations'
import { API_KEY_PREFIX, findApiKey } from './api-keys'

export interface Principal {
  company: CompanyContext
  user: ActingUser
}

export async function loadPrincipal(db: Knex, companyId: number, userId: number): Promise<Principal | null> {
  const company = await db('companies').select('id', 'name', 'country', 'timezone').where({ id: companyId }).first()
  const user = await db('users')
    .join('roles', 'roles.id', 'users.roleId')
    .select('users.id', 'users.fullName', 'users.email', 'users.deactivatedAt', 'roles.type as roleType')
    .where({ 'users.id': userId, 'users.companyId': companyId })
    .first()
  if (!company || !user || user.deactivatedAt) return null
  return {
    company: { id: company.id, name: company.name, country: company.country, timezone: company.timezone },
    user: { id: user.id, fullName: user.fullName, email: user.email, roleType: user.roleType }
  }
}

/**
 * `Authorization: Bearer ck_...` on REST, `{ strategy: 'apiKey', apiKey }` on a socket. It only
 * claims bearer values with the key prefix, so JWTs still reach the jwt strategy.
 */
export class ApiKeyStrategy extends AuthenticationBaseStrategy {
  async parse(req: IncomingMessage): Promise<AuthenticationRequest | null> {
    const header = req.headers?.authorization
    if (typeof header !== 'string') return null
    const match = header.match(/^Bearer\s+(\S+)\s*$/i)
    if (!match || !match[1].startsWith(API_KEY_PREFIX)) return null
    return { strategy: this.name, apiKey: match[1] }
  }

  async authenticate(authentication: AuthenticationRequest): Promise<AuthenticationResult> {
    const db = this.app!.get('knex' as any) as Knex
    const { apiKey } = authentication
    const row = typeof apiKey === 'string' ? await findApiKey(db, apiKey) : null
    const principal = row && (await loadPrincipal(db, row.companyId, row.userId))
    if (!row || !principal) throw new NotAuthenticated('Invalid or revoked API key')
    return { authentication: { strategy: this.name, apiKeyId: row.id }, apiKey: { id: row.id }, ...principal }
  }
}

/**
 * Socket connections authenticate once with a key; Feathers then uses the JWT it minted. The
 * token carries the key id, and every call re-checks that the key is still valid, so a revoked
 * key stops working on open sockets as well.
 */
export class ApiKeyJwtStrategy extends JWTStrategy {
  async authenticate(authentication: AuthenticationRequest, params: AuthenticationParams): Promise<any> {
    const result = await super.authenticate(authentication, params)
    const payload = result.authentication.payload as { apiKeyId?: number; companyId?: number; sub?: string }
    const db = this.app!.get('knex' as any) as Knex
    if (payload.apiKeyId === undefined) {
      // Settings-page tokens (admin login) carry no key: they are for the settings endpoints only.
      const principal = payload.companyId && payload.sub ? await loadPrincipal(db, payload.companyId, Number(payload.sub)) : null
      if (!principal || principal.user.roleType !== 'admin') throw new NotAuthenticated('Invalid token')
      return { ...result, ...principal, settingsLogin: true }
    }
    const key = await db('api_keys').where({ id: payload.apiKeyId }).first()
    const principal = key && !key.revokedAt ? await loadPrincipal(db, key.companyId, key.userId) : null
    if (!principal) throw new NotAuthenticated('Invalid or revoked API key')
    return { ...result, ...principal, apiKey: { id: key.id } }
  }
}

/** Email + password for admins on the settings page (CONTRACT §2). */
export class AdminLocalStrategy extends LocalStrategy {
  async findEntity(username: string) {
    const db = this.app!.get('knex' as any) as Knex
    const row = await db('users')
      .join('roles', 'roles.id', 'users.roleId')
      .select('users.*', 'roles.type as roleType')
      .where({ 'users.emailNormalized': username.trim().toLowerCase() })
      .first()
    if (!row || row.roleType !== 'admin' || row.deactivatedAt || !row.passwordHash) {
      throw new NotAuthenticated('Invalid login')
    }
    return row
  }
  async authenticate(data: AuthenticationRequest): Promise<any> {
    const { email, password } = data as { email?: unknown; password?: unknown }
    if (typeof email !== 'string' || typeof password !== 'string' || !password) throw new NotAuthenticated('Invalid login')
    const entity = await this.findEntity(email)
    await this.comparePassword(entity, password)
    const principal = await loadPrincipal(this.app!.get('knex' as any) as Knex, entity.companyId, entity.id)
    if (!principal) throw new NotAuthenticated('Invalid login')
    return { authentication: { strategy: this.name }, ...principal }
  }
}

class CrewclockAuthenticationService extends AuthenticationService {
  async getPayload(authResult: AuthenticationResult, params: AuthenticationParams) {
    const payload = await super.getPayload(authResult, params)
    return { ...payload, companyId: authResult.company?.id, apiKeyId: authResult.apiKey?.id }
  }
  async getTokenOptions(authResult: AuthenticationResult, params: AuthenticationParams) {
    const options = await super.getTokenOptions(authResult, params)
    return authResult.user ? { ...options, subject: String(authResult.user.id) } : options
  }
}

export const authentication = (app: Application) => {
  const service = new CrewclockAuthenticationService(app)
  service.register('apiKey', new ApiKeyStrategy())
  service.register('jwt', new ApiKeyJwtStrategy())
  service.register('local', new AdminLocalStrategy())
  app.use('authentication', service)
}
