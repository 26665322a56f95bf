import cluster from 'node:cluster'
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import type { Context, Next } from 'koa'
import { createClient } from 'redis'
import {
  RateLimiterAbstract,
  RateLimiterCluster,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes
} from 'rate-limiter-flexible'
import { TooManyRequests } from '@feathersjs/errors'
import type { Logger } from 'pino'
import type { ProxyTrust } from './trust-proxy'

declare module '../declarations' {
  interface Configuration {
    /** Set by createApp(). */
    rateLimits: RateLimits
    /** `rateLimits.keyBudget`: null when keys are unlimited. */
    keyBudget: KeyBudget | null
  }
}

/**
 * The limits of CONTRACT §10.2, on rate-limiter-flexible. Counters live where every process that
 * serves the deployment sees them: in Redis with REDIS_URL (every instance), else in the cluster
 * primary when WEB_CONCURRENCY > 1 (every worker), else in this process.
 */

export interface CounterStore {
  /** A counter of `points` per `duration` seconds, shared as described above. */
  limiter(name: string, points: number, duration: number): RateLimiterAbstract
  close(): Promise<void>
}

export function counterStore(options: { redisUrl?: string; namespace: string; logger: Logger }): CounterStore {
  const { redisUrl, namespace, logger } = options
  if (redisUrl) {
    // Commands fail at once while Redis is away (no offline queue), so the in-memory insurance
    // counts instead and requests never wait for, or fail because of, the limiter.
    const client = createClient({
      url: redisUrl,
      disableOfflineQueue: true,
      // A Redis that stops answering with its connection open would hold every request: a ping a
      // second, and a connection silent for 3 s is dropped (the insurance counts until it is back).
      pingInterval: 1000,
      socket: { reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 5000), socketTimeout: 3000 }
    })
    let warned = false
    client.on('error', (error) => {
      if (!warned) logger.warn({ err: error }, 'rate limits: Redis unreachable; counting in memory until it is back')
      warned = true
    })
    client.on('ready', () => (warned = false))
    client.connect().catch(() => undefined)
    return {
      limiter: (name, points, duration) =>
        new RateLimiterRedis({
          storeClient: client,
          useRedisPackage: true,
          rejectIfRedisNotReady: true,
          keyPrefix: `${namespace}:rate-limit:${name}`,
          points,
          duration,
          insuranceLimiter: new RateLimiterMemory({ keyPrefix: `${namespace}:rate-limit:${name}`, points, duration })
        }),
      close: async () => {
        if (client.isOpen) await client.quit().catch(() => client.destroy())
        else client.destroy()
      }
    }
  }
  if (cluster.isWorker) {
    // The primary holds the counters (RateLimiterClusterMaster, created by `serve`).
    return {
      limiter: (name, points, duration) =>
        new RateLimiterCluster({ keyPrefix: `${namespace}:${name}`, points, duration, timeoutMs: 1000 }),
      close: async () => undefined
    }
  }
  return {
    limiter: (name, points, duration) => new RateLimiterMemory({ keyPrefix: `${namespace}:${name}`, points, duration }),
    close: async () => undefined
  }
}

const secondsUntil = (state: RateLimiterRes) => Math.max(1, Math.ceil(state.msBeforeNext / 1000))

export function tooMany(state: RateLimiterRes) {
  const retryAfter = secondsUntil(state)
  // The REST error handler turns data.retryAfter into the Retry-After header; sockets see it in data.
  return new TooManyRequests(`Too many requests; retry in ${retryAfter} s`, { retryAfter })
}

/**
 * Spends one point; the state, or `null` when the store itself failed. A limiter that cannot
 * count lets the request through (fail-open): an outage of the counters must not become an
 * outage of the API.
 */
async function spend(
  limiter: RateLimiterAbstract,
  key: string,
  logger: Logger
): Promise<{ allowed: boolean; state: RateLimiterRes } | null> {
  try {
    return { allowed: true, state: await limiter.consume(key) }
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return { allowed: false, state: rejection }
    logger.warn({ err: rejection }, 'rate limit not counted')
    return null
  }
}

/** Looks without spending: the TooManyRequests for a key that has used up `points`, else null (also when the store fails). */
async function refusal(
  limiter: RateLimiterAbstract,
  key: string,
  points: number,
  logger: Logger
): Promise<TooManyRequests | null> {
  try {
    const state = await limiter.get(key)
    return state && state.consumedPoints >= points ? tooMany(state) : null
  } catch (error) {
    logger.warn({ err: error }, 'rate limit not read')
    return null
  }
}

/**
 * Failed authentications per client address. A failure is counted after it happened, so a
 * valid key is never refused; password logins also ask `refusal` before the password is
 * compared, so a limited address cannot keep guessing (CONTRACT §10.2, docs/decisions.md).
 */
export class AuthFailureLimit {
  constructor(
    private readonly limiter: RateLimiterAbstract,
    readonly points: number,
    private readonly logger: Logger
  ) {}

  /** Counts one failure; the TooManyRequests to answer instead once the address is over its budget. */
  async fail(address: string): Promise<TooManyRequests | null> {
    const counted = await spend(this.limiter, address, this.logger)
    return counted && !counted.allowed ? tooMany(counted.state) : null
  }

  /** The TooManyRequests for an address that has used up its failures, else null. */
  refusal(address: string): Promise<TooManyRequests | null> {
    return refusal(this.limiter, address, this.points, this.logger)
  }
}

/** IETF RateLimit header fields of a key's budget (seconds until the window resets). */
export type RateLimitHeaders = Record<string, string>

