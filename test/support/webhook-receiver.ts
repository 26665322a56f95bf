import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'

/**
 * A webhook receiver on 127.0.0.1 for the delivery tests: it records every request it gets
 * and answers as the test tells it per path (`answer`), 200 by default. Signatures are checked
 * with the `standardwebhooks` package, the way an integrator's receiver does (`verified`).
 */
export interface ReceivedDelivery {
  path: string
  id: string
  timestamp: string
  signature: string
  body: string
  /** The status the receiver answered. */
  status: number
  at: number
}

export type Answer = (delivery: ReceivedDelivery) => number | Promise<number>

export class WebhookReceiver {
  readonly received: ReceivedDelivery[] = []
  /** Requests that arrived and have not been answered yet, per path. */
  private readonly waiting = new Map<string, number>()
  private readonly answers = new Map<string, Answer>()
  private server?: http.Server
  url = ''

  async start() {
    this.server = http.createServer((req, res) => {
      let body = ''
      req.setEncoding('utf8')
      req.on('data', (chunk: string) => (body += chunk))
      req.on('end', async () => {
        const delivery: ReceivedDelivery = {
          path: req.url ?? '',
          id: String(req.headers['webhook-id'] ?? ''),
          timestamp: String(req.headers['webhook-timestamp'] ?? ''),
          signature: String(req.headers['webhook-signature'] ?? ''),
          body,
          status: 200,
          at: Date.now()
        }
        const answer = this.answers.get(delivery.path)
        this.waiting.set(delivery.path, this.inFlight(delivery.path) + 1)
        delivery.status = answer ? await answer(delivery) : 200
        this.waiting.set(delivery.path, this.inFlight(delivery.path) - 1)
        this.received.push(delivery)
        res.writeHead(delivery.status, { 'content-type': 'text/plain' }).end('ok')
      })
    })
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
    return this
  }

  /** How `path` answers from now on. */
  answer(path: string, answer: Answer) {
    this.answers.set(path, answer)
  }

  /** Requests to `path` that are waiting for their answer. */
  inFlight(path: string) {
    return this.waiting.get(path) ?? 0
  }

  /** The deliveries to `path` in the order they were answered (2xx or not). */
  to(path: string) {
    return this.received.filter((delivery) => delivery.path === path)
  }

  /** The deliveries to `path` that the receiver accepted (2xx). */
  accepted(path: string) {
    return this.to(path).filter((delivery) => delivery.status >= 200 && delivery.status < 300)
  }

  async stop() {
    this.server?.closeAllConnections()
    await new Promise((resolve) => this.server?.close(resolve) ?? resolve(undefined))
  }
}

/** The payload when the signature is valid for `secret`; throws (the package's error) when it is not. */
export function verified(delivery: ReceivedDelivery, secret: string) {
  return new Webhook(secret).verify(delivery.body, {
    'webhook-id': delivery.id,
    'webhook-timestamp': delivery.timestamp,
    'webhook-signature': delivery.signature
  }) as { type: string; timestamp: string; data: Record<string, unknown> }
}
