import type { Knex } from 'knex'
import { allows, parseStoredScopes } from '../auth/scopes'
import { lockedForWrite } from '../db/dialect'
import { typeMatches } from './event-types'
import { EVENT_TABLE } from '../events/event-log'

/**
 * The delivery queue in the database (CONTRACT §13.3). Each subscription keeps its own position
 * in the company's event log (`last_event_id`): the events after it are queued as deliveries
 * (`queueNewEvents`, about a batch ahead of the sending), which go out in delivery id order.
 * An instance works on a subscription only while it holds the subscription's claim
 * (`claimSubscriptions`): on PostgreSQL the claim is taken with `FOR NO KEY UPDATE SKIP LOCKED`,
 * so instances never wait for each other's candidates; SQLite runs one write transaction at a
 * time (across processes too: transactions begin IMMEDIATE). A claim expires (`claimed_until`),
 * so the work of an instance that died is taken up by another.
 */

export const SUBSCRIPTIONS = 'webhook_subscriptions'
export const DELIVERIES = 'webhook_deliveries'
export const EVENT_LOG = EVENT_TABLE

/** Events examined per step of queueing: a step is one short transaction. */
export const QUEUE_STEP = 500

const iso = (value: unknown) => (value == null ? null : new Date(value as string).toISOString())
const json = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value)

/** A subscription as an instance that claimed it sends for it. */
export interface ClaimedSubscription {
  id: number
  companyId: number
  url: string
  /** The stored (encrypted) signing secret. */
  secret: string
  failingSince: string | null
}

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

/** The id of the company's newest event (0 for an empty log): a new or reactivated subscription starts after it. */
export async function logHead(db: Knex, companyId: number): Promise<number> {
  const row = await db(EVENT_LOG).where({ companyId }).max({ head: 'id' }).first()
  return Number(row?.head ?? 0)
}

const forClaiming = <Q extends Knex.QueryBuilder>(trx: Knex.Transaction, query: Q): Q =>
  trx.client.config.client === 'pg' ? (query.forNoKeyUpdate().skipLocked() as Q) : query

/**
 * Claims up to `limit` active subscriptions that have work (a queued delivery that is due, or
 * nothing queued and events after their position in the log) and no live claim, least recently
 * served first. A subscription whose first delivery waits for its retry has nothing to do until
 * then: the events behind it are queued when it goes on.
 */
export async function claimSubscriptions(
  knex: Knex,
  claim: { token: string; now: Date; until: Date; limit: number }
): Promise<ClaimedSubscription[]> {
  const now = claim.now.toISOString()
  return knex.transaction(async (trx) => {
    const candidates = forClaiming(
      trx,
      trx(`${SUBSCRIPTIONS} as s`)
        .select('s.id')
        .whereNull('s.deactivatedAt')
        .andWhere((free) => free.whereNull('s.claimedUntil').orWhere('s.claimedUntil', '<', now))
        .andWhere((work) =>
          work
            .where('s.dueAt', '<=', now)
            .orWhereExists((events) =>
              events
                .select(trx.raw('1'))
                .from(`${EVENT_LOG} as e`)
                .whereRaw('?? = ??', ['e.companyId', 's.companyId'])
                .andWhereRaw('?? > ??', ['e.id', 's.lastEventId'])
            )
        )
        .orderByRaw('?? asc nulls first', ['s.claimedUntil'])
        .limit(claim.limit)
    )
    const ids = (await candidates).map((row: { id: number }) => row.id)
    if (ids.length === 0) return []
    await trx(SUBSCRIPTIONS)
      .whereIn('id', ids)
      .update({ claimedBy: claim.token, claimedUntil: claim.until.toISOString() })
    const rows = await trx(SUBSCRIPTIONS).whereIn('id', ids).select('id', 'companyId', 'url', 'secret', 'failingSince')
    return rows.map((row) => ({ ...row, failingSince: iso(row.failingSince) }))
  })
}

/** Extends the claim; false when it is no longer this instance's (it expired and another took it, or the subscription went). */
export async function renewClaim(knex: Knex, id: number, token: string, until: Date): Promise<boolean> {
  return (await knex(SUBSCRIPTIONS).where({ id, claimedBy: token }).update({ claimedUntil: until.toISOString() })) > 0
}

/**
 * Gives the claim up, noting when the subscription has work next: its first queued delivery's
 * next attempt (null when nothing is queued). The claim's end stays as the time it was last served.
 */
export async function releaseClaim(knex: Knex, id: number, token: string, now: Date) {
  const head = await firstQueued(knex, id)
  await knex(SUBSCRIPTIONS)
    .where({ id, claimedBy: token })
    .update({ claimedBy: null, claimedUntil: now.toISOString(), dueAt: head ? iso(head.nextAttemptAt) : null })
}

