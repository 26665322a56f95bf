import crypto from 'node:crypto'
import os from 'node:os'
import type { Knex } from 'knex'
import { Webhook } from 'standardwebhooks'
import type { Logger } from 'pino'
import type { Configuration } from '../declarations'
import { Resolver, systemResolver } from './addresses'
import { decryptSigningSecret } from './secrets'
import { deliveryBody, WebhookSender } from './send'
import { Pacer } from './pacer'
import { claimSubscriptions, ClaimedSubscription, releaseClaim, renewClaim, subscribedCompanies } from './claims'
import { QUEUE_STEP, QueuedDelivery, queuedDeliveries, queueNewEvents } from './queue'
import { dropExpired, pruneDeliveries, recordDelivered, recordFailure } from './outcomes'

/**
 * Sends webhook deliveries (CONTRACT §13.3) from every instance that runs one
 * (`webhooks.deliver`). It works in rounds: a round claims up to `concurrency` subscriptions
 * that have work and starts one worker per claimed subscription, which queues the subscription's
 * new events and sends its queue in order until the queue is empty, a delivery fails (the
 * failure holds the later ones back until its retry) or `batchSize` deliveries went out; then the
 * claim goes back and the subscription waits its turn behind the others. Workers of different
 * subscriptions do not wait for each other, so a slow or failing receiver delays only itself.
 *
 * Rounds start when the log's wake-up (`event-log.appended` on the bus: a write committed here or,
 * with REDIS_URL, on another instance) names a company with an active subscription, when a
 * subscription is written here, when a retry this instance scheduled comes due, and every
 * `pollMs` (writes of instances it does not hear from, other instances' retries and
 * subscriptions). An idle round is one query over the active subscriptions.
 *
 * While the instance serves requests, the work is paced (`Pacer`, `webhooks.busyPerSecond`).
 *
 * Successes are written in small batches (every `FLUSH_COUNT` deliveries or `FLUSH_MS`): a
 * crash between a receiver's 2xx and that write sends those deliveries again (receivers
 * de-duplicate by `webhook-id`); a stop (SIGTERM) finishes the attempts under way and writes
 * them first, so a restart sends nothing twice.
 */

export type WebhookSettings = Configuration['webhooks']

/** Delivered deliveries are written after this many, or this long after the last write, whichever comes first. */
const FLUSH_COUNT = 25
const FLUSH_MS = 250
/** A burst of writes wakes one round shortly after its first event, not one per event. */
const WAKE_DELAY_MS = 20
const DAY_MS = 24 * 60 * 60 * 1000
/** How often an instance deletes old finished deliveries. */
const PRUNE_INTERVAL_MS = 60 * 60 * 1000
/**
 * A worker's claim on its subscription, renewed every third of its time-to-live from a timer for
 * as long as the worker holds it, so that it cannot lapse while the worker is busy: a send that
 * takes its whole timeout, a paced queueing step, or deliveries sent but not yet written (they
 * are written every FLUSH_MS). Renewed only from the sending loop, a claim could expire between a
 * receiver's 2xx and that write, and another instance that claimed the subscription then sent
 * the same deliveries again. `held()` is false once a renewal found the claim taken (it expired
 * while this instance could not reach the database), or when less than an attempt's timeout is
 * left of the claim since its last successful renewal: an attempt that starts while it is held
 * ends before the claim can.
 */
class ClaimLease {
  private lost = false
  private readonly timer: NodeJS.Timeout
  private renewing: Promise<void> = Promise.resolve()

  constructor(
    private readonly knex: Knex,
    private readonly subscriptionId: number,
    private readonly token: string,
    /** When the claim was taken (its end is this plus `ttlMs`). */
    private renewedAt: number,
    private readonly ttlMs: number,
    private readonly attemptMs: number,
    private readonly logger: Logger
  ) {
    this.timer = setInterval(() => {
      // One renewal at a time: a slow one is not overtaken by the next (end() waits for all).
      this.renewing = this.renewing.then(() => this.renew())
    }, ttlMs / 3)
    this.timer.unref()
  }

  private async renew() {
    if (this.lost) return
    const startedAt = Date.now()
    try {
      if (await renewClaim(this.knex, this.subscriptionId, this.token, new Date(startedAt + this.ttlMs)))
        this.renewedAt = startedAt
      else this.lost = true
    } catch (error) {
      this.logger.warn({ err: error, subscriptionId: this.subscriptionId }, 'webhooks: renewing a claim failed')
    }
  }

  held() {
    return !this.lost && Date.now() - this.renewedAt < this.ttlMs - this.attemptMs
  }

  async end() {
    clearInterval(this.timer)
    await this.renewing
  }
}

/** Steps through the log (each examines up to QUEUE_STEP events) before a batch goes out. */
const MAX_QUEUE_STEPS = 20
/** What one step of queueing weighs against one delivery, for the pacer. */
const QUEUE_STEP_COST = 5

