import { Type } from '@feathersjs/typebox'
import { Gone } from '@feathersjs/errors'
import type { Knex } from 'knex'
import type { Application, HookContext, NextFunction, Params } from '../../declarations'
import { badRequest } from '../../resources/validation'
import { conflict } from '../../errors'
import { queueReplay } from '../../webhooks/queue'
import { EVENT_TABLE, HEAD_TABLE } from '../../events/event-log'
import { findSubscription } from './webhook-deliveries'
import { COLLECTION } from './webhook-subscriptions.rules'

/**
 * `POST /v1/webhook-subscriptions/{id}/replay` with `{ "after": "<event id>" }` (CONTRACT §13.3,
 * §13.6): queues the retained events after that id again, as the subscription's types and scopes
 * select them, behind the deliveries already queued; 202 `{ "queued": n }`.
 */

export const REPLAY_PATH = `${COLLECTION}/:webhookSubscriptionId/replay`

export interface ReplayResult {
  queued: number
}

/** The replay's body and answer, for the API description and the typed client. */
export const replayBody = Type.Object(
  {
    after: Type.Union([Type.String({ pattern: '^(0|[1-9][0-9]{0,14})$' }), Type.Integer({ minimum: 0 })], {
      description:
        'An event id of the company\'s log: the events after it are sent again ("0": every retained event). The `webhook-id` of a delivery is its event id.'
    })
  },
  { $id: 'WebhookReplay', additionalProperties: false }
)

export const replayQueued = Type.Object(
  { queued: Type.Integer({ minimum: 0, description: 'Deliveries queued.' }) },
  { $id: 'WebhookReplayQueued', additionalProperties: false }
)

const AFTER_MESSAGE = 'must be an event id: a decimal string such as "1234" ("0": from the oldest retained event)'

/** `after` as a number: a decimal string (event ids are strings) or a non-negative integer. */
export function parseReplayBody(body: unknown): number {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw badRequest('Invalid body', { '': 'must be a JSON object' })
  const errors: Record<string, string> = {}
  for (const key of Object.keys(body)) if (key !== 'after') errors[key] = 'is not a field of a replay'
  const { after } = body as { after?: unknown }
  const valid =
    (typeof after === 'string' && /^(0|[1-9]\d{0,14})$/.test(after)) ||
    (typeof after === 'number' && Number.isSafeInteger(after) && after >= 0)
  if (!valid) errors.after = after === undefined ? `is required: it ${AFTER_MESSAGE}` : AFTER_MESSAGE
  if (Object.keys(errors).length > 0) throw badRequest('Invalid replay body', errors)
  return Number(after)
}

/**
 * `after` must be 0 or an event of the company's log, as a feed cursor (CONTRACT §13.6): one that
 * retention has passed (events after it are gone) is 410, an id of another company's log 400.
 */
async function checkAfter(db: Knex, companyId: number, after: number) {
  const head = await db(HEAD_TABLE).where({ companyId }).first('prunedThrough')
  const prunedThrough = Number(head?.prunedThrough ?? 0)
  if (after === prunedThrough || after === 0) return
  if (after < prunedThrough)
    throw new Gone(`Events after ${after} are past retention and were deleted; replay from a later event id`, {
      validationErrors: { after: `is older than the retained events (the oldest follows ${prunedThrough})` }
    })
  const found = await db(EVENT_TABLE).where({ companyId, id: after }).first('id')
  if (!found) throw badRequest('Invalid replay body', { after: "is not an event id of this company's log" })
}

/** Queues the replay in one transaction; 404 for a subscription of another company, 409 for a deactivated one. */
export async function replay(app: Application, companyId: number, subscriptionId: number, after: number) {
  const knex = app.get('knex')
  await checkAfter(knex, companyId, after)
  const result = await knex.transaction((trx) => queueReplay(trx, companyId, subscriptionId, after, new Date()))
  if (!result) await findSubscription(knex, companyId, subscriptionId)
  if (result?.deactivated)
    throw conflict('The webhook subscription is deactivated: reactivate it (deactivatedAt: null) before a replay', {
      reason: 'subscription-deactivated',
      ids: [subscriptionId]
    })
  if (result && result.queued > 0) app.get('webhookDispatcher')?.wake()
  return { queued: result?.queued ?? 0 }
}

export class ReplayService {
  app?: Application

  async setup(app: Application) {
    this.app = app
  }

  async create(data: unknown, params: Params): Promise<ReplayResult> {
    const app = this.app!
    const companyId = params.company!.id
    // The subscription first: another company's id is a 404 whatever the body.
    const id = await findSubscription(app.get('knex'), companyId, params.route?.webhookSubscriptionId)
    return replay(app, companyId, id, parseReplayBody(data))
  }
}

/** The replay takes no query parameters. */
export const noReplayQuery = async (context: HookContext) => {
  const keys = Object.keys(context.params.query ?? {})
  if (keys.length > 0)
    throw badRequest('Invalid query', Object.fromEntries(keys.map((key) => [key, 'is not a parameter of replay'])))
}

/** 202: the deliveries are queued, not sent; a replay is no record, so it announces no event. */
export const acceptedWithoutEvent = async (context: HookContext, next: NextFunction) => {
  await next()
  context.event = null
  if (context.params.provider === 'rest') context.http = { ...context.http, status: 202 }
}
