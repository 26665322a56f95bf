import type { Application } from '../declarations'
import type { Resource } from './define-resource'
import { ResourceService } from './service'
import { buildQuerySchema } from './query'
import { mapDatabaseErrors } from './errors'
import { noContentOnRemove, parsePathId, requireApiKey, requireScope, validateData, validateQuery } from './hooks'
import { collectionOf, OpenApiTools, PathItems } from './openapi'
import { registerSpecRoute } from './describe'
import { RegisteredResource, registryOf } from './registry'

export const API_PREFIX = 'v1'

/**
 * Registers a declared resource as a Feathers service under /v1 with the shared hooks. This is
 * the only place hooks are attached to resources: a new resource is a declaration, not code.
 */
export function registerResource(
  app: Application,
  resource: Resource,
  extra: {
    around?: any[]
    /** Operations beyond the declared methods (or replacing them) in the API description; see openapi.ts. */
    operations?: (tools: OpenApiTools, registered: RegisteredResource) => PathItems
  } = {}
) {
  const path = `${API_PREFIX}/${resource.path}`
  const querySchema = buildQuerySchema(resource)
  const service = new ResourceService(resource, app.get('knex' as any), app.get('dbClient'))
  const collection = collectionOf(path)
  app.use(path, service, { methods: resource.methods, events: [] })
  app.service(path).hooks({
    around: { all: [mapDatabaseErrors, requireApiKey, requireScope(collection), ...(extra.around ?? [])] },
    before: { all: [parsePathId(resource), validateQuery(resource, querySchema), validateData(resource)] },
    after: { remove: [noContentOnRemove] }
  })
  const registered: RegisteredResource = { resource, path, querySchema }
  const registry = registryOf(app)
  registry.resources.push(registered)
  const { operations } = extra
  if (operations) registry.contributions.push({ collection, paths: (tools) => operations(tools, registered) })
  registerSpecRoute(app, collection)
  return registered
}
