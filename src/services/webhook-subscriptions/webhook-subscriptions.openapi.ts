import { Type } from '@feathersjs/typebox'
import type { Json, OpenApiTools, PathItems } from '../../resources/openapi'
import { pathTemplate, resourcePaths } from '../../resources/openapi'
import type { RegisteredResource } from '../../resources/registry'
import { API_PREFIX } from '../../resources/register'
import { webhookSubscriptionResource } from './webhook-subscriptions.schema'
import { REPLAY_PATH, replayBody, replayQueued } from './webhook-replay'
import { COLLECTION } from './webhook-subscriptions.rules'

/**
 * What the generated description of webhook subscriptions cannot know: every operation needs
 * `webhook-subscriptions:write` (reads too), the create's answer carries the signing secret,
 * and the replay route.
 */

const SCOPE_NOTE = `Needs the scope \`${COLLECTION}:write\`, for reads too.`

/** The generated operations of a registration, each saying which scope it needs. */
export function withManageScope(tools: OpenApiTools, registered: RegisteredResource): PathItems {
  const paths = resourcePaths(tools, registered)
  for (const item of Object.values(paths))
    for (const operation of Object.values<Json>(item))
      operation.description = [operation.description, SCOPE_NOTE].filter(Boolean).join(' ')
  return paths
}

/** The create's answer: the record and its signing secret (the client's `WebhookSubscriptionCreated`). */
export const webhookSubscriptionCreatedSchema = Type.Object(
  {
    ...webhookSubscriptionResource.schema.properties,
    secret: Type.String({
      pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$',
      description:
        'The signing secret (Standard Webhooks): verify each delivery with it. Shown in this answer only; store it now.'
    })
  },
  { $id: 'WebhookSubscriptionCreated', additionalProperties: false }
)

export function subscriptionOperations(tools: OpenApiTools, registered: RegisteredResource): PathItems {
  const paths = withManageScope(tools, registered)
  const base = pathTemplate(registered.path)
  const create = paths[base].post
  create.description = `The answer carries \`secret\`, the signing secret of the deliveries, this once. ${create.description}`
  create.responses['201'] = tools.json(
    tools.component('WebhookSubscriptionCreated', webhookSubscriptionCreatedSchema),
    'Created.'
  )
  const resource = registered.resource
  paths[pathTemplate(`${API_PREFIX}/${REPLAY_PATH}`)] = {
    post: {
      tags: [tools.tag(resource, registered.path)],
      summary: 'Send retained events again',
      description:
        "Queues the company's retained events after `after` for this subscription again, as its `types` select them, " +
        `behind the deliveries already queued, in log order. ${SCOPE_NOTE} 400 when \`after\` is not an event id of the company's log, 410 when retention has deleted the events after it; 409 when the subscription is deactivated.`,
      operationId: 'replayWebhookSubscription',
      parameters: [tools.pathParameter(resource.idParam)],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: tools.component('WebhookReplay', replayBody) } }
      },
      responses: {
        '202': tools.json(tools.component('WebhookReplayQueued', replayQueued), 'Queued.'),
        ...tools.errors(401, 403, 400, 404, 409, 410, 413, 415)
      }
    }
  }
  return paths
}
