import { createClient } from 'redis'
import type { Logger } from 'pino'
import { BaseBus, BusEnvelope, parseEnvelope } from './bus'

type RedisClient = ReturnType<typeof createClient>

/** Reconnects quickly after a restart of Redis, then backs off to once every 2 s. */
const reconnectStrategy = (retries: number) => Math.min(50 * 2 ** retries, 2000)

/**
 * The bus over Redis pub/sub (REDIS_URL): one connection publishes, one subscribes to the one
 * channel of the deployment. The instance starts whether or not Redis answers: it connects in the
 * background, forever, and says `up` once both connections are ready and the subscription is in
 * place (node-redis renews it on every reconnect before it reports ready), `down` as soon as
 * either connection is lost. Publishing never queues while Redis is away (`disableOfflineQueue`):
 * a message that would arrive minutes later, after the clients have resynced, is worse than one
 * that is reported lost at once.
 */
export class RedisBus extends BaseBus {
  readonly kind = 'redis'
  private readonly pub: RedisClient
  private readonly sub: RedisClient
  private up = false
  private closed = false

  constructor(
    url: string,
    private readonly channel: string,
    logger: Logger
  ) {
    super(logger)
    this.pub = createClient({ url, disableOfflineQueue: true, socket: { reconnectStrategy } })
    this.sub = this.pub.duplicate()
    let warned = false
    for (const client of [this.pub, this.sub]) {
      client.on('error', (error) => {
        // Every failed reconnect is an error: one warning per outage is enough.
        if (!warned) logger.warn({ err: error }, 'sync bus: Redis unreachable; realtime is degraded until it is back')
        warned = true
        this.update()
      })
      client.on('end', () => this.update())
      client.on('ready', () => {
        warned = false
        this.update()
      })
    }
    this.pub.connect().catch(() => undefined)
    this.sub
      .connect()
      .then(() =>
        this.sub.subscribe(this.channel, (raw) => {
          const envelope = parseEnvelope(raw)
          if (envelope) this.receive(envelope)
        })
      )
      .then(() => this.update())
      .catch(() => undefined)
  }

  get connected() {
    return this.up
  }

  /** Compares the clients' state with the last one reported and reports a change. */
  private update() {
    const subscribed = this.sub.isReady && this.sub.isPubSubActive
    const now = !this.closed && this.pub.isReady && subscribed
    if (now === this.up) return
    this.up = now
    if (!this.closed) this.logger[now ? 'info' : 'warn'](`sync bus: Redis ${now ? 'connected' : 'lost'}`)
    this.emit(now ? 'up' : 'down')
  }

  protected async send(envelope: BusEnvelope) {
    await this.pub.publish(this.channel, JSON.stringify(envelope))
  }

  async close() {
    this.closed = true
    this.update()
    this.removeAllListeners()
    // close() waits for a connection that is not there; destroy() ends the reconnect loop at once.
    await Promise.allSettled(
      [this.sub, this.pub].map(async (client) => (client.isReady ? client.close() : client.destroy()))
    )
  }
}
