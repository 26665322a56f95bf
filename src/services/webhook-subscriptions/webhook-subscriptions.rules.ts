import { GeneralError } from '@feathersjs/errors'
import type { Application, HookContext, NextFunction, Params } from '../../declarations'
import type { PlannedWrite, Row, ValidationErrors, WriteContext } from '../../resources/define-resource'
import { registryOf } from '../../resources/registry'
import { assertScope } from '../../resources/hooks'
import { allows, normalizeScopes } from '../../auth/scopes'
import { Resolver, systemResolver, urlProblem } from '../../webhooks/addresses'
import { typePatternErrors } from '../../webhooks/event-types'
import { decryptSigningSecret, encryptSigningSecret, newSigningSecret } from '../../webhooks/secrets'
import { SUBSCRIPTIONS } from '../../webhooks/queue'
import { committedHead } from '../../events/event-log'
import { abandonQueue } from '../../webhooks/outcomes'
import { lockedForWrite } from '../../db/dialect'
import { REPLAYED_HEADER } from '../../middleware/idempotency'

/**
 * The rules of webhook subscriptions (CONTRACT §13.3) a schema cannot say: where a URL may
 * point, which event types exist, the signing secret, what the subscription may receive, and
 * what (de)activating does to its queue.
 */

export const COLLECTION = 'webhook-subscriptions'

declare module '../../declarations' {
  interface Params {
    /** The signing secret of a subscription being created (the create's answer reveals it, once). */
    webhookSecret?: string
  }
  interface Configuration {
    /** Resolves host names for the URL checks instead of the system resolver (tests). */
    webhookResolver?: Resolver
  }
}

export const resolverOf = (app: Application): Resolver => app.get('webhookResolver') ?? systemResolver

/**
 * Every method needs `webhook-subscriptions:write`, reads too: a subscription's URL may carry the
 * receiver's credentials, and whoever manages webhooks decides where the company's data goes. The
 * collection's events (change feed, sockets) follow the same rule (`visibleLogScopes`).
 */
export const MANAGE_ACCESS = 'write' as const

/** The scope check of the replay route (the collections get theirs from `registerResource`'s `access`). */
export const requireManageScope = async (context: HookContext, next: NextFunction) => {
  if (context.params.provider) assertScope(context.params.apiKey, COLLECTION, MANAGE_ACCESS)
  await next()
}

/** Whether a key with `scopes` may see the subscriptions (and so their events). */
export const canManageWebhooks = (scopes: readonly string[]) => allows(scopes, COLLECTION, MANAGE_ACCESS)

/**
 * What a subscription may receive: the collections the key that points it somewhere can read
 * (a key with only `webhook-subscriptions:write` must not receive the users through a webhook it
 * sets up). Taken when it is created and whenever its `url` or `types` change; the settings page
 * (an administrator) reads everything.
 */
const readScopesOf = (params: Params) => (params.apiKey ? normalizeScopes(params.apiKey.scopes) : ['*:read'])

/** The event collections: those whose records can be written (their events exist). */
const eventCollections = (app: Application) =>
  registryOf(app)
    .resources.filter(({ resource }) => resource.methods.some((m) => m === 'create' || m === 'patch' || m === 'remove'))
    .map(({ resource }) => resource.path)

export interface SubscriptionPlan {
  /** Set when the write redirects the subscription (create, new url or types). */
  readScopes?: string[]
  deactivating: boolean
  reactivating: boolean
}

export async function checkSubscriptionWrite(write: WriteContext<SubscriptionPlan>): Promise<ValidationErrors> {
  const { app, data, method, existing, params } = write
  const errors: ValidationErrors = {}
  if (typeof data.url === 'string') {
    const problem = await urlProblem(data.url, {
      allowPrivateUrls: app.get('webhooks').allowPrivateUrls,
      resolve: resolverOf(app)
    })
    if (problem) errors.url = problem
  }
  if (Array.isArray(data.types)) Object.assign(errors, typePatternErrors(data.types, eventCollections(app)))
  const redirects = method === 'create' || data.url !== undefined || data.types !== undefined
  const wasActive = method === 'create' || !existing!.deactivatedAt
  write.plan = {
    readScopes: redirects ? readScopesOf(params) : undefined,
    deactivating: method === 'patch' && wasActive && data.deactivatedAt != null,
    reactivating: method === 'patch' && !wasActive && data.deactivatedAt === null
  }
  return errors
}

/**
 * The stored columns besides the fields: the encrypted secret and the log position on create (it
 * receives only events after it: no backfill; `committedHead` in this transaction holds the log
 * lock to its commit); the position again on reactivation (what happened while it was deactivated
 * is for a replay); no work and no failure window once deactivated.
 */
export async function subscriptionRow(row: Row, write: PlannedWrite<SubscriptionPlan>) {
  const { app, method, params, plan, trx, companyId } = write
  if (plan.readScopes) row.readScopes = JSON.stringify(plan.readScopes)
  if (method === 'create') {
    if (!params.webhookSecret) throw new GeneralError('A webhook subscription is created with its signing secret')
    row.secret = encryptSigningSecret(params.webhookSecret, app.get('appSecret'))
    row.types ??= '[]'
    row.lastEventId = await committedHead(trx, companyId)
  }
  if (plan.reactivating) {
    // The row first: a concurrent write of this subscription that holds it appends (the log lock
    // shared) before it commits, so taking the log lock first and then waiting for the row here
    // would close a cycle.
    await lockedForWrite(trx, trx(SUBSCRIPTIONS).where({ companyId, id: write.existing!.id }).first('id'))
    row.lastEventId = await committedHead(trx, companyId)
  }
  if (plan.deactivating || plan.reactivating) Object.assign(row, { dueAt: null, failingSince: null })
}

/** Deactivating gives up the queued deliveries, in the same transaction. */
export async function afterSubscriptionWrite(id: number, { plan, trx, companyId }: PlannedWrite<SubscriptionPlan>) {
  if (plan.deactivating) await abandonQueue(trx, companyId, id)
}

/**
 * The create's answer carries the signing secret, on REST and on sockets alike (both send the
 * hook's `dispatch`); nothing else does. Feathers would publish the `created` event with the
 * dispatched value, so the event is published here instead, with the record alone, as the
 * event log records it. The response an `Idempotency-Key` stores is taken inside this hook,
 * without the secret: a repeated create is answered with the secret read back from the
 * subscription (and announces nothing, as the repeat writes nothing).
 */
export const revealSecretOnCreate = async (context: HookContext, next: NextFunction) => {
  if (context.method !== 'create') return next()
  context.params.webhookSecret ??= newSigningSecret()
  const secret = context.params.webhookSecret
  await next()
  const record = context.result as Row
  if (context.http?.headers?.[REPLAYED_HEADER] === 'true') {
    if (context.http.status !== 201 || !record?.id) return
    const stored = await context.app
      .get('knex')(SUBSCRIPTIONS)
      .where({ companyId: context.params.company!.id, id: record.id })
      .first('secret')
    if (stored)
      context.dispatch = { ...record, secret: decryptSigningSecret(stored.secret, context.app.get('appSecret')) }
    return
  }
  context.dispatch = { ...record, secret }
  context.event = null
  context.self.emit('created', record, {
    path: context.path,
    method: 'create',
    params: { company: context.params.company },
    result: record
  })
}
