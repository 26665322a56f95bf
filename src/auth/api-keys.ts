import crypto from 'node:crypto'
import type { Knex } from 'knex'
import { DEFAULT_SCOPES, normalizeScopes, parseStoredScopes } from './scopes'
import { announceChange } from '../db/change-signal'

export const API_KEY_PREFIX = 'ck_'
const API_KEY_PATTERN = /^ck_[A-Za-z0-9_-]{43}$/

export const isApiKeyShape = (value: string) => API_KEY_PATTERN.test(value)

export const hashApiKey = (key: string) => crypto.createHash('sha256').update(key).digest('hex')

const encryptionKey = (secret: string) =>
  crypto.createHash('sha256').update(`crewclock api-key encryption:${secret}`).digest()

/** AES-256-GCM, so an admin can copy the key again on the settings page. */
export function encryptApiKey(key: string, secret: string) {
  const iv = crypto.randomBytes(12)
  const cipher = crypto.createCipheriv('aes-256-gcm', encryptionKey(secret), iv)
  const data = Buffer.concat([cipher.update(key, 'utf8'), cipher.final()])
  return [iv, cipher.getAuthTag(), data].map((b) => b.toString('base64url')).join('.')
}

export function decryptApiKey(stored: string, secret: string) {
  const [iv, tag, data] = stored.split('.').map((part) => Buffer.from(part, 'base64url'))
  const decipher = crypto.createDecipheriv('aes-256-gcm', encryptionKey(secret), iv)
  decipher.setAuthTag(tag)
  return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8')
}

export const maskApiKey = (hint: string) => `${API_KEY_PREFIX}…${hint}`

export interface ApiKeyRecord {
  id: number
  companyId: number
  userId: number
  name: string | null
  keyHint: string
  scopes: string[]
  createdAt: string
  revokedAt: string | null
}

/**
 * Creates a key for an admin user of the company; the plain key is returned once here. `scopes`
 * must have been checked with `scopeErrors` (default: full access).
 */
export async function createApiKey(
  db: Knex,
  secret: string,
  input: { companyId: number; userId: number; name?: string | null; scopes?: readonly string[] }
) {
  const key = API_KEY_PREFIX + crypto.randomBytes(32).toString('base64url')
  const [row] = await db('api_keys').insert(
    {
      companyId: input.companyId,
      userId: input.userId,
      name: input.name ?? null,
      keyHash: hashApiKey(key),
      keyEncrypted: encryptApiKey(key, secret),
      keyHint: key.slice(-4),
      scopes: JSON.stringify(normalizeScopes(input.scopes ?? DEFAULT_SCOPES)),
      createdAt: new Date().toISOString()
    },
    ['id']
  )
  return { id: Number(row.id ?? row), key }
}

export async function listApiKeys(db: Knex, companyId: number) {
  const rows = await db('api_keys').where({ companyId }).orderBy('id')
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    userId: row.userId,
    maskedKey: maskApiKey(row.keyHint),
    scopes: parseStoredScopes(row.scopes),
    createdAt: new Date(row.createdAt).toISOString(),
    revokedAt: row.revokedAt ? new Date(row.revokedAt).toISOString() : null
  }))
}

/** Revokes a key; every instance's key cache hears of it at the commit (src/auth/key-cache.ts). */
export async function revokeApiKey(db: Knex, id: number, companyId?: number) {
  return db.transaction(async (trx) => {
    const query = trx('api_keys').where({ id }).whereNull('revokedAt')
    if (companyId !== undefined) query.andWhere({ companyId })
    const revoked = (await query.update({ revokedAt: new Date().toISOString() })) > 0
    if (revoked) await announceChange(trx)
    return revoked
  })
}
