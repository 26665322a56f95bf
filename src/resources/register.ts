import type { Middleware } from '@feathersjs/koa'
import type { Application, HookContext, NextFunction } from '../declarations'
import type { Access } from '../auth/scopes'
import type { Resource } from './define-resource'
import { ResourceService } from './service'
import { buildQuerySchema } from './query'
import { mapDatabaseErrors } from './errors'
import { noContentOnRemove, parsePathId, requireApiKey, requireScope, validateData, validateQuery } from './hooks'
import { collectionOf, OpenApiTools, PathItems } from './openapi'
import { registerSpecRoute } from './describe'
import { RegisteredResource, registryOf } from './registry'

export const API_PREFIX = 'v1'

type AroundHook = (context: HookContext, next: NextFunction) => Promise<void>
type BeforeHook = (context: HookContext) => Promise<void>

/** A route next to a collection, `/v1/<path>/<name>` (a look-up), behind the collection's key and scope checks. */
export interface ResourceRoute {
  name: string
  service: object
  methods: string[]
  /** The scope access every call needs, whatever its method (a look-up that creates rows is a read, CONTRACT §10.1). */
  access: Access
}

/** What a service adds to the shared wiring; each option says where it sits in the hook chain. */
export interface RegisterOptions {
  /** The path under /v1 when it is not the declaration's; `:name` placeholders arrive as route params. */
  path?: string
  /** The service when it differs from a plain ResourceService of the declaration (`<name>.class.ts`). */
  service?: ResourceService
  /** Koa middleware that runs before the service on REST (a multipart body). */
  koa?: { before: Middleware[] }
  /** Around hooks outside the shared ones: they see every failure of the call, the key check's too. */
  outer?: AroundHook[]
  /** Around hooks inside the shared ones, after the scope check. */
  around?: AroundHook[]
  /** The scope access every method needs, when reads need more than `read` (webhook subscriptions). */
  access?: Access
  /** Before hooks between the path id and the query check (the parent a nested path names). */
  resolve?: BeforeHook[]
  /** The body check when the declared one is not all (a multipart create). */
  validateData?: BeforeHook
  /** The declaration as the registry and the API description know it (default: `resource`). */
  described?: Resource
  /** Operations beyond the declared methods (or replacing them) in the API description; see openapi.ts. */
  operations?: (tools: OpenApiTools, registered: RegisteredResource) => PathItems
  /** Routes next to the collection, mounted after it. */
  routes?: ResourceRoute[]
}

/**
 * Registers a declared resource as a Feathers service under /v1 with the shared hooks, records it
 * in the app's registry and gives its collection a /spec route. This is the only place hooks are
 * attached to resources: a new resource is a declaration, not code.
 */
export function registerResource(app: Application, resource: Resource, options: RegisterOptions = {}) {
  const path = `${API_PREFIX}/${options.path ?? resource.path}`
  const querySchema = buildQuerySchema(resource)
  const service = options.service ?? new ResourceService(resource, app.get('knex'), app.get('dialect'))
  const collection = collectionOf(path)
  app.use(path, service, { methods: resource.methods, events: [], ...(options.koa ? { koa: options.koa } : {}) })
  app.service(path).hooks({
    around: {
      all: [
        ...(options.outer ?? []),
        mapDatabaseErrors,
        requireApiKey,
        requireScope(collection, options.access),
        ...(options.around ?? [])
      ]
    },
    before: {
      all: [
        parsePathId(resource.idParam),
        ...(options.resolve ?? []),
        validateQuery(resource, querySchema),
        options.validateData ?? validateData(resource)
      ]
    },
    after: { remove: [noContentOnRemove] }
  })
  const registered: RegisteredResource = { resource: options.described ?? resource, path, querySchema }
  const registry = registryOf(app)
  registry.resources.push(registered)
  const { operations } = options
  if (operations) registry.contributions.push({ collection, paths: (tools) => operations(tools, registered) })
  registerSpecRoute(app, collection)
  for (const route of options.routes ?? []) {
    const routePath = `${path}/${route.name}`
    app.use(routePath, route.service, { methods: route.methods, events: [] })
    app
      .service(routePath)
      .hooks({ around: { all: [mapDatabaseErrors, requireApiKey, requireScope(collection, route.access)] } })
  }
  return registered
}
