import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import { Webhook } from 'standardwebhooks'
import { guardedLookup, publicAddressesOf, RefusedAddress, Resolver } from './addresses'

/**
 * One delivery attempt (CONTRACT §13.3): `POST` of the JSON body to the subscription's URL with
 * the Standard Webhooks headers, signed by the `standardwebhooks` package itself, so its
 * verifier accepts what is sent. `webhook-id` is the event id, the same on every attempt;
 * `webhook-timestamp` is the attempt's time (receivers refuse old timestamps). A 2xx answer
 * within the timeout delivers; redirects are not followed (the target was checked, the
 * redirect's would not be).
 */

export interface Attempt {
  url: string
  /** The event id. */
  id: string
  /** The JSON body, `{ "type", "timestamp", "data" }`. */
  body: string
  signer: Webhook
}

export interface Outcome {
  delivered: boolean
  /** The HTTP status, when the receiver answered. */
  status: number | null
  /** Why the attempt failed, for the deliveries list. */
  error: string | null
}

export interface SenderOptions {
  timeoutMs: number
  allowPrivateUrls: boolean
  resolve: Resolver
}

/** The bytes of an answer read before the connection is dropped: the answer itself is not used. */
const MAX_ANSWER_BYTES = 64 * 1024

/** The body of a delivery: `data` is the event's stored JSON text, passed on without parsing it again. */
export const deliveryBody = (type: string, timestamp: string, data: string) =>
  `{"type":${JSON.stringify(type)},"timestamp":${JSON.stringify(timestamp)},"data":${data}}`

export class WebhookSender {
  private readonly agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 4 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 4 })
  }

  constructor(private readonly options: SenderOptions) {}

  async send(attempt: Attempt): Promise<Outcome> {
    const url = new URL(attempt.url)
    const scheme = url.protocol as 'http:' | 'https:'
    if (!(scheme in this.agents) || (scheme === 'http:' && !this.options.allowPrivateUrls))
      return { delivered: false, status: null, error: `refused: ${scheme}// URLs are not allowed` }
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
    if (!this.options.allowPrivateUrls && net.isIP(host)) {
      // Node connects to an address literal without a lookup: check it here.
      try {
        await publicAddressesOf(host, this.options.resolve)
      } catch (error) {
        return { delivered: false, status: null, error: (error as Error).message }
      }
    }
    const now = new Date()
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'crewclock-webhooks/1',
      'webhook-id': attempt.id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': attempt.signer.sign(attempt.id, now, attempt.body)
    }
    return new Promise<Outcome>((resolve) => {
      let settled = false
      const settle = (outcome: Outcome) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resolve(outcome)
      }
      const request = (scheme === 'https:' ? https : http).request(url, {
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(attempt.body) },
        agent: this.agents[scheme],
        ...(this.options.allowPrivateUrls ? {} : { lookup: guardedLookup(this.options.resolve) })
      })
      const timer = setTimeout(() => {
        request.destroy()
        settle({ delivered: false, status: null, error: `no answer within ${this.options.timeoutMs / 1000} s` })
      }, this.options.timeoutMs)
      request.on('response', (response) => {
        const status = response.statusCode ?? 0
        let read = 0
        response.on('data', (chunk: Buffer) => {
          read += chunk.length
          if (read > MAX_ANSWER_BYTES) response.destroy()
        })
        response.on('error', () => undefined)
        const delivered = status >= 200 && status < 300
        settle({
          delivered,
          status,
          error: delivered
            ? null
            : `HTTP ${status}${response.statusMessage ? ` ${response.statusMessage}` : ''}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`
        })
      })
      request.on('error', (error: NodeJS.ErrnoException) => {
        const reason =
          error instanceof RefusedAddress ? error.message : `${error.code ?? 'error'}: ${error.message}`.slice(0, 500)
        settle({ delivered: false, status: null, error: reason })
      })
      request.end(attempt.body)
    })
  }

  close() {
    for (const agent of Object.values(this.agents)) agent.destroy()
  }
}
