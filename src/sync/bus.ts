import { EventEmitter } from 'node:events'
import crypto from 'node:crypto'
import type { Logger } from 'pino'

declare module '../declarations' {
  interface Configuration {
    /** Set by createApp(): messages between the instances of the deployment (`src/sync/`). */
    bus: SyncBus
  }
}

/** Where the messages travel: Redis pub/sub, the cluster primary (IPC), or nowhere beyond this process. */
export type BusKind = 'redis' | 'cluster' | 'local'

/** A message on the wire: who sent it (to skip one's own), its topic and the JSON value. */
export interface BusEnvelope {
  origin: string
  topic: string
  message: unknown
}

/**
 * Publish/subscribe of JSON messages between the processes that serve one deployment: every
 * subscriber of a topic on every instance gets every message published on it, in the order one
 * instance published them. It carries wake-ups (the event log grew: realtime reads it) and control
 * messages (a revoked key), never data that must arrive: messages are JSON values: a subscriber on
 * another instance gets a parsed copy, one on this instance the published value itself, which it
 * must not change.
 *
 * Delivery is at most once: while the transport is down (`connected` false, Redis unreachable)
 * other instances miss what is published, so a user of the bus has a way to repair (realtime polls
 * the event log, each instance checks its sockets' keys), or listens to `down` and `up`.
 */
export interface SyncBus {
  readonly kind: BusKind
  /** True while a message published now reaches every instance (always true for the cluster and local buses). */
  readonly connected: boolean
  /**
   * Delivers to this instance's subscribers at once, then hands the message to the transport;
   * rejects when the transport did not take it (other instances then may not get it).
   */
  publish(topic: string, message: unknown): Promise<void>
  /** Returns the function that ends the subscription. */
  subscribe(topic: string, handler: (message: unknown) => void): () => void
  /** `down`: messages may be lost from now on; `up`: they reach every instance again. */
  on(event: 'up' | 'down', listener: () => void): this
  off(event: 'up' | 'down', listener: () => void): this
  close(): Promise<void>
}

/** Subscribers and local delivery, shared by the transports. */
export abstract class BaseBus extends EventEmitter implements SyncBus {
  abstract readonly kind: BusKind
  abstract readonly connected: boolean
  readonly origin = crypto.randomUUID()
  private readonly handlers = new Map<string, Set<(message: unknown) => void>>()

  constructor(protected readonly logger: Logger) {
    super()
  }

  /** Hands the envelope to the other instances. */
  protected abstract send(envelope: BusEnvelope): Promise<void>
  abstract close(): Promise<void>

  async publish(topic: string, message: unknown): Promise<void> {
    this.deliver(topic, message)
    await this.send({ origin: this.origin, topic, message })
  }

  subscribe(topic: string, handler: (message: unknown) => void) {
    const set = this.handlers.get(topic) ?? new Set()
    this.handlers.set(topic, set)
    set.add(handler)
    return () => void set.delete(handler)
  }

  /** A message from another instance (its own come back on some transports and are skipped). */
  protected receive(envelope: BusEnvelope) {
    if (envelope.origin !== this.origin) this.deliver(envelope.topic, envelope.message)
  }

  private deliver(topic: string, message: unknown) {
    for (const handler of this.handlers.get(topic) ?? []) {
      // One failing subscriber must not keep the message from the others, nor fail the publisher.
      try {
        handler(message)
      } catch (error) {
        this.logger.error({ err: error, topic }, 'bus subscriber failed')
      }
    }
  }
}

/** One process serves the deployment: local delivery is all there is. */
export class LocalBus extends BaseBus {
  readonly kind = 'local'
  readonly connected = true
  protected async send() {}
  async close() {
    this.removeAllListeners()
  }
}

/** Parses an envelope from the wire; null for anything else (another program on the same channel). */
export function parseEnvelope(raw: unknown): BusEnvelope | null {
  const value = typeof raw === 'string' ? safeParse(raw) : raw
  if (!value || typeof value !== 'object') return null
  const { origin, topic } = value as Partial<BusEnvelope>
  return typeof origin === 'string' && typeof topic === 'string' ? (value as BusEnvelope) : null
}

function safeParse(raw: string): unknown {
  try {
    return JSON.parse(raw)
  } catch {
    return null
  }
}
