import type { Server } from 'node:http'

/**
 * Keeps a delivery burst from slowing the API (docs/decisions.md, "Webhook delivery yields to
 * requests"). Sending, signing and queueing take the same thread and, on SQLite, the same
 * database connection as the requests: while this process is serving requests (one is under way,
 * or one ended less than `quietMs` ago) deliveries go out at `busyPerSecond` at most; when it has
 * none, at full speed. A burst therefore drains at once on a quiet instance and slowly, but
 * steadily, under load.
 */
export class Pacer {
  private inFlight = 0
  private lastRequestAt = 0
  /** The earliest time the next unit of work may start while busy. */
  private nextSlot = 0

  constructor(
    private readonly busyPerSecond: number,
    private readonly quietMs = 100
  ) {}

  /** Follows the requests of `server` (REST; socket calls ride on connections it does not count). */
  watch(server: Server) {
    server.on('request', (_request, response) => {
      this.inFlight++
      this.lastRequestAt = Date.now()
      response.once('close', () => {
        this.inFlight--
        this.lastRequestAt = Date.now()
      })
    })
  }

  get busy() {
    return this.inFlight > 0 || Date.now() - this.lastRequestAt < this.quietMs
  }

  /**
   * Resolves when `cost` units of work (a delivery is one) may start; false when `stopped()`
   * became true while it waited.
   */
  async turn(cost: number, stopped: () => boolean): Promise<boolean> {
    for (;;) {
      if (stopped()) return false
      const now = Date.now()
      if (!this.busy) {
        this.nextSlot = now
        return true
      }
      if (this.nextSlot <= now) {
        this.nextSlot = now + (cost * 1000) / this.busyPerSecond
        return true
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(this.nextSlot - now, this.quietMs)))
    }
  }
}
