/**
 * Event type patterns of webhook subscriptions (CONTRACT §13.3): an event type is
 * `<collection>.<action>` (`time-entries.created`, `company.recomputed`); a pattern names both
 * parts or puts `*` for either (`time-entries.*`, `*.removed`), and `*` alone matches every type,
 * as an empty list does.
 */
export const TYPE_PATTERN = '^(\\*|(\\*|[a-z][a-z0-9-]*)\\.(\\*|[a-z][a-z0-9-]*))$'

/** The actions of record events, and the one company-wide event. */
export const EVENT_ACTIONS = ['created', 'patched', 'removed', 'recomputed'] as const

/** The collection of events about the company as a whole (`company.recomputed`). */
export const COMPANY_EVENTS = 'company'

const partMatches = (pattern: string, part: string) => pattern === '*' || pattern === part

/** Whether `type` is one the patterns ask for (no patterns: every type). */
export function typeMatches(patterns: readonly string[], type: string): boolean {
  if (patterns.length === 0) return true
  const dot = type.indexOf('.')
  const [collection, action] = [type.slice(0, dot), type.slice(dot + 1)]
  return patterns.some((pattern) => {
    if (pattern === '*') return true
    const [wantedCollection, wantedAction] = pattern.split('.')
    return partMatches(wantedCollection, collection) && partMatches(wantedAction, action)
  })
}

/**
 * Patterns that can never match, by index (`types.0`): a collection the API does not have or an
 * action no event has. A typo would otherwise make a subscription that silently receives nothing.
 * The shape itself is the schema's (`TYPE_PATTERN`).
 */
export function typePatternErrors(patterns: readonly string[], collections: readonly string[]): Record<string, string> {
  const known = new Set([...collections, COMPANY_EVENTS])
  const errors: Record<string, string> = {}
  patterns.forEach((pattern, index) => {
    if (pattern === '*') return
    const [collection, action] = pattern.split('.')
    if (collection !== '*' && !known.has(collection))
      errors[`types.${index}`] =
        `"${collection}" is not a collection with events (one of: ${[...known].sort().join(', ')})`
    else if (action !== '*' && !(EVENT_ACTIONS as readonly string[]).includes(action))
      errors[`types.${index}`] = `"${action}" is not an event action (one of: ${EVENT_ACTIONS.join(', ')})`
  })
  return errors
}