/** Requests per API key per minute; `perKey: 0` builds no budget at all. */
export class KeyBudget {
  constructor(
    private readonly limiter: RateLimiterAbstract,
    readonly points: number,
    readonly duration: number,
    private readonly logger: Logger
  ) {}

  /** Spends one request of the key; fills `headers` (REST) and throws TooManyRequests when the budget is gone. */
  async spend(apiKeyId: number, headers?: RateLimitHeaders) {
    const counted = await spend(this.limiter, String(apiKeyId), this.logger)
    if (!counted) return
    if (headers) {
      Object.assign(headers, {
        'RateLimit-Limit': String(this.points),
        'RateLimit-Remaining': String(counted.state.remainingPoints),
        'RateLimit-Reset': String(secondsUntil(counted.state)),
        'RateLimit-Policy': `${this.points};w=${this.duration}`
      })
    }
    if (!counted.allowed) throw tooMany(counted.state)
  }

  /** The TooManyRequests for a key that has used up its budget, without spending (uploads check it before streaming). */
  refusal(apiKeyId: number): Promise<TooManyRequests | null> {
    return refusal(this.limiter, String(apiKeyId), this.points, this.logger)
  }
}

/** The header fields a browser integration may read (CORS). */
export const RATE_LIMIT_HEADERS = [
  'Retry-After',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'RateLimit-Policy'
]

const CLIENT_ADDRESS = Symbol('crewclock.clientAddress')

/**
 * Records the client address on a request's header object. Feathers hands that same object to
 * services as `params.headers` on REST and on sockets (the handshake's headers), so the
 * authentication hooks find the address without trusting anything the client sent.
 */
export function stampClientAddress(req: IncomingMessage, trust: ProxyTrust) {
  const address = trust.clientAddress(req)
  Object.defineProperty(req.headers, CLIENT_ADDRESS, { value: address, enumerable: false, configurable: true })
  return address
}

export const stampedClientAddress = (headers: IncomingHttpHeaders | undefined): string | undefined =>
  (headers as Record<typeof CLIENT_ADDRESS, string | undefined> | undefined)?.[CLIENT_ADDRESS]

const UNLIMITED_PATHS = new Set(['/health', '/ready'])

/**
 * REST: every 401 counts against the client address and, over the budget, becomes a 429. The
 * per-key budget of an authenticated /v1 request is filled in by `requireApiKey` and sent here,
 * on success and on error.
 */
export const limitFailedAuthentication =
  (failures: AuthFailureLimit, trust: ProxyTrust) => async (ctx: Context, next: Next) => {
    if (UNLIMITED_PATHS.has(ctx.path)) return next()
    const address = stampClientAddress(ctx.req, trust)
    const rateLimitHeaders: RateLimitHeaders = {}
    const feathers = { ...ctx.feathers, rateLimitHeaders }
    ctx.feathers = feathers
    try {
      await next()
    } catch (error) {
      ctx.set(rateLimitHeaders)
      if ((error as { code?: unknown } | undefined)?.code === 401) throw (await failures.fail(address)) ?? error
      throw error
    }
    ctx.set(rateLimitHeaders)
    if (ctx.status === 401) {
      const refusal = await failures.fail(address)
      if (refusal) throw refusal
    }
  }

/**
 * Requests refused before a service ran (405, 413, 415, malformed JSON, an unknown /v1 route)
 * spend the key's budget as well and carry its RateLimit fields: every /v1 response does
 * (CONTRACT §10.2), and a key over its budget must not keep a server busy with them. The key is
 * looked up only here, on refusals the service hooks never saw; a request whose hooks already
 * spent its point is left alone, and so are 401s (there is no key to describe).
 */
export const budgetOfUnservedRequests =
  (keyBudget: KeyBudget | null, keyOf: (ctx: Context) => Promise<number | null>) =>
  async (ctx: Context, next: Next) => {
    if (!keyBudget || !ctx.path.startsWith('/v1/')) return next()
    const spend = async () => {
      const headers = (ctx.feathers as { rateLimitHeaders?: RateLimitHeaders } | undefined)?.rateLimitHeaders
      if (!headers || Object.keys(headers).length > 0) return
      const apiKeyId = await keyOf(ctx).catch(() => null)
      if (apiKeyId !== null) await keyBudget.spend(apiKeyId, headers)
    }
    // 4xx only: a 5xx (the database away) must not wait for the database a second time.
    const refused = (status: unknown) =>
      typeof status === 'number' && status >= 400 && status < 500 && status !== 401 && status !== 429
    try {
      await next()
    } catch (error) {
      // Feathers errors carry `code`, koa's (the body parser's) `status`.
      const { code, status } = (error ?? {}) as { code?: unknown; status?: unknown }
      if (refused(typeof code === 'number' ? code : status)) await spend()
      throw error
    }
    if (refused(ctx.status)) await spend()
  }

export interface RateLimits {
  authFailures: AuthFailureLimit
  /** null when `perKey` is 0 (unlimited). */
  keyBudget: KeyBudget | null
  store: CounterStore
}

export function rateLimits(
  settings: { authFailures: { points: number; duration: number }; perKey: number },
  options: { redisUrl?: string; namespace: string; logger: Logger }
): RateLimits {
  const store = counterStore(options)
  const { points, duration } = settings.authFailures
  return {
    authFailures: new AuthFailureLimit(store.limiter('auth-failures', points, duration), points, options.logger),
    keyBudget: settings.perKey
      ? new KeyBudget(store.limiter('api-key', settings.perKey, 60), settings.perKey, 60, options.logger)
      : null,
    store
  }
}
