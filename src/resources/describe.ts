import type { Application, HookContext } from '../declarations'
import { buildDescription, Json } from './openapi'
import { registryOf } from './registry'
import { requireApiKey } from './hooks'
import { mapDatabaseErrors } from './errors'
import { badRequest } from './validation'

/**
 * Serves the generator (openapi.ts) from the registry: the documents of the whole API and of
 * one collection, and the authenticated `GET /v1/<collection>/spec` routes.
 */

// Documents only change when services are registered, which happens before the first request.
const documents = new WeakMap<Application, Map<string, Json>>()

/** The document of one collection (or of the whole API) with the display names of `country`. */
export function describeApp(app: Application, options: { collection?: string; country?: string } = {}): Json {
  const { resources, contributions } = registryOf(app)
  const serverUrl = app.get('publicUrl') || '/'
  const key = [options.collection, options.country, serverUrl, resources.length, contributions.length].join('|')
  const cache = documents.get(app) ?? new Map<string, Json>()
  documents.set(app, cache)
  let document = cache.get(key)
  if (!document) {
    document = buildDescription({ resources, contributions, serverUrl, ...options })
    cache.set(key, document)
  }
  return document
}

class SpecService {
  app?: Application
  constructor(readonly collection: string) {}

  async setup(app: Application) {
    this.app = app
  }

  async find(params: { company?: { country: string } } = {}) {
    return describeApp(this.app!, { collection: this.collection, country: params.company?.country })
  }
}

const rejectQuery = async (context: HookContext) => {
  const keys = Object.keys(context.params.query ?? {})
  if (keys.length > 0)
    throw badRequest('Invalid query', Object.fromEntries(keys.map((k) => [k, 'is not a parameter of spec'])))
}

/** `GET /v1/<collection>/spec`, once per collection; the router prefers this static segment over the item id placeholder. */
export function registerSpecRoute(app: Application, collection: string) {
  const { specRoutes } = registryOf(app)
  if (specRoutes.has(collection)) return
  specRoutes.add(collection)
  const path = `v1/${collection}/spec`
  app.use(path, new SpecService(collection), { methods: ['find'], events: [] })
  app.service(path).hooks({ around: { all: [mapDatabaseErrors, requireApiKey] }, before: { find: [rejectQuery] } })
}
