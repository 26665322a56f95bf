import { AuthenticationBaseStrategy, AuthenticationService, JWTStrategy } from '@feathersjs/authentication'
import type { AuthenticationRequest, AuthenticationResult, AuthenticationParams } from '@feathersjs/authentication'
import { LocalStrategy } from '@feathersjs/authentication-local'
import bcrypt from 'bcryptjs'
import { NotAuthenticated } from '@feathersjs/errors'
import crypto from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { RealTimeConnection } from '@feathersjs/feathers'
import type { Knex } from 'knex'
import type { Application, ActingUser, CompanyContext } from '../declarations'
import { API_KEY_PREFIX, hashApiKey, isApiKeyShape } from './api-keys'
import { parseStoredScopes } from './scopes'
import type { KeyCache } from './key-cache'
import { PASSWORD_HASH_ROUNDS } from './passwords'
import { SHORT_READ } from '../db/knex'
import { StatementShapes } from '../db/statement-shapes'

export interface Principal {
  company: CompanyContext
  user: ActingUser
}

/**
 * The company and acting user of a request, read in one statement with the user's role: every
 * authenticated request runs it, so it is one round trip, not one per table.
 */
const PRINCIPAL_COLUMNS = [
  'companies.id as companyId',
  'companies.name as companyName',
  'companies.country',
  'companies.timezone',
  'users.id as userId',
  'users.fullName',
  'users.email',
  'roles.type as roleType'
]

/** Users that may act, with their company and role (a deactivated user authenticates nothing). */
const activeUsers = (from: Knex.QueryBuilder) =>
  from
    .join('companies', 'companies.id', 'users.companyId')
    .join('roles', 'roles.id', 'users.roleId')
    .whereNull('users.deactivatedAt')

/** A row of PRINCIPAL_COLUMNS. */
interface PrincipalRow {
  companyId: number
  companyName: string
  country: string
  timezone: string
  userId: number
  fullName: string
  email: string
  roleType: string
}

const toPrincipal = (row: PrincipalRow): Principal => ({
  company: { id: row.companyId, name: row.companyName, country: row.country, timezone: row.timezone },
  user: { id: row.userId, fullName: row.fullName, email: row.email, roleType: row.roleType }
})

export async function loadPrincipal(db: Knex, companyId: number, userId: number): Promise<Principal | null> {
  const row = await activeUsers(db('users'))
    .where({ 'users.id': userId, 'users.companyId': companyId })
    .first(PRINCIPAL_COLUMNS)
    .options(SHORT_READ)
  return row ? toPrincipal(row) : null
}

/** The key of a request: its id (usage, rate limits, sockets) and what it may touch (CONTRACT §10.1). */
export interface KeyPrincipal extends Principal {
  apiKey: { id: number; scopes: string[] }
}

/** `loadKeyPrincipal`'s statement, compiled once per shape (by the key's hash, or by its id). */
const KEY_READ = new StatementShapes((db, [by]: readonly ['hash' | 'id'], [key]: readonly [string | number]) => {
  const from = db('apiKeys').join('users', (on) =>
    on.on('users.id', 'apiKeys.userId').andOn('users.companyId', 'apiKeys.companyId')
  )
  return (
    activeUsers(from)
      .where(by === 'hash' ? 'apiKeys.keyHash' : 'apiKeys.id', key)
      .whereNull('apiKeys.revokedAt')
      .first([...PRINCIPAL_COLUMNS, 'apiKeys.id as apiKeyId', 'apiKeys.keyHash', 'apiKeys.scopes as apiKeyScopes'])
      // Every request whose key is not in the cache reads it first, writes included.
      .options(SHORT_READ)
  )
})

/**
 * An unrevoked key (by its SHA-256, or by id for socket tokens) with its company, acting user and
 * scopes. Scopes are read on every call, never taken from a token, so an unreadable column grants nothing.
 */
async function loadKeyPrincipal(db: Knex, key: { keyHash: string } | { id: number }): Promise<KeyPrincipal | null> {
  const row = await KEY_READ.statement(
    db,
    ['keyHash' in key ? 'hash' : 'id'],
    ['keyHash' in key ? key.keyHash : key.id]
  )
  if (!row) return null
  // The indexed lookup narrows to one row; the final comparison of the digests is constant-time.
  if ('keyHash' in key && !crypto.timingSafeEqual(Buffer.from(row.keyHash, 'hex'), Buffer.from(key.keyHash, 'hex')))
    return null
  return { ...toPrincipal(row), apiKey: { id: row.apiKeyId, scopes: parseStoredScopes(row.apiKeyScopes) } }
}

