import type { Application } from '../declarations'
import { DEFAULT_SCOPES, scopeCollections } from '../auth/scopes'

export interface ScopeChoices {
  /** Collections a scope can name (`<collection>:read|write`), besides `*`. */
  collections: string[]
  defaultScopes: string[]
}

/** `settings/scopes`: what the settings page offers when it creates a key (CONTRACT §10.1). */
export class ScopesService {
  constructor(private readonly app: Application) {}

  async find(): Promise<ScopeChoices> {
    return { collections: scopeCollections(this.app.get('resources' as any) ?? []), defaultScopes: [...DEFAULT_SCOPES] }
  }
}
