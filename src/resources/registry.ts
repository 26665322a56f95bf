import type { Application } from '../declarations'
import type { Resource } from './define-resource'
import type { OpenApiContribution } from './openapi'
import type { buildQuerySchema } from './query'

/** A declaration as mounted: its Feathers path and the strict list-query schema derived from it. */
export interface RegisteredResource {
  resource: Resource
  path: string
  querySchema: ReturnType<typeof buildQuerySchema>
}

/**
 * What registerResource() has mounted, in registration order: the one record the API
 * description, the scope catalogue, a delete's reference counts and the test sweeps read.
 */
export interface ResourceRegistry {
  /** The mounted declarations, as described (an upload collection without the multipart create). */
  readonly resources: RegisteredResource[]
  /** Operations a declaration cannot say (multipart bodies, look-ups, downloads), per collection. */
  readonly contributions: OpenApiContribution[]
  /** The collections whose `GET /v1/<collection>/spec` route is mounted. */
  readonly specRoutes: Set<string>
}

declare module '../declarations' {
  interface Configuration {
    /** Filled by registerResource(); read it through registryOf(app). */
    registry: ResourceRegistry
  }
}

export function registryOf(app: Application): ResourceRegistry {
  let registry = app.get('registry')
  if (!registry) {
    registry = { resources: [], contributions: [], specRoutes: new Set() }
    app.set('registry', registry)
  }
  return registry
}
