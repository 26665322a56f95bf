import { Type, getValidator } from '@feathersjs/typebox'
import type { Static } from '@feathersjs/typebox'
import { dataValidator } from './validators'

/** The whole configuration (config/*.json + environment), validated when the app starts. */
export const configurationSchema = Type.Object(
  {
    host: Type.String(),
    port: Type.Number({ minimum: 0, maximum: 65535 }),
    publicUrl: Type.String(),
    dataDir: Type.String(),
    appSecret: Type.String(),
    logLevel: Type.String(),
    webConcurrency: Type.Number({ minimum: 1 }),
    redisUrl: Type.Optional(Type.String()),
    syncKey: Type.Optional(Type.String()),
    database: Type.Object({
      url: Type.String({ pattern: '^(sqlite:|postgres(ql)?://)' }),
      pool: Type.Optional(Type.Object({ min: Type.Optional(Type.Number()), max: Type.Optional(Type.Number()) })),
      statementTimeoutMs: Type.Integer({ minimum: 1 }),
      acquireTimeoutMs: Type.Integer({ minimum: 1 })
    }),
    uploads: Type.Object({
      dir: Type.String(),
      maxBytes: Type.Number({ minimum: 1 }),
      urlTtlSeconds: Type.Number({ minimum: 1 })
    }),
    demo: Type.Object({ enabled: Type.Boolean() }),
    /**
     * Keys that authenticated lately are kept in each process (src/auth/key-cache.ts): an entry lives
     * `ttlMs` at most (0 = no cache) and is dropped at once when the database reports a change.
     */
    keyCache: Type.Object({
      ttlMs: Type.Integer({ minimum: 0 }),
      maxEntries: Type.Integer({ minimum: 0 })
    }),
    security: Type.Object({
      cors: Type.Object({ origins: Type.Array(Type.String()) }),
      rateLimit: Type.Object({
        authFailures: Type.Object({ points: Type.Integer({ minimum: 1 }), duration: Type.Integer({ minimum: 1 }) }),
        perKey: Type.Integer({ minimum: 0 })
      }),
      socketAuthTimeoutMs: Type.Integer({ minimum: 1 })
    }),
    /** The event log (CONTRACT §13.1): events older than `retentionDays` are pruned (the change feed answers 410 before them). */
    events: Type.Object({ retentionDays: Type.Number({ exclusiveMinimum: 0 }) }),
    realtime: Type.Object({
      /** How often each instance checks that the keys of its sockets still authenticate (the CLI's revocations). */
      keyCheckIntervalMs: Type.Integer({ minimum: 100 }),
      /** How often each instance reads the event log of the companies with sockets on it, besides the wake-ups. */
      logPollIntervalMs: Type.Integer({ minimum: 50 })
    }),
    /** Proxies whose X-Forwarded-For is believed: '' = none, a hop count, or comma-separated addresses. */
    trustProxy: Type.Union([Type.String(), Type.Number()]),
    /** CONTRACT §13.4: how long a response stored under an `Idempotency-Key` is replayed, and how often old ones are deleted. */
    idempotency: Type.Object({
      retentionHours: Type.Number({ exclusiveMinimum: 0 }),
      pruneIntervalSeconds: Type.Number({ exclusiveMinimum: 0 })
    }),
    /** Webhook delivery (CONTRACT §13.3, docs/integrations.md); the timings are settings so tests run in seconds. */
    webhooks: Type.Object({
      /** This process sends deliveries (every instance may: claims keep them from sending one twice). */
      deliver: Type.Boolean(),
      /** `http://` and private, loopback or link-local addresses as subscription URLs (development and tests). */
      allowPrivateUrls: Type.Boolean(),
      /** A receiver that has not answered 2xx this long after the request began has failed the attempt. */
      timeoutMs: Type.Integer({ minimum: 1 }),
      /** The waits after the 1st, 2nd, ... failed attempt of a delivery; the last one repeats. */
      retryDelaysMs: Type.Array(Type.Integer({ minimum: 1 }), { minItems: 1 }),
      /** A subscription failing this long without one success is deactivated. */
      failureWindowMs: Type.Integer({ minimum: 1 }),
      /** How long an instance's claim on a subscription lasts unless renewed (a dead instance's claims expire). */
      claimTtlMs: Type.Integer({ minimum: 1 }),
      /** The slow look for work besides the wake-up after writes (other instances' writes, retries that came due). */
      pollMs: Type.Integer({ minimum: 1 }),
      /** Subscriptions this process sends to at once. */
      concurrency: Type.Integer({ minimum: 1 }),
      /** Deliveries sent per claim before the subscription goes back in line. */
      batchSize: Type.Integer({ minimum: 1 }),
      /** Deliveries per second at most (per process) while it is serving requests; unpaced when it has none. */
      busyPerSecond: Type.Number({ exclusiveMinimum: 0 })
    }),
    authentication: Type.Any()
  },
  { $id: 'ApplicationConfiguration' }
)

export type ApplicationConfiguration = Static<typeof configurationSchema>

export const configurationValidator = getValidator(configurationSchema, dataValidator)