export interface DispatcherOptions {
  knex: Knex
  settings: WebhookSettings
  appSecret: string
  logger: Logger
  /** Deactivates a subscription whose failure window is over (a logged write with its event). */
  deactivate: (companyId: number, subscriptionId: number) => Promise<void>
  resolve?: Resolver
  /** Paces the work while the instance serves requests. */
  pacer: Pacer
  /** Deliveries done this long ago are deleted (the event log's retention). */
  retentionDays: number
}

export class WebhookDispatcher {
  /** Names this instance's claims. */
  readonly token = `${os.hostname().slice(0, 30)}:${process.pid}:${crypto.randomBytes(6).toString('hex')}`
  private readonly working = new Map<number, Promise<void>>()
  private readonly sender: WebhookSender
  private readonly timers = new Set<NodeJS.Timeout>()
  private wakeTimer?: NodeJS.Timeout
  private pollTimer?: NodeJS.Timeout
  private pruneTimer?: NodeJS.Timeout
  private pruning = false
  private round?: Promise<void>
  private again = false
  private stopping = false
  /**
   * The companies with an active subscription, as the last poll read them; null until then. A
   * write of another company wakes no round: most companies have no webhooks, and a round is a
   * claiming transaction on the database. A subscription created here is added at once; one
   * created on another instance is found by the next poll (`pollMs`).
   */
  private subscribed: Set<number> | null = null
  /** One set per poll under way: the companies `subscriptionChanged` named meanwhile. */
  private readonly addedDuringPoll = new Set<Set<number>>()
  private readonly cleanups: (() => void)[] = []

  constructor(private readonly options: DispatcherOptions) {
    const { settings } = options
    // An attempt starts only while more than its timeout is left of the claim, and the claim is
    // renewed every third of its time: with less than two timeouts, attempts would rarely start.
    if (settings.claimTtlMs < 2 * settings.timeoutMs)
      throw new Error(
        `webhooks.claimTtlMs (${settings.claimTtlMs}) must be at least twice webhooks.timeoutMs (${settings.timeoutMs})`
      )
    this.sender = new WebhookSender({
      timeoutMs: settings.timeoutMs,
      allowPrivateUrls: settings.allowPrivateUrls,
      resolve: options.resolve ?? systemResolver
    })
  }

  start() {
    this.pollTimer = setInterval(() => void this.poll(), this.options.settings.pollMs)
    this.pollTimer.unref()
    this.pruneTimer = setInterval(() => void this.prune(), PRUNE_INTERVAL_MS)
    this.pruneTimer.unref()
    void this.poll()
  }

  /** Reads which companies have active subscriptions, then runs a round (due retries, lost wake-ups). */
  private async poll() {
    if (this.stopping) return
    // Companies a subscription was written for while the query ran: its answer may predate them.
    const added = new Set<number>()
    this.addedDuringPoll.add(added)
    try {
      const read = new Set(await subscribedCompanies(this.options.knex))
      for (const companyId of added) read.add(companyId)
      this.subscribed = read
    } catch {
      // The database is away: every write wakes a round until the next poll reads the set.
      this.subscribed = null
    } finally {
      this.addedDuringPoll.delete(added)
    }
    this.wake()
  }

  /** A committed write of `companyId`: a round soon, if the company has webhooks. */
  wrote(companyId: number | undefined) {
    if (companyId !== undefined && this.subscribed && !this.subscribed.has(companyId)) return
    this.wake()
  }

  /** A subscription of `companyId` was created or changed here: its company has webhooks now. */
  subscriptionChanged(companyId: number | undefined) {
    if (companyId !== undefined) {
      this.subscribed?.add(companyId)
      for (const added of this.addedDuringPoll) added.add(companyId)
    }
    this.wake()
  }

  /** Deletes old finished deliveries; instances may do it side by side (a delete by age is idempotent). */
  private async prune() {
    if (this.pruning || this.stopping) return
    this.pruning = true
    try {
      await pruneDeliveries(this.options.knex, new Date(Date.now() - this.options.retentionDays * DAY_MS))
    } catch (error) {
      this.options.logger.warn({ err: error }, 'webhooks: pruning old deliveries failed')
    } finally {
      this.pruning = false
    }
  }

