import { Forbidden } from '@feathersjs/errors'
import type { Application, Params } from '../../declarations'
import type { ValidationErrors } from '../../resources/define-resource'
import { mapDatabaseErrors } from '../../resources/errors'
import { requireApiKey } from '../../resources/hooks'
import { registryOf } from '../../resources/registry'
import { registerSpecRoute } from '../../resources/describe'
import { CHANGES_METHODS, CHANGES_PATH } from '../declared'
import { badRequest } from '../../resources/validation'
import { readableCollections, scopeCollections } from '../../auth/scopes'
import { readFeed } from '../../events/feed'
import { eventRetention } from '../../events/retention'
import { COMPANY_RECOMPUTED } from '../../timesheets/events'
import { changesOperations } from './changes.openapi'
import { TYPE_PATTERN as SUBSCRIPTION_TYPE_PATTERN, typeMatches } from '../../webhooks/event-types'
import {
  canManageWebhooks,
  COLLECTION as WEBHOOKS_COLLECTION
} from '../webhook-subscriptions/webhook-subscriptions.rules'

/**
 * `GET /v1/changes` (CONTRACT §13.2): the company's event log after a cursor, for integrators
 * that sync (deletions included) without listing every collection. Any read scope opens it; a
 * key sees only the events of collections it can read.
 */
export const CHANGES_COLLECTION = 'changes'
export const MAX_FEED_SIZE = 500
export const DEFAULT_FEED_SIZE = 100
const ACTIONS = ['created', 'patched', 'removed']
/** `company.recomputed` tells of time-sheet rows: a key that reads one of these sees it. */
const SHEET_COLLECTIONS = ['time-sheet-days', 'time-sheet-weeks', 'time-sheet-months']
const PARAMETERS = ['after', 'size', 'types']
/**
 * The shape of a `types` pattern: the subscriptions' (CONTRACT §13.6, "the same `*` wildcards"), a
 * `*` for a whole part or for everything. Matched part by part (`typeMatches`), never as a regular
 * expression: a pattern of adjacent wildcards, compiled to one, backtracked for minutes and held
 * the event loop (found by a review).
 */
const TYPE_PATTERN = new RegExp(SUBSCRIPTION_TYPE_PATTERN)
/** At most this many patterns in one `types`: each is compared with every event type. */
export const MAX_TYPE_PATTERNS = 100

/** Every event type the log can hold: each mounted collection's record events, and the company's. */
export function eventTypes(app: Application): string[] {
  const collections = new Set(registryOf(app).resources.map(({ resource }) => resource.path))
  return [
    ...[...collections].flatMap((collection) => ACTIONS.map((action) => `${collection}.${action}`)),
    COMPANY_RECOMPUTED
  ]
}

interface ParsedQuery {
  after?: number
  size: number
  patterns: string[] | null
}

