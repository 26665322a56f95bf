import type { Knex } from 'knex'
import { lockedForWrite } from '../db/dialect'
import { EVENT_LOG, firstQueued, iso, SUBSCRIPTIONS } from './queue'

/**
 * Which instance sends for a subscription (CONTRACT §13.3): one that holds its claim. On
 * PostgreSQL the claim is taken with `FOR NO KEY UPDATE SKIP LOCKED`, so instances never wait for
 * each other's candidates; SQLite runs one write transaction at a time (across processes too:
 * transactions begin IMMEDIATE). A claim expires (`claimed_until`), so the work of an instance
 * that died is taken up by another.
 */

/** A subscription as an instance that claimed it sends for it. */
export interface ClaimedSubscription {
  id: number
  companyId: number
  url: string
  /** The stored (encrypted) signing secret. */
  secret: string
  failingSince: string | null
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

/** The companies that have an active subscription (the dispatcher wakes only for their writes). */
export async function subscribedCompanies(knex: Knex): Promise<number[]> {
  const rows: { companyId: number }[] = await knex(SUBSCRIPTIONS).whereNull('deactivatedAt').distinct('companyId')
  return rows.map((row) => Number(row.companyId))
}

/** Extends the claim; false when it is no longer this instance's (it expired and another took it, or the subscription went). */
export async function renewClaim(knex: Knex, id: number, token: string, until: Date): Promise<boolean> {
  return (await knex(SUBSCRIPTIONS).where({ id, claimedBy: token }).update({ claimedUntil: until.toISOString() })) > 0
}

/**
 * Gives the claim up, noting when the subscription has work next: its first queued delivery's
 * next attempt (null when nothing is queued). The claim's end stays as the time it was last served.
 *
 * The subscription's row is locked before the queue is read, as a replay and the queueing of new
 * events lock it before they queue: a replay that commits while the claim goes back is either
 * seen here, or sees the released row and sets `dueAt` itself. Read unlocked, the queue could be
 * read before a replay committed and `dueAt` written as null after it: the replayed deliveries
 * then waited for the subscription's next event, however long that took.
 */
export async function releaseClaim(knex: Knex, id: number, token: string, now: Date) {
  await knex.transaction(async (trx) => {
    const held = await lockedForWrite(trx, trx(SUBSCRIPTIONS).where({ id, claimedBy: token })).first('id')
    if (!held) return
    const head = await firstQueued(trx, id)
    await trx(SUBSCRIPTIONS)
      .where({ id, claimedBy: token })
      .update({ claimedBy: null, claimedUntil: now.toISOString(), dueAt: head ? iso(head.nextAttemptAt) : null })
  })
}
