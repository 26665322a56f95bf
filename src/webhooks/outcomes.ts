import type { Knex } from 'knex'
import { DELIVERIES, QueuedDelivery, SUBSCRIPTIONS } from './queue'

/** What the attempts leave in the queue (CONTRACT §13.3): delivered, retried, given up, pruned. */

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
 * Deletes the deliveries queued before `cutoff` that are done (delivered or given up): the list
 * keeps as long a history as the event log (`events.retentionDays`). Returns how many.
 */
export async function pruneDeliveries(knex: Knex, cutoff: Date): Promise<number> {
  return knex(DELIVERIES).where('createdAt', '<', cutoff.toISOString()).whereNull('nextAttemptAt').delete()
}
