import { Type } from '@feathersjs/typebox'
import type { Application, Params } from '../declarations'
import type { Row } from '../resources/define-resource'
import { decodeRow } from '../resources/codec'
import { API_PREFIX } from '../resources/register'
import { webhookSubscriptionResource } from '../services/webhook-subscriptions/webhook-subscriptions.schema'
import { webhookDeliveryResource } from '../services/webhook-subscriptions/webhook-deliveries'
import { parseReplayBody, replay, ReplayResult } from '../services/webhook-subscriptions/webhook-replay'
import { findSubscription } from '../services/webhook-subscriptions/webhook-deliveries'
import { DELIVERIES, SUBSCRIPTIONS } from '../webhooks/queue'
import { newSigningSecret } from '../webhooks/secrets'
import { Id } from '../resources/types'
import { validateBodyWith } from './settings.hooks'

/**
 * The webhooks part of the settings page (CONTRACT §13.3): the company's subscriptions with their
 * latest deliveries; creating one (its secret shown once), deactivating, reactivating and
 * deleting one, and replays. Changes go through `/v1/webhook-subscriptions` as internal calls,
 * so the same rules apply and the same events are logged (acting: the signed-in admin).
 */

/** Deliveries shown per subscription, newest first. */
const LATEST_DELIVERIES = 10
/** Subscriptions the page lists (a company has a handful). */
const MAX_SUBSCRIPTIONS = 100

export type WebhookSubscriptionItem = Row & { deliveries: Row[] }

const path = `${API_PREFIX}/${webhookSubscriptionResource.path}`

/** The signed-in admin acting through the /v1 service. */
const acting = (params: Params): Params => ({
  company: params.company,
  user: params.user,
  settingsLogin: true
})

export class WebhookSubscriptionsService {
  constructor(private readonly app: Application) {}

  async find(params: Params): Promise<WebhookSubscriptionItem[]> {
    const knex = this.app.get('knex')
    const companyId = params.company!.id
    const rows = await knex(SUBSCRIPTIONS).where({ companyId }).orderBy('id').limit(MAX_SUBSCRIPTIONS)
    return Promise.all(
      rows.map(async (row) => {
        const deliveries = await knex(DELIVERIES)
          .where({ companyId, subscriptionId: row.id })
          .orderBy('id', 'desc')
          .limit(LATEST_DELIVERIES)
        return {
          ...decodeRow(webhookSubscriptionResource, row),
          deliveries: deliveries.map((delivery) => ({
            ...decodeRow(webhookDeliveryResource, delivery),
            eventId: String(delivery.eventId)
          }))
        }
      })
    )
  }

  /** The answer carries the signing secret: the page shows it once. */
  async create(data: unknown, params: Params): Promise<Row & { secret: string }> {
    const secret = newSigningSecret()
    const created = await this.app.service(path).create(data, { ...acting(params), webhookSecret: secret })
    return { ...created, secret }
  }

  /** `{ "deactivatedAt": null }` reactivates, a time deactivates; any other field of the subscription changes it. */
  async patch(id: number, data: unknown, params: Params): Promise<Row> {
    return this.app.service(path).patch(id, data, acting(params))
  }

  async remove(id: number, params: Params): Promise<Row> {
    return this.app.service(path).remove(id, acting(params))
  }
}

const replayData = Type.Object(
  { subscriptionId: Id(), after: Type.Union([Type.String(), Type.Integer()]) },
  { $id: 'SettingsWebhookReplay', additionalProperties: false }
)

/** `settings/webhook-replays`: `{ subscriptionId, after }` queues the events after `after` again. */
export class WebhookReplaysService {
  constructor(private readonly app: Application) {}

  async create(data: unknown, params: Params): Promise<ReplayResult> {
    const { subscriptionId, after } = validateBodyWith(replayData, 'WebhookReplay', data)
    const companyId = params.company!.id
    const id = await findSubscription(this.app.get('knex'), companyId, subscriptionId)
    return replay(this.app, companyId, id, parseReplayBody({ after }))
  }
}
