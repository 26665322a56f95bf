import cluster from 'node:cluster'
import type { Logger } from 'pino'
import { BaseBus, BusEnvelope, parseEnvelope } from './bus'

/** Marks the IPC messages that are bus envelopes (rate-limiter-flexible shares the channel). */
const TAG = 'crewclockBus'

/**
 * The bus between the workers of one `crewclock serve` (WEB_CONCURRENCY > 1) without Redis: each
 * worker sends its messages to the primary, which passes them to every other worker
 * (`relayClusterBus`). IPC between a worker and the primary keeps order and loses nothing while
 * both live, so this bus is always connected.
 */
export class ClusterBus extends BaseBus {
  readonly kind = 'cluster'
  readonly connected = true
  private readonly onMessage = (message: unknown) => {
    const envelope = parseEnvelope((message as Record<string, unknown> | null)?.[TAG])
    if (envelope) this.receive(envelope)
  }

  constructor(logger: Logger) {
    super(logger)
    process.on('message', this.onMessage)
  }

  protected send(envelope: BusEnvelope) {
    return new Promise<void>((resolve, reject) => {
      if (!process.send || !process.connected) return reject(new Error('no IPC channel to the cluster primary'))
      process.send({ [TAG]: envelope }, undefined, {}, (error) => (error ? reject(error) : resolve()))
    })
  }

  async close() {
    process.off('message', this.onMessage)
    this.removeAllListeners()
  }
}

/** In the cluster primary: every bus envelope a worker sends goes to every other worker. */
export function relayClusterBus(logger: Logger) {
  cluster.on('message', (from, message: unknown) => {
    if (!(message as Record<string, unknown> | null)?.[TAG]) return
    for (const worker of Object.values(cluster.workers ?? {})) {
      if (!worker || worker === from || !worker.isConnected()) continue
      worker.send(message as object, undefined, (error) => {
        // A worker that is exiting misses the message, and its sockets with it.
        if (error) logger.debug({ err: error, pid: worker.process.pid }, 'sync bus: relay to a worker failed')
      })
    }
  })
}
