import { feathers } from '@feathersjs/feathers'
import configuration from '@feathersjs/configuration'
import { koa, rest, bodyParser, serveStatic } from '@feathersjs/koa'
import socketio from '@feathersjs/socketio'
import path from 'node:path'
import type { Application, Configuration, NextFunction } from './declarations'
import { configurationValidator } from './configuration'
import { createKnex, clientOf, DEFAULT_TIMEOUTS, ON_WRITER, readConnectionsOf, SHORT_READ } from './db/knex'
import { createDialect } from './db/dialect'
import { SearchSlots, searchLimitsFor } from './db/search-slots'
import { createChangeSignal } from './db/change-signal'
import { KeyCache } from './auth/key-cache'
import { resolveAppSecret } from './auth/secret'
import { authentication } from './auth/authentication'
import { createLogger } from './logger'
import {
  acceptContentEncoding,
  decodeJsonAsUtf8,
  errorHandler,
  refuseNestedMergePatch,
  requireJsonBody
} from './middleware/errors'
import { guardPrototypePathSegments, refusePrototypeQueryKeys } from './middleware/prototype-keys'
import { allowOfferedMethods, requireCredentialsToEndSession } from './middleware/methods'
import { proxyTrust } from './middleware/trust-proxy'
import { corsFor, requestLog, securityHeaders } from './middleware/security'
import {
  budgetOfUnservedRequests,
  limitFailedAuthentication,
  rateLimits as createRateLimits
} from './middleware/rate-limits'
import { limitFailedLogins, recordSocketAddresses } from './middleware/auth-failures'
import { idempotency } from './middleware/idempotency'
import { services } from './services'
import { settings } from './settings/settings'
import { channels } from './channels'
import { SocketRegistry } from './sockets'
import { createBus } from './sync/create-bus'
import { usageCounting } from './auth/usage'
import { docs } from './services/docs/docs'
import { API_PREFIX } from './resources/register'

/** public/ at the project root, from src/ (tsx) and from lib/src/ (compiled). */
const PUBLIC_DIR = path.resolve(
  __dirname,
  __dirname.includes(`${path.sep}lib${path.sep}`) ? '../../public' : '../public'
)

export type ConfigOverrides = Partial<Omit<Configuration, 'database'>> & {
  database?: Partial<Configuration['database']>
}

/**
 * Builds the application: koa + Feathers, REST and socket.io on one port, every /v1 service.
 * `overrides` replace configuration values (tests point it at their own database).
 */
