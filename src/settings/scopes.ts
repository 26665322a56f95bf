import type { Application } from '../declarations'
import { DEFAULT_SCOPES, scopeCollections } from '../auth/scopes'
import { registryOf } from '../resources/registry'

export interface ScopeChoices {
  /** Collections a scope can name (`<collection>:read|write`), besides `*`. */
  collections: string[]
  defaultScopes: string[]
}

/** `settings/scopes`: what the settings page offers when it creates a key (CONTRACT §10.1). */
export class ScopesService {
  constructor(private readonly app: Application) {}

  async find(): Promise<ScopeChoices> {
    return { collections: scopeCollections(registryOf(this.app).resources), defaultScopes: [...DEFAULT_SCOPES] }
  }
}