  /** Asks for a round soon (writes call this; many calls in a burst make one round). */
  wake() {
    if (this.stopping || this.wakeTimer) return
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined
      this.startRound()
    }, WAKE_DELAY_MS)
    this.wakeTimer.unref()
  }

  /** A round at `at` (a retry this instance scheduled), when that comes before the next poll. */
  private wakeAt(at: Date) {
    const delay = at.getTime() - Date.now()
    if (this.stopping || delay >= this.options.settings.pollMs) return
    const timer = setTimeout(
      () => {
        this.timers.delete(timer)
        this.wake()
      },
      Math.max(0, delay)
    )
    timer.unref()
    this.timers.add(timer)
  }

  private startRound() {
    if (this.stopping) return
    if (this.round) {
      this.again = true
      return
    }
    this.round = this.claimAndStart()
      .catch((error) => this.options.logger.warn({ err: error }, 'webhooks: claiming work failed'))
      .finally(() => {
        this.round = undefined
        if (this.again) {
          this.again = false
          this.wake()
        }
      })
  }

  private async claimAndStart() {
    const { settings, knex } = this.options
    const free = settings.concurrency - this.working.size
    // A worker that finishes wakes the next round.
    if (free <= 0) return
    const now = new Date()
    const claimed = await claimSubscriptions(knex, {
      token: this.token,
      now,
      until: new Date(now.getTime() + settings.claimTtlMs),
      limit: free
    })
    for (const subscription of claimed) {
      let failed = false
      const work = this.work(subscription, now.getTime())
        .catch((error) => {
          failed = true
          this.options.logger.warn({ err: error, subscriptionId: subscription.id }, 'webhooks: sending failed')
        })
        .finally(() => {
          this.working.delete(subscription.id)
          // After an error (the database away) the next poll tries again, not at once.
          if (!failed) this.wake()
        })
      this.working.set(subscription.id, work)
    }
    if (claimed.length === free) this.again = true
  }

  /** Queues and sends for one claimed subscription, then gives the claim back. */
  private async work(subscription: ClaimedSubscription, claimedAt: number) {
    const { knex, settings, appSecret, logger } = this.options
    const lease = new ClaimLease(
      knex,
      subscription.id,
      this.token,
      claimedAt,
      settings.claimTtlMs,
      settings.timeoutMs,
      logger
    )
    try {
      const signer = new Webhook(decryptSigningSecret(subscription.secret, appSecret))
      const stopped = () => this.stopping
      let sent = 0
      while (!this.stopping && sent < settings.batchSize) {
        const wanted = settings.batchSize - sent
        let queue = await queuedDeliveries(knex, subscription.id, wanted)
        // The log is read as the deliveries go out, a batch ahead: a burst is queued at the pace it is sent.
        let queued = queue.length
        for (let step = 0; queued < wanted && step < MAX_QUEUE_STEPS; step++) {
          if (!(await this.options.pacer.turn(QUEUE_STEP_COST, stopped))) return
          const found = await queueNewEvents(knex, subscription.companyId, subscription.id, wanted - queued, new Date())
          queued += found.queued
          if (found.examined < QUEUE_STEP) break
        }
        if (queued > queue.length) queue = await queuedDeliveries(knex, subscription.id, wanted)
        if (queue.length === 0) break
        const due = new Date(queue[0].nextAttemptAt)
        if (due.getTime() > Date.now()) {
          this.wakeAt(due)
          break
        }
        const result = await this.sendInOrder(subscription, signer, queue, () => lease.held())
        sent += result.sent
        if (result.stop) break
      }
    } finally {
      // Renewed until the claim goes back: the deliveries this worker sent are written by then.
      await lease.end()
      await releaseClaim(knex, subscription.id, this.token, new Date())
    }
  }

  /**
   * Sends `queue` in order while each delivery succeeds; a failure is recorded with its retry
   * (or, past the failure window, deactivates the subscription) and ends the run.
   */
  private async sendInOrder(
    subscription: ClaimedSubscription,
    signer: Webhook,
    queue: QueuedDelivery[],
    holdsClaim: () => boolean
  ): Promise<{ sent: number; stop: boolean }> {
    const { knex, settings } = this.options
    const delivered: { id: number; status: number }[] = []
    const expired: number[] = []
    let flushedAt = Date.now()
    const flush = async () => {
      // Taken off the lists only once written: a failed write is tried again at the next flush.
      await recordDelivered(knex, subscription.id, delivered, new Date())
      delivered.length = 0
      await dropExpired(knex, expired)
      expired.length = 0
      flushedAt = Date.now()
    }
    let sent = 0
    try {
      for (const delivery of queue) {
        if (!(await this.options.pacer.turn(1, () => this.stopping)) || !holdsClaim()) return { sent, stop: true }
        if (delivery.data === null || delivery.occurredAt === null) {
          expired.push(delivery.id)
          continue
        }
        const outcome = await this.sender.send({
          url: subscription.url,
          id: delivery.eventId,
          body: deliveryBody(delivery.type, delivery.occurredAt, delivery.data),
          signer
        })
        if (outcome.delivered) {
          delivered.push({ id: delivery.id, status: outcome.status! })
          sent++
          if (delivered.length >= FLUSH_COUNT || Date.now() - flushedAt >= FLUSH_MS) await flush()
          continue
        }
        await flush()
        const next = await recordFailure(knex, subscription, delivery, outcome, new Date(), settings)
        if (next) this.wakeAt(next)
        else await this.options.deactivate(subscription.companyId, subscription.id)
        return { sent, stop: true }
      }
      return { sent, stop: false }
    } finally {
      await flush()
    }
  }

  /** Runs `cleanup` when the dispatcher stops (the listeners that wake it). */
  onStop(cleanup: () => void) {
    this.cleanups.push(cleanup)
  }

  /** Stops claiming; the attempts under way finish and are written, the claims go back. */
  async stop() {
    this.stopping = true
    for (const cleanup of this.cleanups.splice(0)) cleanup()
    clearInterval(this.pollTimer)
    clearInterval(this.pruneTimer)
    clearTimeout(this.wakeTimer)
    for (const timer of this.timers) clearTimeout(timer)
    await this.round
    await Promise.allSettled([...this.working.values()])
    this.sender.close()
  }
}
