import type { Application } from '../declarations'
import { mapDatabaseErrors } from '../resources/errors'
import { noContentOnRemove } from '../resources/hooks'
import { ApiKeysService } from './api-keys'
import { CompanySettingsService } from './company'
import { UsageService } from './usage'
import { noQuery, parseId, requireSettingsLogin, withoutEvents } from './settings.hooks'

export const SETTINGS_PREFIX = 'settings'

const SERVICES = [
  { path: 'api-keys', idParam: 'apiKeyId', service: ApiKeysService, methods: ['find', 'get', 'create', 'remove'] },
  { path: 'company', idParam: 'companyId', service: CompanySettingsService, methods: ['find', 'patch'] },
  { path: 'usage', idParam: 'apiKeyId', service: UsageService, methods: ['find'] }
] as const

/**
 * The endpoints behind the settings page (public/settings): outside /v1, for the JWT of an
 * admin's email + password login only, scoped to that admin's company.
 */
export const settings = (app: Application) => {
  for (const { path, idParam, service: Service, methods } of SERVICES) {
    app.use(`${SETTINGS_PREFIX}/${path}`, new Service(app), { methods: [...methods], events: [] })
    app.service(`${SETTINGS_PREFIX}/${path}`).hooks({
      around: { all: [withoutEvents, mapDatabaseErrors, requireSettingsLogin] },
      before: { all: [noQuery, parseId(idParam)] },
      after: { remove: [noContentOnRemove] }
    })
  }
}
