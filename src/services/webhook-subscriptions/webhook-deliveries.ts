import { GeneralError, NotFound } from '@feathersjs/errors'
import { Type } from '@feathersjs/typebox'
import type { Knex } from 'knex'
import type { HookContext, Params } from '../../declarations'
import { defineResource, output } from '../../resources/define-resource'
import { ResourceService } from '../../resources/service'
import { Str, Text, Timestamp } from '../../resources/types'
import { pathId } from '../../resources/validation'
import { DELIVERIES, SUBSCRIPTIONS } from '../../webhooks/queue'
import { COLLECTION } from './webhook-subscriptions.rules'

/**
 * `GET /v1/webhook-subscriptions/{id}/deliveries` (CONTRACT §13.3, §13.6): what was queued for a
 * subscription and how its attempts went; a list like any other (page, size, filters, `$sort`).
 * Written by the senders only (src/webhooks/queue.ts, outcomes.ts).
 */

declare module '../../declarations' {
  interface Params {
    /** The subscription a deliveries path names, checked to be of the company. */
    webhookSubscriptionId?: number
  }
}

export const DELIVERIES_PATH = `${COLLECTION}/:webhookSubscriptionId/deliveries`

export const webhookDeliveryResource = defineResource({
  path: 'webhook-deliveries',
  table: DELIVERIES,
  entity: 'WebhookDelivery',
  methods: ['find'],
  fields: {
    eventId: output(
      Type.String({
        pattern: '^[0-9]+$',
        description: 'The event delivered: its id in the log, also the `webhook-id` header of every attempt.'
      }),
      { nullable: false, stored: false }
    ),
    type: output(Str(100, { description: 'The event type.' }), { nullable: false }),
    attempts: output(Type.Integer({ minimum: 0, description: 'Attempts made so far.' }), { nullable: false }),
    lastStatus: output(Type.Integer({ description: 'HTTP status of the last attempt; null: no answer.' })),
    lastError: output(Text({ description: 'Why the last attempt failed, or why the delivery was given up.' })),
    nextAttemptAt: output(Timestamp({ description: 'When it goes out next; null once delivered or given up.' })),
    deliveredAt: output(Timestamp({ description: 'When the receiver answered 2xx.' })),
    createdAt: output(Timestamp({ description: 'When it was queued.' })),
    // A delivery has no updatedAt of its own: `attempts` and the last status tell its history.
    updatedAt: { ...output(Timestamp()), output: false as const, stored: false }
  },
  filters: ['id', 'type', 'attempts', 'lastStatus', 'nextAttemptAt', 'deliveredAt', 'createdAt'],
  /** Event ids are bigints in the log: strings in the API, as the log hands them out. */
  async loadVirtual(items, { rows }) {
    items.forEach((item, index) => (item.eventId = String(rows[index].eventId)))
  }
})

/** The list, narrowed to the subscription of the path. */
export class WebhookDeliveryService extends ResourceService {
  subscriptionOf(params?: Params) {
    const id = params?.webhookSubscriptionId
    if (!id) throw new GeneralError('No webhook subscription in the request context')
    return id
  }

  scoped(params?: Params) {
    return super.scoped(params).andWhere(`${DELIVERIES}.subscriptionId`, this.subscriptionOf(params))
  }

  async find(params: Params = {}) {
    const id = this.subscriptionOf(params)
    const list = params.list ?? { page: 0, size: 10, sort: [['id', 1]], where: {} }
    return super.find({ ...params, list: { ...list, where: { ...list.where, [`${DELIVERIES}.subscriptionId`]: id } } })
  }
}

/** The subscription in the path must be an int32 id (400) of a subscription of the caller's company (404). */
export async function findSubscription(db: Knex, companyId: number, raw: unknown): Promise<number> {
  const id = pathId(raw, 'webhookSubscriptionId')
  if (!(await db(SUBSCRIPTIONS).where({ companyId, id }).first('id')))
    throw new NotFound(`No WebhookSubscription with id ${id}`)
  return id
}

export const resolveSubscription = async (context: HookContext) => {
  const db: Knex = context.params.transaction?.trx ?? context.app.get('knex')
  context.params.webhookSubscriptionId = await findSubscription(
    db,
    context.params.company!.id,
    context.params.route?.webhookSubscriptionId
  )
}
