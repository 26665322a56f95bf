import helmet from 'koa-helmet'
import cors from '@koa/cors'
import crypto from 'node:crypto'
import type { Context, Next } from 'koa'
import { RATE_LIMIT_HEADERS } from './rate-limits'
import type { Logger } from 'pino'
import type { ProxyTrust } from './trust-proxy'
import { IDEMPOTENCY_HEADER, REPLAYED_HEADER } from './idempotency'

const PAGE_DIRECTIVES = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:'],
  connectSrc: ["'self'", 'ws:', 'wss:'],
  fontSrc: ["'self'", 'data:']
}

/**
 * Security headers; the pages under public/ load only their own scripts and styles.
 * `upgrade-insecure-requests` and HSTS only on requests that arrived over TLS (CONTRACT §10.4):
 * sent over plain HTTP they make a browser on the office LAN or a phone switch to an https://
 * that nobody serves, and the pages never load. Helmet builds its headers once per
 * configuration, so there are two and each request picks one.
 */
export const securityHeaders = (trust: Pick<ProxyTrust, 'isTls'>) => {
  const common = { crossOriginEmbedderPolicy: false }
  const overTls = helmet({ ...common, contentSecurityPolicy: { directives: { ...PAGE_DIRECTIVES } } })
  const plain = helmet({
    ...common,
    contentSecurityPolicy: { directives: { ...PAGE_DIRECTIVES, upgradeInsecureRequests: null } },
    strictTransportSecurity: false
  })
  return (ctx: Context, next: Next) => (trust.isTls(ctx.req) ? overTls : plain)(ctx, next)
}

/** CORS for browser integrations: off unless `cors.origins` lists origins (or `*`). */
export const corsFor = (origins: string[]) =>
  cors({
    origin: (ctx: Context) => {
      const origin = ctx.get('origin')
      if (origins.includes('*')) return origin || '*'
      return origins.includes(origin) ? origin : ''
    },
    allowHeaders: ['Authorization', 'Content-Type', 'X-Request-Id', IDEMPOTENCY_HEADER],
    exposeHeaders: [...RATE_LIMIT_HEADERS, 'X-Request-Id', 'WWW-Authenticate', REPLAYED_HEADER],
    maxAge: 600
  })

/**
 * A request id for every request (the caller's X-Request-Id when it is sane, else a new one),
 * echoed in the response and attached to one structured log line per request. The
 * Authorization header is never logged.
 */
export const requestLog = (logger: Logger) => async (ctx: Context, next: Next) => {
  const incoming = ctx.get('x-request-id')
  const id = /^[\w.-]{1,64}$/.test(incoming) ? incoming : crypto.randomUUID()
  ctx.set('X-Request-Id', id)
  // Services see it as params.requestId: the events a request logs carry it (src/events/journal.ts).
  ctx.feathers = { ...ctx.feathers, requestId: id } as typeof ctx.feathers
  ctx.state.log = logger.child({ requestId: id })
  const started = process.hrtime.bigint()
  try {
    await next()
  } finally {
    const ms = Number(process.hrtime.bigint() - started) / 1e6
    ctx.state.log.info(
      { method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 },
      'request'
    )
  }
}