export function createApp(overrides: ConfigOverrides = {}): Application {
  const app: Application = koa(feathers())
  app.configure(configuration(configurationValidator))
  for (const key of Object.keys(overrides) as (keyof ConfigOverrides)[]) {
    const value = overrides[key]
    const current: unknown = app.get(key)
    const merged =
      current && typeof current === 'object' && !Array.isArray(current) ? { ...current, ...(value as object) } : value
    app.set(key, merged as Configuration[typeof key])
  }

  const logger = createLogger(app.get('logLevel'))
  app.set('logger', logger)

  const secret = resolveAppSecret(app.get('appSecret'), app.get('dataDir'))
  app.set('appSecret', secret)
  app.set('authentication', { ...app.get('authentication'), secret })

  const { url, pool, statementTimeoutMs, acquireTimeoutMs } = app.get('database')
  app.set('dialect', createDialect(clientOf(url)))
  const knex = createKnex(url, pool, { statementTimeoutMs, acquireTimeoutMs })
  app.set('knex', knex)
  // Long reads (searches) take turns, so they never hold every read connection (src/db/search-slots.ts).
  const searchWaitMs = acquireTimeoutMs ?? DEFAULT_TIMEOUTS.acquireTimeoutMs
  app.set('searchSlots', new SearchSlots(searchLimitsFor(readConnectionsOf(knex), searchWaitMs)))
  // Authentication without a database round trip while the database reports no change to keys.
  const changes = createChangeSignal(url, logger)
  app.set('apiKeyCache', new KeyCache(changes, app.get('keyCache')))

  const { cors: corsConfig, rateLimit } = app.get('security')
  // Client address and TLS as TRUST_PROXY allows them to be read (rate limits, security headers).
  const trust = proxyTrust(app.get('trustProxy'))
  app.set('proxyTrust', trust)
  // Counters in Redis (REDIS_URL), else in the cluster primary (WEB_CONCURRENCY > 1), else here;
  // SYNC_KEY namespaces them like the events, so deployments sharing a Redis never mix counts.
  const namespace = app.get('syncKey') || 'crewclock'
  const limits = createRateLimits(rateLimit, { redisUrl: app.get('redisUrl'), namespace, logger })
  // Wake-ups of the log readers and control messages between instances: Redis, the cluster primary, or none
  // (src/sync/). The instance starts whether or not Redis answers; /ready tells.
  const bus = createBus({ redisUrl: app.get('redisUrl'), channel: `${namespace}:bus`, logger })
  app.set('bus', bus)
  app.set('rateLimits', limits)
  app.set('keyBudget', limits.keyBudget)
  app.use(requestLog(logger))
  app.use(errorHandler(logger))
  app.use(securityHeaders(app.get('proxyTrust')))
  app.use(corsFor(corsConfig.origins))
  app.use(limitFailedAuthentication(limits.authFailures, trust))
  app.use(
    budgetOfUnservedRequests(limits.keyBudget, async (ctx) => {
      const auth = app.service('authentication')
      const request = await auth.parse(ctx.req, ctx.res, 'apiKey')
      return request ? ((await auth.authenticate(request, { provider: 'rest' }, 'apiKey')).apiKey?.id ?? null) : null
    })
  )
  app.use(async (ctx, next) => {
    if (ctx.path === '/health') {
      ctx.body = { status: 'ok' }
      return
    }
    if (ctx.path === '/ready') {
      // Both ways a request reaches the database: a statement on the main pool, and a read as a
      // key's look-up makes it (a read connection, or the first free main one while those are taken).
      await knex.raw('select 1').options(ON_WRITER)
      await knex.first(knex.raw('1 as ready')).options(SHORT_READ)
      // Without Redis HTTP still serves and sockets still get every event (from the log's poll, later):
      // the instance stays ready, realtime says it is degraded.
      ctx.body = { status: 'ready', realtime: bus.connected ? 'ok' : 'degraded' }
      return
    }
    await next()
  })
  // public/ holds the settings page, the dashboard and their assets. koa-static looks on disk
  // for every GET before it passes it on: API paths skip it (a stat and an ENOENT per request
  // were the top cost of a small read).
  const staticFiles = serveStatic(PUBLIC_DIR)
  app.use((ctx, next) => (ctx.path.startsWith(`/${API_PREFIX}/`) ? next() : staticFiles(ctx, next)))
  app.configure(docs)
  app.use(guardPrototypePathSegments(app))
  app.use(refusePrototypeQueryKeys)
  app.use(allowOfferedMethods(app))
  app.use(requireJsonBody)
  app.use(acceptContentEncoding)
  // Every JSON media type the body check accepts (`application/json`, `application/merge-patch+json`, ...) is parsed as JSON.
  // JSON is read as latin1 and kept as text (`includeUnparsed`), so that `decodeJsonAsUtf8` can refuse
  // a body that is not UTF-8 instead of storing U+FFFD for its bytes.
  app.use(
    bodyParser({
      jsonLimit: '1mb',
      jsonStrict: true,
      jsonTypes: ['application/json', '+json'],
      encoding: 'latin1',
      includeUnparsed: true,
      multipart: false,
      urlencoded: false,
      text: false,
      onError: (error: Error) => {
        throw error
      }
    })
  )
  app.use(decodeJsonAsUtf8)
  app.use(refuseNestedMergePatch)
  // Idempotency-Key: notes it before the REST transport, hooks every /v1 write mounted from here on.
  app.configure(idempotency)
  app.configure(rest())
  const sockets = new SocketRegistry(app)
  app.set('sockets', sockets)
  // connectTimeout: a connection that never even joins the namespace is closed by the same deadline as one that never authenticates.
  app.configure(
    socketio(
      {
        cors: { origin: corsConfig.origins.length ? corsConfig.origins : false },
        connectTimeout: app.get('security').socketAuthTimeoutMs,
        allowRequest: sockets.admit
      },
      (io) => {
        recordSocketAddresses(trust)(io)
        sockets.track(io)
      }
    )
  )
  app.configure(authentication)
  app.service('authentication').hooks({ before: { remove: [requireCredentialsToEndSession] } })
  app.configure(limitFailedLogins)
  app.configure(usageCounting)
  app.configure(services)
  app.configure(settings)
  app.configure(channels)

  app.hooks({
    teardown: [
      async (_context: unknown, next: NextFunction) => {
        // The pool closes even when another teardown step fails (socket.io closing a server
        // that a graceful stop already closed): connections end cleanly, SQLite checkpoints.
        // Searches waiting for a turn are refused now, not after their wait: the pool is closing.
        app.get('searchSlots').close()
        try {
          await next()
        } finally {
          // The change signal's descriptors close after the pool: closing them while a connection is
          // open would drop its SQLite locks (src/db/change-signal.ts).
          await Promise.allSettled([knex.destroy().finally(() => changes.close()), limits.store.close(), bus.close()])
        }
      }
    ]
  })
  return app
}