/**
 * Of `ids`, the keys that still authenticate: unrevoked, of an active user. The sockets of the
 * others are disconnected (src/channels.ts); asked in batches, so that the statement stays small.
 */
export async function validApiKeyIds(db: Knex, ids: number[]): Promise<number[]> {
  const valid: number[] = []
  for (let i = 0; i < ids.length; i += 500) {
    const from = db('apiKeys').join('users', (on) =>
      on.on('users.id', 'apiKeys.userId').andOn('users.companyId', 'apiKeys.companyId')
    )
    const rows = await activeUsers(from)
      .whereIn('apiKeys.id', ids.slice(i, i + 500))
      .whereNull('apiKeys.revokedAt')
      .select('apiKeys.id')
      .options(SHORT_READ)
    valid.push(...rows.map((row: { id: number }) => Number(row.id)))
  }
  return valid
}

/**
 * The key a socket logged in with, on the authentication result only (a symbol: never serialised
 * into an answer, an event or a log). The JWT strategy makes it the connection's credentials.
 */
const PRESENTED_KEY = Symbol('crewclock.presentedApiKey')

/** The one answer to every bearer value that does not open /v1: unknown, revoked, or not a key at all. */
export const INVALID_API_KEY = 'Invalid or revoked API key'

/**
 * What a presented key authenticates as: the result of the `apiKey` strategy, else
 * NotAuthenticated. REST calls to /v1 come here directly (src/resources/hooks.ts).
 */
export async function authenticateApiKey(app: Application, apiKey: unknown): Promise<AuthenticationResult> {
  const db = app.get('knex')
  const cache = app.get('apiKeyCache') as KeyCache<KeyPrincipal>
  const found =
    typeof apiKey === 'string' && isApiKeyShape(apiKey)
      ? await cache.get(hashApiKey(apiKey), (keyHash) => loadKeyPrincipal(db, { keyHash }))
      : null
  if (!found) throw new NotAuthenticated(INVALID_API_KEY)
  return {
    authentication: { strategy: API_KEY_STRATEGY, apiKeyId: found.apiKey.id },
    ...found,
    [PRESENTED_KEY]: apiKey
  }
}

/** The name the key strategy is registered under: what `params.authentication.strategy` says. */
export const API_KEY_STRATEGY = 'apiKey'

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
    return authenticateApiKey(this.app as Application, authentication.apiKey)
  }
}

/**
 * Tokens: the settings page's (an admin's login) and the JWT minted for a key login (it carries the
 * key id; a Feathers client re-authenticates a new socket with it). Every call re-checks that the
 * key is still valid, so a revoked key stops working on open sockets as well.
 *
 * A socket that logged in with the key itself keeps the key as its credentials (CONTRACT §12,
 * Lifetime): Feathers would make the minted JWT the connection's credentials and disconnect the
 * socket when it expires, although the key is still good. Its calls then authenticate with the
 * key as REST calls do, and the socket lives as long as the key authenticates; when it stops,
 * src/channels.ts disconnects it. A socket that logged in with a token keeps Feathers' behaviour:
 * it ends with the token.
 */
export class ApiKeyJwtStrategy extends JWTStrategy {
  async handleConnection(
    event: Parameters<JWTStrategy['handleConnection']>[0],
    connection: RealTimeConnection,
    authResult?: AuthenticationResult
  ) {
    const presented = (authResult as { [PRESENTED_KEY]?: string } | undefined)?.[PRESENTED_KEY]
    if (event !== 'login' || !presented) return super.handleConnection(event, connection, authResult)
    // Ends what an earlier token login on this socket set up, its expiry timer included.
    await super.handleConnection('disconnect', connection)
    connection.authentication = { strategy: 'apiKey', apiKey: presented }
  }

