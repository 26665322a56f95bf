import type { HookContext, NextFunction } from '@feathersjs/feathers'

/** Every REST request carries the API key. */
export const bearerKey = (apiKey: string) => async (context: HookContext, next: NextFunction) => {
  context.params = { ...context.params, headers: { Authorization: `Bearer ${apiKey}`, ...context.params.headers } }
  await next()
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date)

/**
 * `null` in a filter, spelled the way the REST API reads it (`endsAt=null`, CONTRACT §3.1): the
 * query-string encoder would send `endsAt=` instead, an empty value the API refuses (400).
 */
export function spellNulls(query: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(query).map(([name, value]) => {
      if (value === null) return [name, 'null']
      if (name === '$sort' || !isPlainObject(value)) return [name, value]
      return [name, Object.fromEntries(Object.entries(value).map(([op, v]) => [op, v === null ? 'null' : v]))]
    })
  )
}

export const nullFilters = async (context: HookContext, next: NextFunction) => {
  const query = context.params.query
  if (isPlainObject(query)) context.params = { ...context.params, query: spellNulls(query) }
  await next()
}