function parseQuery(raw: Params['query']): ParsedQuery {
  const query = (raw ?? {}) as Record<string, unknown>
  const errors: ValidationErrors = {}
  for (const key of Object.keys(query))
    if (!PARAMETERS.includes(key)) errors[key] = `is not a parameter of changes (parameters: ${PARAMETERS.join(', ')})`
  const single = (name: string) => {
    const value = query[name]
    if (value === undefined) return undefined
    // A socket call may send numbers; REST sends text, and a repeated parameter as a list.
    if (typeof value === 'number') return String(value)
    if (typeof value !== 'string') {
      errors[name] = 'must be given once'
      return undefined
    }
    return value
  }
  const after = single('after')
  if (after !== undefined && !(/^(0|[1-9]\d{0,14})$/.test(after) && Number.isSafeInteger(Number(after))))
    errors.after = 'must be an event id (a decimal integer string such as "0" or "1234")'
  const size = single('size')
  if (size !== undefined && !(/^\d{1,3}$/.test(size) && Number(size) >= 1 && Number(size) <= MAX_FEED_SIZE))
    errors.size = `must be an integer from 1 to ${MAX_FEED_SIZE}`
  const rawTypes = query.types
  let patterns: string[] | null = null
  if (rawTypes !== undefined) {
    const list = (Array.isArray(rawTypes) ? rawTypes : [rawTypes]).flatMap((value) =>
      typeof value === 'string' ? value.split(',') : [String(value)]
    )
    const trimmed = list.map((type) => type.trim())
    const bad = trimmed.find((type) => !TYPE_PATTERN.test(type))
    if (trimmed.length > MAX_TYPE_PATTERNS) errors.types = `must name at most ${MAX_TYPE_PATTERNS} types`
    else if (trimmed.length === 0 || bad !== undefined)
      errors.types = `must be a comma-separated list of event types such as time-entries.created, time-entries.* or *.removed (not "${(bad ?? '').slice(0, 100)}")`
    else patterns = trimmed
  }
  if (Object.keys(errors).length > 0) throw badRequest('Invalid query', errors)
  return {
    ...(after !== undefined ? { after: Number(after) } : {}),
    size: size === undefined ? DEFAULT_FEED_SIZE : Number(size),
    patterns
  }
}

/** The exact types the patterns name; 400 for a pattern that names none. */
function typesOf(patterns: string[], known: string[]): string[] {
  const chosen = new Set<string>()
  for (const pattern of patterns) {
    const matches = known.filter((type) => typeMatches([pattern], type))
    if (matches.length === 0)
      throw badRequest('Invalid query', {
        types: `"${pattern}" matches no event type (types are <collection>.<created|patched|removed> and ${COMPANY_RECOMPUTED})`
      })
    for (const type of matches) chosen.add(type)
  }
  return [...chosen]
}

/**
 * The values of the log's `scope` column whose events a key sees (null: all), in the feed and on
 * sockets: the collections it can read, and `company` (`company.recomputed`) with a time-sheet one.
 * Webhook subscriptions are read with `webhook-subscriptions:write` only, their events too (a URL
 * may carry the receiver's credentials), so a read-everything key gets the list without them.
 */
export function visibleLogScopes(app: Application, keyScopes: readonly string[]): string[] | null {
  const collections = scopeCollections(registryOf(app).resources.map((registered) => ({ path: registered.path })))
  const readable = readableCollections(keyScopes, collections)
  const webhooks = canManageWebhooks(keyScopes)
  if (readable === null && webhooks) return null
  const visible = (readable ?? collections).filter((collection) => collection !== WEBHOOKS_COLLECTION || webhooks)
  return [...visible, ...(visible.some((collection) => SHEET_COLLECTIONS.includes(collection)) ? ['company'] : [])]
}

export class ChangesService {
  app?: Application

  async setup(app: Application) {
    this.app = app
  }

  async find(params: Params = {}) {
    const app = this.app!
    const parsed = parseQuery(params.query)
    const types = parsed.patterns && typesOf(parsed.patterns, eventTypes(app))
    // Internal calls (no provider) are the server's own and read everything.
    const scopes = params.provider ? visibleLogScopes(app, params.apiKey?.scopes ?? []) : null
    if (scopes && scopes.length === 0)
      throw new Forbidden('This API key lacks a read scope (any <collection>:read)', { scope: '*:read' })
    return readFeed(app.get('knex'), params.company!.id, { after: parsed.after, size: parsed.size, types, scopes })
  }
}

/** Mounts `/v1/changes`, its description and `/v1/changes/spec`, and the log's retention timer. */
export const changes = (app: Application) => {
  const path = CHANGES_PATH
  app.use(path, new ChangesService(), { methods: [...CHANGES_METHODS], events: [] })
  app.service(path).hooks({ around: { all: [mapDatabaseErrors, requireApiKey] } })
  registryOf(app).contributions.push({ collection: CHANGES_COLLECTION, paths: changesOperations })
  registerSpecRoute(app, CHANGES_COLLECTION)
  app.configure(eventRetention)
}