  async authenticate(authentication: AuthenticationRequest, params: AuthenticationParams) {
    const result = await super.authenticate(authentication, params).catch((error) => {
      // jsonwebtoken's errors ("jwt malformed", its error class and stack in `data`) are
      // internals: a token that cannot be verified is simply not valid.
      throw error instanceof NotAuthenticated ? new NotAuthenticated('Invalid token') : error
    })
    const payload = result.authentication.payload as {
      apiKeyId?: number
      companyId?: number
      sub?: string
      sessionVersion?: number
    }
    const db = this.app!.get('knex')
    if (payload.apiKeyId === undefined) {
      // Settings-page tokens (admin login) carry no key: they are for the settings endpoints only.
      // A token minted before a logout, password change or deactivation carries an older
      // session version than the user row, and is refused (CONTRACT §10.1).
      const principal =
        payload.companyId && payload.sub ? await loadPrincipal(db, payload.companyId, Number(payload.sub)) : null
      if (!principal || principal.user.roleType !== 'admin') throw new NotAuthenticated('Invalid token')
      const session = await db('users').where({ id: principal.user.id }).first('sessionVersion')
      if (typeof payload.sessionVersion !== 'number' || session?.sessionVersion !== payload.sessionVersion)
        throw new NotAuthenticated('The session has ended; sign in again')
      return { ...result, ...principal, settingsLogin: true }
    }
    const found = await loadKeyPrincipal(db, { id: payload.apiKeyId })
    if (!found) throw new NotAuthenticated(INVALID_API_KEY)
    return { ...result, ...found }
  }
}

/** A bcrypt hash of the cost real hashes have, compared when there is no usable user. */
let dummyHash: Promise<string> | undefined
const dummyPasswordHash = () =>
  (dummyHash ??= bcrypt.hash(crypto.randomBytes(16).toString('base64url'), PASSWORD_HASH_ROUNDS))

/**
 * Email + password for admins on the settings page (CONTRACT §2). Every attempt runs exactly
 * one bcrypt comparison and fails with the same message, so neither the answer nor its time
 * tells whether the email exists, belongs to an admin, or the admin is deactivated (§10.1).
 */
export class AdminLocalStrategy extends LocalStrategy {
  setApplication(app: Parameters<LocalStrategy['setApplication']>[0]) {
    super.setApplication(app)
    // Hashed ahead, so that the first failed login costs what later ones cost.
    void dummyPasswordHash()
  }

  /** The one comparison of a login (a method, so that a test can count the calls). */
  async verifyPassword(password: string, hash: string) {
    return bcrypt.compare(password, hash)
  }

  async findEntity(username: string) {
    const db = this.app!.get('knex')
    const row = await db('users')
      .join('roles', 'roles.id', 'users.roleId')
      .select('users.*', 'roles.type as roleType')
      .where({ 'users.emailNormalized': username.trim().toLowerCase() })
      .first()
    return row && row.roleType === 'admin' && !row.deactivatedAt && row.passwordHash ? row : null
  }

  async authenticate(data: AuthenticationRequest) {
    const { email, password } = data as { email?: unknown; password?: unknown }
    if (typeof email !== 'string' || typeof password !== 'string' || !password)
      throw new NotAuthenticated('Invalid login')
    const entity = await this.findEntity(email)
    const matches = await this.verifyPassword(password, entity ? entity.passwordHash : await dummyPasswordHash())
    if (!entity || !matches) throw new NotAuthenticated('Invalid login')
    const principal = await loadPrincipal(this.app!.get('knex'), entity.companyId, entity.id)
    if (!principal) throw new NotAuthenticated('Invalid login')
    return { authentication: { strategy: this.name! }, ...principal, sessionVersion: entity.sessionVersion }
  }
}

declare module '../declarations' {
  interface ServiceTypes {
    authentication: AuthenticationService
  }
}

class CrewclockAuthenticationService extends AuthenticationService {
  async getPayload(authResult: AuthenticationResult, params: AuthenticationParams) {
    const payload = await super.getPayload(authResult, params)
    // Settings logins carry the user's session version; key tokens carry the key id instead.
    return {
      ...payload,
      companyId: authResult.company?.id,
      apiKeyId: authResult.apiKey?.id,
      sessionVersion: authResult.sessionVersion
    }
  }
  async getTokenOptions(authResult: AuthenticationResult, params: AuthenticationParams) {
    const options = await super.getTokenOptions(authResult, params)
    return authResult.user ? { ...options, subject: String(authResult.user.id) } : options
  }
}

export const authentication = (app: Application) => {
  const service = new CrewclockAuthenticationService(app)
  service.register(API_KEY_STRATEGY, new ApiKeyStrategy())
  service.register('jwt', new ApiKeyJwtStrategy())
  service.register('local', new AdminLocalStrategy())
  app.use('authentication', service)
  // Feathers finds the default authentication service by asking every service for its
  // configKey, on every REST request: it is this one.
  const registered = app.service('authentication')
  app.defaultAuthentication = (location?: string) => (location ? app.service(location) : registered)
}
