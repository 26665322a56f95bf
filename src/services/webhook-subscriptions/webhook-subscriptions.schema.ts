import { Type } from '@feathersjs/typebox'
import { defineResource, writable } from '../../resources/define-resource'
import { Str, Text, Timestamp } from '../../resources/types'
import { TYPE_PATTERN } from '../../webhooks/event-types'
import {
  afterSubscriptionWrite,
  checkSubscriptionWrite,
  COLLECTION,
  subscriptionRow
} from './webhook-subscriptions.rules'

/**
 * A webhook subscription (CONTRACT §13.3): the company's events of the chosen types are POSTed
 * to `url`, signed with the subscription's secret (returned by the create only; see
 * docs/integrations.md#webhooks).
 */
export const webhookSubscriptionResource = defineResource({
  path: COLLECTION,
  entity: 'WebhookSubscription',
  displayNames: { DE: 'Webhook-Abonnement', IT: 'Sottoscrizione webhook' },
  methods: ['find', 'get', 'create', 'patch', 'remove'],
  fields: {
    url: writable(
      Str(2048, {
        format: 'uri',
        description:
          'Where events are POSTed: an https:// URL whose host resolves only to public addresses (private, loopback and link-local addresses are refused).'
      }),
      { nullable: false }
    ),
    types: writable(
      Type.Array(Type.String({ pattern: TYPE_PATTERN, maxLength: 255 }), {
        maxItems: 100,
        uniqueItems: true,
        description:
          'Event types to receive, `<collection>.<created|patched|removed>` or `company.recomputed`; `*` stands for either part (`time-entries.*`, `*.removed`) or, alone, for every type. Empty (the default): every type.'
      }),
      { json: true, nullable: false }
    ),
    description: writable(Text()),
    deactivatedAt: writable(
      Timestamp({
        description:
          'Set: the subscription receives nothing and its queued deliveries are given up (also set by the server after 3 days of failed deliveries). Back to null: it receives the events from then on; `replay` sends the ones before.'
      })
    )
  },
  required: ['url'],
  filters: ['id', 'url', 'description', 'deactivatedAt', 'createdAt', 'updatedAt'],
  beforeWrite: checkSubscriptionWrite,
  toRow: subscriptionRow,
  afterWrite: afterSubscriptionWrite
})
