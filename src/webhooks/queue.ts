import type { Knex } from 'knex'
import { allows, parseStoredScopes } from '../auth/scopes'
import { lockedForWrite } from '../db/dialect'
import { typeMatches } from './event-types'
import { EVENT_TABLE, logHorizon, upToHorizon } from '../events/event-log'

/**
 * The delivery queue in the database (CONTRACT §13.3). Each subscription keeps its own position
 * in the company's event log (`last_event_id`): the events after it are queued as deliveries
 * (`queueNewEvents`, about a batch ahead of the sending), which go out in delivery id order; a
 * replay queues retained events again (`queueReplay`). Who sends for a subscription: claims.ts;
 * what an attempt leaves behind: outcomes.ts.
 */

export const SUBSCRIPTIONS = 'webhook_subscriptions'
export const DELIVERIES = 'webhook_deliveries'
export const EVENT_LOG = EVENT_TABLE

/** Events examined per step of queueing: a step is one short transaction. */
export const QUEUE_STEP = 500

export const iso = (value: unknown) => (value == null ? null : new Date(value as string).toISOString())
const json = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value)

/** A queued delivery with its event, as it goes out. */
export interface QueuedDelivery {
  id: number
  eventId: string
  type: string
  attempts: number
  nextAttemptAt: string
  /** The event's time and stored data; null when retention removed the event from the log. */
  occurredAt: string | null
  data: string | null
}

/** The first delivery waiting in a subscription's queue (the partial index). */
export const firstQueued = (db: Knex, subscriptionId: number) =>
  db(DELIVERIES).where({ subscriptionId }).whereNotNull('nextAttemptAt').orderBy('id').first('id', 'nextAttemptAt')

/** What a subscription receives: the types it asks for, of the collections its key could read. */
interface Wanted {
  types: string[]
  readScopes: string[]
}

const wants = (subscription: Wanted, event: { type: string; scope: string }) =>
  typeMatches(subscription.types, event.type) && allows(subscription.readScopes, event.scope, 'read')

/**
 * A subscription starts after the newest event when it is created, but the event of its own
 * creation is logged in the same transaction, after that: it is not one of the events it receives.
 */
const OWN_CREATION = 'webhook-subscriptions.created'
const isOwnCreation = (event: { type: string; own: string | null }, subscriptionId: number) =>
  event.type === OWN_CREATION && event.own !== null && (JSON.parse(event.own) as { id?: number }).id === subscriptionId

/** The subscription row, locked against the other writers of its queue (queueing, replay). */
async function lockSubscription(trx: Knex.Transaction, companyId: number, id: number) {
  const row = await lockedForWrite(trx, trx(SUBSCRIPTIONS).where({ companyId, id })).first(
    'id',
    'types',
    'readScopes',
    'lastEventId',
    'dueAt',
    'deactivatedAt'
  )
  if (!row) return undefined
  return {
    ...row,
    lastEventId: Number(row.lastEventId),
    types: (json(row.types) as string[]) ?? [],
    readScopes: parseStoredScopes(row.readScopes),
    dueAt: iso(row.dueAt)
  }
}

/**
 * Queues `events` for the subscription behind its queued deliveries: they wait at least as long
 * as the first one (a failing delivery holds the later ones back), and the subscription is due
 * no later than that.
 */
async function enqueue(
  trx: Knex.Transaction,
  subscription: { id: number; dueAt: string | null },
  companyId: number,
  events: { id: number | string; type: string }[],
  now: Date
) {
  if (events.length === 0) return
  const head = await firstQueued(trx, subscription.id)
  const nowIso = now.toISOString()
  const heldUntil = head && iso(head.nextAttemptAt)! > nowIso ? iso(head.nextAttemptAt)! : nowIso
  for (let start = 0; start < events.length; start += QUEUE_STEP) {
    await trx(DELIVERIES).insert(
      events.slice(start, start + QUEUE_STEP).map((event) => ({
        companyId,
        subscriptionId: subscription.id,
        eventId: event.id,
        type: event.type,
        attempts: 0,
        nextAttemptAt: heldUntil,
        createdAt: nowIso
      }))
    )
  }
  if (!subscription.dueAt || subscription.dueAt > heldUntil) {
    await trx(SUBSCRIPTIONS).where({ id: subscription.id }).update({ dueAt: heldUntil })
    subscription.dueAt = heldUntil
  }
}

