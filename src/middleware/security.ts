import helmet from 'koa-helmet'
import cors from '@koa/cors'
import crypto from 'node:crypto'
import type { Context, Next } from 'koa'
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible'
import { TooManyRequests } from '@feathersjs/errors'
import type { Logger } from 'pino'
import type { ProxyTrust } from './trust-proxy'

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
    allowHeaders: ['Authorization', 'Content-Type', 'X-Request-Id'],
    exposeHeaders: ['Retry-After', 'X-Request-Id', 'WWW-Authenticate'],
    maxAge: 600
  })

/**
 * Failed authentication is limited per client address: after `points` 401s within `duration`
 * seconds the address gets 429 with Retry-After until the window has passed, whatever it sends.
 */
export function authFailureLimiter(options: { points: number; duration: number }) {
  const limiter = new RateLimiterMemory({ points: options.points, duration: options.duration, keyPrefix: 'auth-failures' })
  return async (ctx: Context, next: Next) => {
    const key = ctx.ip
    const state = await limiter.get(key)
    if (state && state.consumedPoints >= options.points) throw tooMany(ctx, state)
    try {
      await next()
    } catch (error: any) {
      if (error?.code === 401) await limiter.penalty(key, 1)
      throw error
    }
    if (ctx.status === 401) await limiter.penalty(key, 1)
  }
}

export function tooMany(ctx: { set: (name: string, value: string) => void } | undefined, state: RateLimiterRes) {
  const seconds = Math.max(1, Math.ceil(state.msBeforeNext / 1000))
  ctx?.set('Retry-After', String(seconds))
  return new TooManyRequests(`Too many requests; retry in ${seconds} s`, { retryAfter: seconds })
}

/** Per-key request budget (requests per minute; 0 = unlimited). */
export function perKeyLimiter(perMinute: number) {
  if (!perMinute) return null
  const limiter = new RateLimiterMemory({ points: perMinute, duration: 60, keyPrefix: 'api-key' })
  return async (apiKeyId: number) => {
    try {
      await limiter.consume(String(apiKeyId))
      return null
    } catch (state) {
      return state as RateLimiterRes
    }
  }
}

/**
 * A request id for every request (the caller's X-Request-Id when it is sane, else a new one),
 * echoed in the response and attached to one structured log line per request. The
 * Authorization header is never logged.
 */
export const requestLog = (logger: Logger) => async (ctx: Context, next: Next) => {
  const incoming = ctx.get('x-request-id')
  const id = /^[\w.-]{1,64}$/.test(incoming) ? incoming : crypto.randomUUID()
  ctx.set('X-Request-Id', id)
  ctx.state.log = logger.child({ requestId: id })
  const started = process.hrtime.bigint()
  try {
    await next()
  } finally {
    const ms = Number(process.hrtime.bigint() - started) / 1e6
    ctx.state.log.info({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 }, 'request')
  }
}
