import type { Application } from '../declarations'
import { mapDatabaseErrors } from '../resources/errors'
import { noContentOnRemove } from '../resources/hooks'
import { AdminsService } from './admins'
import { ApiKeysService } from './api-keys'
import { CompanySettingsService, WorkingTimesService } from './company'
import { ScopesService } from './scopes'
import { UsageService } from './usage'
import { WebhookReplaysService, WebhookSubscriptionsService } from './webhooks'
import { endSessions } from '../services/users/user-accounts'
import type { HookContext } from '../declarations'
import { noQuery, requireSettingsLogin, withoutEvents } from './settings.hooks'
import { parsePathId } from '../resources/hooks'

export const SETTINGS_PREFIX = 'settings'

const SERVICES = [
  { path: 'api-keys', idParam: 'apiKeyId', service: ApiKeysService, methods: ['find', 'get', 'create', 'remove'] },
  { path: 'company', idParam: 'companyId', service: CompanySettingsService, methods: ['find', 'patch'] },
  {
    path: 'working-times',
    idParam: 'workingTimeId',
    service: WorkingTimesService,
    methods: ['find', 'create', 'patch', 'remove']
  },
  { path: 'usage', idParam: 'apiKeyId', service: UsageService, methods: ['find'] },
  { path: 'admins', idParam: 'adminId', service: AdminsService, methods: ['find', 'create', 'patch', 'remove'] },
  { path: 'scopes', idParam: 'scope', service: ScopesService, methods: ['find'] },
  {
    path: 'webhook-subscriptions',
    idParam: 'webhookSubscriptionId',
    service: WebhookSubscriptionsService,
    methods: ['find', 'create', 'patch', 'remove']
  },
  { path: 'webhook-replays', idParam: 'webhookSubscriptionId', service: WebhookReplaysService, methods: ['create'] }
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
      before: { all: [noQuery, parsePathId(idParam)] },
      after: { remove: [noContentOnRemove] }
    })
  }
  app.service('authentication').hooks({ after: { remove: [endSettingsSession] } })
}

/**
 * Logout (`DELETE /authentication` with the settings token) ends the session for good, not only
 * in the browser: the admin's session version goes up, which ends every settings session of that
 * admin (all their tabs and devices). Socket tokens minted for API keys are not sessions: untouched.
 */
async function endSettingsSession(context: HookContext) {
  const result = context.result as { settingsLogin?: boolean; user?: { id: number } } | undefined
  if (result?.settingsLogin && result.user) await endSessions(context.app.get('knex'), result.user.id)
}