/**
 * Queues the next events of the log after the subscription's position, up to `room` deliveries
 * (examining at most `QUEUE_STEP` events), and moves the position past what it examined.
 */
export async function queueNewEvents(
  knex: Knex,
  companyId: number,
  subscriptionId: number,
  room: number,
  now: Date
): Promise<{ examined: number; queued: number }> {
  // Before the transaction, so that the log lock is not held through it.
  const horizon = await logHorizon(knex, companyId)
  return knex.transaction(async (trx) => {
    const subscription = await lockSubscription(trx, companyId, subscriptionId)
    if (!subscription || subscription.deactivatedAt) return { examined: 0, queued: 0 }
    const events: { id: number; type: string; scope: string; own: string | null }[] = await upToHorizon(
      trx(EVENT_LOG).where({ companyId }).andWhere('id', '>', subscription.lastEventId),
      horizon
    )
      .orderBy('id')
      .limit(QUEUE_STEP)
      .select(
        'id',
        'type',
        'scope',
        trx.raw('case when ?? = ? then ?? end as ??', ['type', OWN_CREATION, 'data', 'own'])
      )
    const wanted: typeof events = []
    let examined = 0
    for (const event of events) {
      if (wanted.length === room) break
      examined++
      if (wants(subscription, event) && !isOwnCreation(event, subscriptionId)) wanted.push(event)
    }
    if (examined === 0) return { examined: 0, queued: 0 }
    await enqueue(trx, subscription, companyId, wanted, now)
    await trx(SUBSCRIPTIONS)
      .where({ id: subscriptionId })
      .update({ lastEventId: events[examined - 1].id })
    return { examined, queued: wanted.length }
  })
}

/** The next queued deliveries of a subscription, in order, with their events. */
export async function queuedDeliveries(knex: Knex, subscriptionId: number, limit: number): Promise<QueuedDelivery[]> {
  const rows = await knex(`${DELIVERIES} as d`)
    .leftJoin(`${EVENT_LOG} as e`, (on) => on.on('e.companyId', '=', 'd.companyId').andOn('e.id', '=', 'd.eventId'))
    .where('d.subscriptionId', subscriptionId)
    .whereNotNull('d.nextAttemptAt')
    .orderBy('d.id')
    .limit(limit)
    .select('d.id', 'd.eventId', 'd.type', 'd.attempts', 'd.nextAttemptAt', 'e.occurredAt', 'e.data')
  return rows.map((row) => ({
    id: row.id,
    eventId: String(row.eventId),
    type: row.type,
    attempts: Number(row.attempts),
    nextAttemptAt: iso(row.nextAttemptAt)!,
    occurredAt: iso(row.occurredAt),
    data: row.data ?? null
  }))
}

/**
 * Queues the retained events after `after` again for the subscription (CONTRACT §13.3 replay),
 * behind the deliveries already queued, in log order, as its types and scopes select them. Events
 * after the subscription's position are not queued here: they are on their way anyway. Returns
 * how many deliveries were queued; undefined when the subscription is not the company's.
 */
export async function queueReplay(
  trx: Knex.Transaction,
  companyId: number,
  subscriptionId: number,
  after: number,
  now: Date
): Promise<{ queued: number; deactivated: boolean } | undefined> {
  const subscription = await lockSubscription(trx, companyId, subscriptionId)
  if (!subscription) return undefined
  if (subscription.deactivatedAt) return { queued: 0, deactivated: true }
  let queued = 0
  let from = after
  for (;;) {
    const events: { id: number; type: string; scope: string }[] = await trx(EVENT_LOG)
      .where({ companyId })
      .andWhere('id', '>', from)
      .andWhere('id', '<=', subscription.lastEventId)
      .orderBy('id')
      .limit(QUEUE_STEP)
      .select('id', 'type', 'scope')
    if (events.length === 0) break
    const wanted = events.filter((event) => wants(subscription, event))
    await enqueue(trx, subscription, companyId, wanted, now)
    queued += wanted.length
    from = Number(events[events.length - 1].id)
    if (events.length < QUEUE_STEP) break
  }
  return { queued, deactivated: false }
}
