import type { Server } from 'node:http'
import type { Knex } from 'knex'
import { NotFound } from '@feathersjs/errors'
import type { Application, HookContext, NextFunction } from '../../declarations'
import { TOPICS, type LogAppendedMessage } from '../../sync/topics'
import { API_PREFIX, registerResource } from '../../resources/register'
import { mapDatabaseErrors } from '../../resources/errors'
import { requireApiKey } from '../../resources/hooks'
import { WebhookDispatcher } from '../../webhooks/dispatcher'
import { Pacer } from '../../webhooks/pacer'
import { createKnex } from '../../db/knex'
import { webhookSubscriptionResource } from './webhook-subscriptions.schema'
import { MANAGE_ACCESS, requireManageScope, resolverOf, revealSecretOnCreate } from './webhook-subscriptions.rules'
import {
  DELIVERIES_PATH,
  resolveSubscription,
  webhookDeliveryResource,
  WebhookDeliveryService
} from './webhook-deliveries'
import { acceptedWithoutEvent, noReplayQuery, REPLAY_PATH, ReplayService } from './webhook-replay'
import { subscriptionOperations, withManageScope } from './webhook-subscriptions.openapi'

declare module '../../declarations' {
  interface Configuration {
    /** This process's sender, while it runs (`webhooks.deliver`); a replay wakes it. */
    webhookDispatcher?: WebhookDispatcher
    /** The sender's own connections. */
    webhookDb?: Knex
  }
}

/**
 * `/v1/webhook-subscriptions`, its deliveries and replay (CONTRACT §13.3), and the sender that
 * runs from setup to teardown.
 */
export const webhookSubscriptions = (app: Application) => {
  registerResource(app, webhookSubscriptionResource, {
    access: MANAGE_ACCESS,
    around: [revealSecretOnCreate],
    operations: subscriptionOperations
  })
  registerResource(app, webhookDeliveryResource, {
    path: DELIVERIES_PATH,
    service: new WebhookDeliveryService(webhookDeliveryResource, app.get('knex'), app.get('dialect')),
    access: MANAGE_ACCESS,
    resolve: [resolveSubscription],
    operations: withManageScope
  })
  const replayPath = `${API_PREFIX}/${REPLAY_PATH}`
  app.use(replayPath, new ReplayService(), { methods: ['create'], events: [] })
  app.service(replayPath).hooks({
    around: { all: [mapDatabaseErrors, requireApiKey, requireManageScope, acceptedWithoutEvent] },
    before: { all: [noReplayQuery] }
  })
  app.hooks({
    setup: [
      async (context: { server?: Server }, next: NextFunction) => {
        await next()
        startDelivery(app, context.server)
      }
    ],
    teardown: [
      async (_context: unknown, next: NextFunction) => {
        // Before the pool closes: the attempts under way are written and the claims given back.
        await app.get('webhookDispatcher')?.stop()
        await app.get('webhookDb')?.destroy()
        await next()
      }
    ]
  })
}

function startDelivery(app: Application, server?: Server) {
  const settings = app.get('webhooks')
  if (!settings.deliver) return
  const knex = app.get('knex')
  // Connections of its own: on SQLite the requests' one connection never waits behind the sender's
  // statements (WAL readers do not block each other), on PostgreSQL the sender never takes the pool's.
  const { url, statementTimeoutMs, acquireTimeoutMs } = app.get('database')
  const senderDb = createKnex(url, { min: 0, max: 2 }, { statementTimeoutMs, acquireTimeoutMs })
  const pacer = new Pacer(settings.busyPerSecond)
  if (server) pacer.watch(server)
  const dispatcher = new WebhookDispatcher({
    pacer,
    retentionDays: app.get('events').retentionDays,
    knex: senderDb,
    settings,
    appSecret: app.get('appSecret'),
    logger: app.get('logger'),
    resolve: resolverOf(app),
    // The server's own write: logged with its event like any deactivation (actor `system`).
    deactivate: async (companyId, subscriptionId) => {
      const company = await knex('companies').where({ id: companyId }).first('id', 'name', 'country', 'timezone')
      if (!company) return
      await app
        .service(`${API_PREFIX}/${webhookSubscriptionResource.path}`)
        .patch(subscriptionId, { deactivatedAt: new Date().toISOString() }, { company })
        .catch((error: unknown) => {
          if (!(error instanceof NotFound)) throw error
        })
    }
  })
  app.set('webhookDispatcher', dispatcher)
  app.set('webhookDb', senderDb)
  // Every committed write of any instance announces its company's new log head on the bus (the
  // wake-up realtime follows too): a round soon after, not at the next poll, when the company has
  // webhooks. A subscription written here makes its company one that has them.
  const unsubscribe = app.get('bus').subscribe(TOPICS.eventLogAppended, (message) => {
    const { companyId } = (message ?? {}) as Partial<LogAppendedMessage>
    dispatcher.wrote(Number.isSafeInteger(companyId) ? companyId : undefined)
  })
  dispatcher.onStop(unsubscribe)
  const subscriptions = app.service(`${API_PREFIX}/${webhookSubscriptionResource.path}`)
  for (const event of ['created', 'patched', 'removed'] as const)
    subscriptions.on(event, (record: { companyId?: number } | undefined, context?: HookContext) =>
      dispatcher.subscriptionChanged(context?.params?.company?.id ?? record?.companyId)
    )
  dispatcher.start()
}
