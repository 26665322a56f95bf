import type { Application, HookContext } from '../../declarations'
import { buildDescription, Json, OpenApiContribution } from '../../resources/openapi'
import type { RegisteredResource } from '../../resources/register'
import { requireApiKey } from '../../resources/hooks'
import { mapDatabaseErrors } from '../../resources/errors'
import { badRequest } from '../../resources/validation'

/**
 * Wires the generator (src/resources/openapi.ts) to the app: the contributions of services that
 * are not plain declarations, the authenticated `GET /v1/<collection>/spec` routes and the
 * documents they serve.
 */

const CONTRIBUTIONS = 'openapiContributions'
const SPEC_ROUTES = 'openapiSpecRoutes'

const setting = <T>(app: Application, key: string, fallback: T): T => (app.get(key as any) as T | undefined) ?? fallback

/** Adds operations to the description of `contribution.collection` (and gives it a /spec route). */
export function describeOperations(app: Application, contribution: OpenApiContribution) {
  app.set(CONTRIBUTIONS as any, [...setting<OpenApiContribution[]>(app, CONTRIBUTIONS, []), contribution])
  registerSpecRoute(app, contribution.collection)
}

// Documents only change when services are registered, which happens before the first request.
const documents = new WeakMap<Application, Map<string, Json>>()

/** The document of one collection (or of the whole API) with the display names of `country`. */
export function describeApp(app: Application, options: { collection?: string; country?: string } = {}): Json {
  const resources = setting<RegisteredResource[]>(app, 'resources', [])
  const contributions = setting<OpenApiContribution[]>(app, CONTRIBUTIONS, [])
  const serverUrl = (app.get('publicUrl') as string | undefined) || '/'
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
  if (keys.length > 0) throw badRequest('Invalid query', Object.fromEntries(keys.map((k) => [k, 'is not a parameter of spec'])))
}

/** `GET /v1/<collection>/spec`; the router prefers this static segment over the item id placeholder. */
export function registerSpecRoute(app: Application, collection: string) {
  const routes = setting<string[]>(app, SPEC_ROUTES, [])
  if (routes.includes(collection)) return
  app.set(SPEC_ROUTES as any, [...routes, collection])
  const path = `v1/${collection}/spec`
  app.use(path, new SpecService(collection), { methods: ['find'], events: [] })
  app.service(path).hooks({ around: { all: [mapDatabaseErrors, requireApiKey] }, before: { find: [rejectQuery] } })
}
