/**
 * Scoped API keys (CONTRACT §10.1): a key holds a list of `<collection>:read` / `<collection>:write`
 * entries, `*` standing for every collection. Write implies read.
 */
export type Access = 'read' | 'write'

export const DEFAULT_SCOPES: readonly string[] = ['*:write']

const SCOPE_PATTERN = /^(\*|[a-z][a-z0-9-]*):(read|write)$/

/**
 * Whether the scopes let a key `access` the collection. Only well-formed entries grant anything:
 * a stored list that was tampered with ("*:admin", "customers", "*:write:x") must not read as access.
 */
export function allows(scopes: readonly string[], collection: string, access: Access) {
  return scopes.some((scope) => {
    const match = typeof scope === 'string' ? SCOPE_PATTERN.exec(scope) : null
    return !!match && (match[1] === '*' || match[1] === collection) && (match[2] === 'write' || access === 'read')
  })
}

/**
 * The collections among `collections` the scopes can read, or null when they can read every
 * collection (`*:read`, `*:write`): the change feed shows a key only the events it could read.
 */
export function readableCollections(scopes: readonly string[], collections: readonly string[]): string[] | null {
  if (scopes.some((scope) => scope === '*:read' || scope === '*:write')) return null
  return collections.filter((collection) => allows(scopes, collection, 'read'))
}

/**
 * Problems of a requested scope list, by index (`scopes.0`), for a 400 or a CLI error: malformed
 * entries and collections that do not exist. An empty list is refused: a key that can do nothing
 * is a mistake.
 */
export function scopeErrors(scopes: unknown, collections: readonly string[]): Record<string, string> {
  if (!Array.isArray(scopes) || scopes.length === 0)
    return { scopes: 'must be a non-empty list of scopes such as "*:read" or "time-entries:write"' }
  const errors: Record<string, string> = {}
  scopes.forEach((scope, index) => {
    const match = typeof scope === 'string' ? SCOPE_PATTERN.exec(scope) : null
    if (!match)
      errors[`scopes.${index}`] = 'must be "<collection>:read" or "<collection>:write" ("*" for every collection)'
    else if (match[1] !== '*' && !collections.includes(match[1]))
      errors[`scopes.${index}`] = `"${match[1]}" is not a collection (one of: ${collections.join(', ')})`
  })
  return errors
}

/** Sorted and without repeats, as stored and shown. */
export const normalizeScopes = (scopes: readonly string[]) => [...new Set(scopes)].sort()

/** Stored scopes (a JSON array in `api_keys.scopes`) back to a list; anything unreadable grants nothing. */
export function parseStoredScopes(stored: unknown): string[] {
  if (Array.isArray(stored)) return stored.filter((s): s is string => typeof s === 'string')
  if (typeof stored !== 'string') return []
  try {
    const value = JSON.parse(stored)
    return Array.isArray(value) ? value.filter((s): s is string => typeof s === 'string') : []
  } catch {
    return []
  }
}

/** The collections a scope can name: every /v1 collection but uploads, which count as their parent's. */
export const scopeCollections = (resources: readonly { path: string }[]) =>
  [...new Set(resources.map((r) => r.path.split('/')[1]).filter((c) => c !== 'uploads'))].sort()