const firstQueued = (db: Knex, subscriptionId: number) =>
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
  return knex.transaction(async (trx) => {
    const subscription = await lockSubscription(trx, companyId, subscriptionId)
    if (!subscription || subscription.deactivatedAt) return { examined: 0, queued: 0 }
    const events: { id: number; type: string; scope: string; own: string | null }[] = await trx(EVENT_LOG)
      .where({ companyId })
      .andWhere('id', '>', subscription.lastEventId)
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

/** Notes deliveries that were delivered, and that the subscription works (a success ends a failure window). */
export async function recordDelivered(
  knex: Knex,
  subscriptionId: number,
  delivered: { id: number; status: number }[],
  at: Date
) {
  if (delivered.length === 0) return
  const byStatus = new Map<number, number[]>()
  for (const { id, status } of delivered) byStatus.set(status, [...(byStatus.get(status) ?? []), id])
  await knex.transaction(async (trx) => {
    for (const [status, ids] of byStatus) {
      await trx(DELIVERIES)
        .whereIn('id', ids)
        .update({
          attempts: trx.raw('?? + 1', ['attempts']),
          lastStatus: status,
          lastError: null,
          deliveredAt: at.toISOString(),
          nextAttemptAt: null
        })
    }
    await trx(SUBSCRIPTIONS).where({ id: subscriptionId }).whereNotNull('failingSince').update({ failingSince: null })
  })
}

/** Gives up deliveries whose event retention removed from the log before they went out. */
export async function dropExpired(knex: Knex, ids: number[]) {
  if (ids.length === 0) return
  await knex(DELIVERIES)
    .whereIn('id', ids)
    .update({ nextAttemptAt: null, lastError: 'not sent: the event was removed from the log (retention)' })
}

export interface FailurePolicy {
  retryDelaysMs: number[]
  failureWindowMs: number
}

/**
 * Notes a failed attempt. Within the failure window (counted from the subscription's first
 * failure since its last success) the delivery is tried again after the next delay of the
 * schedule, and the deliveries queued behind it wait as long; past it, the caller deactivates the
 * subscription. Returns when the next attempt is due, or null when the window is over.
 */
export async function recordFailure(
  knex: Knex,
  subscription: { id: number; failingSince: string | null },
  delivery: QueuedDelivery,
  outcome: { status: number | null; error: string | null },
  now: Date,
  policy: FailurePolicy
): Promise<Date | null> {
  const failingSince = subscription.failingSince ?? now.toISOString()
  const attempts = delivery.attempts + 1
  const windowOver = now.getTime() - Date.parse(failingSince) >= policy.failureWindowMs
  const delays = policy.retryDelaysMs
  const next = windowOver ? null : new Date(now.getTime() + delays[Math.min(attempts, delays.length) - 1])
  await knex.transaction(async (trx) => {
    await trx(DELIVERIES)
      .where({ id: delivery.id })
      .update({
        attempts,
        lastStatus: outcome.status,
        lastError: outcome.error,
        nextAttemptAt: next && next.toISOString()
      })
    if (next) {
      await trx(DELIVERIES)
        .where({ subscriptionId: subscription.id })
        .whereNotNull('nextAttemptAt')
        .andWhere('nextAttemptAt', '<', next.toISOString())
        .update({ nextAttemptAt: next.toISOString() })
    }
    await trx(SUBSCRIPTIONS)
      .where({ id: subscription.id })
      .update({ failingSince, dueAt: next && next.toISOString() })
  })
  subscription.failingSince = failingSince
  return next
}

/**
 * What deactivating a subscription does to its queue, in the deactivating write: every queued
 * delivery is given up (a replay after reactivation sends them again), and the subscription has
 * no work and no failure window left.
 */
export async function abandonQueue(trx: Knex.Transaction, companyId: number, subscriptionId: number) {
  await trx(DELIVERIES)
    .where({ companyId, subscriptionId })
    .whereNotNull('nextAttemptAt')
    .update({
      nextAttemptAt: null,
      lastError: trx.raw('coalesce(??, ?)', ['lastError', 'not sent: the subscription was deactivated'])
    })
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

/**
 * Deletes the deliveries queued before `cutoff` that are done (delivered or given up): the list
 * keeps as long a history as the event log (`events.retentionDays`). Returns how many.
 */
export async function pruneDeliveries(knex: Knex, cutoff: Date): Promise<number> {
  return knex(DELIVERIES).where('createdAt', '<', cutoff.toISOString()).whereNull('nextAttemptAt').delete()
}
