import { NotFound } from '@feathersjs/errors'
import { conflict } from '../errors'
import { Type } from '@feathersjs/typebox'
import type { Knex } from 'knex'
import type { Application, Params } from '../declarations'
import { createApiKey, decryptApiKey, listApiKeys, revokeApiKey } from '../auth/api-keys'
import { announceRevokedKeys } from '../sync/topics'
import { Nullable, Str } from '../resources/types'
import { badRequest } from '../resources/validation'
import { registryOf } from '../resources/registry'
import { DEFAULT_SCOPES, scopeErrors, scopeCollections } from '../auth/scopes'
import { validateBodyWith } from './settings.hooks'

export const apiKeyDataSchema = Type.Object(
  {
    name: Type.Optional(Nullable(Str(255, { minLength: 1 }))),
    // The entries are checked against the registered collections by `scopeErrors`, with messages per index.
    scopes: Type.Optional(
      Type.Array(Type.Unknown(), { maxItems: 100, description: 'Default ["*:write"] (full access).' })
    )
  },
  { $id: 'SettingsApiKeyData', additionalProperties: false }
)

export type ApiKeyListItem = Awaited<ReturnType<typeof listApiKeys>>[number]
/** `key` is the plain key, for copying; null once the key is revoked. */
export type ApiKeyWithSecret = ApiKeyListItem & { key: string | null }

/**
 * `settings/api-keys`: the company's keys, masked in the list; `get` hands out the plain key
 * (the settings page's copy button), `remove` revokes (the row stays, for the usage history).
 */
export class ApiKeysService {
  constructor(private readonly app: Application) {}

  private get db(): Knex {
    return this.app.get('knex')
  }

  async find(params: Params): Promise<ApiKeyListItem[]> {
    return listApiKeys(this.db, params.company!.id)
  }

  async get(id: number, params: Params): Promise<ApiKeyWithSecret> {
    const row = await this.db('api_keys').where({ id, companyId: params.company!.id }).first()
    if (!row) throw new NotFound(`No API key with id ${id}`)
    const [listed] = (await listApiKeys(this.db, params.company!.id)).filter((key) => key.id === row.id)
    return { ...listed, key: row.revokedAt ? null : decryptApiKey(row.keyEncrypted, this.app.get('appSecret')) }
  }

  /** The key acts as the admin who created it (CONTRACT §2), within its scopes (§10.1). */
  async create(data: unknown, params: Params): Promise<ApiKeyWithSecret> {
    const { name, scopes = DEFAULT_SCOPES } = validateBodyWith(apiKeyDataSchema, 'ApiKey', data)
    const resources = registryOf(this.app).resources
    const errors = scopeErrors(scopes, scopeCollections(resources))
    if (Object.keys(errors).length) throw badRequest('Invalid ApiKey body', errors)
    const created = await createApiKey(this.db, this.app.get('appSecret'), {
      companyId: params.company!.id,
      userId: params.user!.id,
      name: name ?? null,
      // scopeErrors refused every entry that is not a scope string.
      scopes: scopes as string[]
    })
    return this.get(created.id, params)
  }

  async remove(id: number, params: Params): Promise<ApiKeyWithSecret> {
    const existing = await this.get(id, params)
    const revoked = () => conflict('The API key is already revoked', { reason: 'already-revoked', ids: [id] })
    if (existing.revokedAt) throw revoked()
    if (!(await revokeApiKey(this.db, id, params.company!.id))) throw revoked()
    // Every instance disconnects the key's sockets (src/channels.ts).
    announceRevokedKeys(this.app.get('bus'), [id])
    return this.get(id, params)
  }
}
