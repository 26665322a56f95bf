import { NotFound } from '@feathersjs/errors'
import type { Context, Next } from 'koa'
import type { Application } from '../declarations'
import { badRequest, invalidPathId } from '../resources/validation'
import { ackOf, SocketPacket } from './methods'

/**
 * Names that plain JavaScript objects already have. Feathers' router and the query-string
 * parser keep client-chosen names as keys of plain objects, so these names need an answer of
 * their own: the router throws on them (a 500), and the parser silently drops them.
 */
const PROTOTYPE_KEYS = new Set([...Object.getOwnPropertyNames(Object.prototype), '__proto__'])
const PROBE = '\u0000'

const decode = (raw: string) => {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '))
  } catch {
    return raw
  }
}

/**
 * A path segment such as `/v1/projects/constructor` is answered like any other bad id (400
 * naming the parameter) when it sits where a route takes an id, else like an unknown path (404).
 */
export const guardPrototypePathSegments = (app: Application) => async (ctx: Context, next: Next) => {
  const segments = ctx.path.split('/')
  if (!segments.some((s) => PROTOTYPE_KEYS.has(s))) return next()
  const found = app.lookup(segments.map((s) => (PROTOTYPE_KEYS.has(s) ? PROBE : s)).join('/'))
  const param = found && Object.keys(found.params).find((name) => found.params[name] === PROBE)
  if (!param) throw new NotFound(`Path ${ctx.path} not found`)
  const name =
    param === '__id' ? ((found.service as { resource?: { idParam?: string } }).resource?.idParam ?? 'id') : param
  throw invalidPathId(name)
}

/** `?__proto__[x]=1`, `?toString=1`: unknown parameters like any other (400 naming them), not silently ignored. */
export const refusePrototypeQueryKeys = async (ctx: Context, next: Next) => {
  const keys = ctx.querystring ? ctx.querystring.split('&').map((pair) => decode(pair.split('=')[0])) : []
  const refused = keys.filter((key) => key.split(/[[\].]/).some((segment) => PROTOTYPE_KEYS.has(segment)))
  if (refused.length > 0)
    throw badRequest(
      'Invalid query',
      Object.fromEntries(refused.map((key) => [key, 'is not a parameter of this operation']))
    )
  await next()
}

/** Whether `value` has an own `__proto__` key at any depth (bounded: socket.io packets are parsed JSON). */
function hasProtoKey(value: unknown, depth = 0): boolean {
  if (value === null || typeof value !== 'object' || depth > 64) return false
  if (Object.hasOwn(value, '__proto__')) return true
  return Object.values(value).some((inner) => hasProtoKey(inner, depth + 1))
}

/** How deep a socket call's arguments may nest: a body or query of the API nests a few levels. */
export const MAX_SOCKET_DEPTH = 32

/** Whether `value` nests deeper than `limit` levels of objects and arrays (looks no deeper than that). */
function nestsDeeper(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false
  if (limit === 0) return true
  return Object.values(value).some((inner) => nestsDeeper(inner, limit - 1))
}

/**
 * socket.io parses packets with JSON.parse, which makes `"__proto__"` an own key; Feathers then
 * copies bodies and params with Object.assign, which turns that key into the copy's prototype
 * (the key vanishes, its contents become inherited values). A socket call with such a key is
 * refused with the 400 a REST body gets. So is one nested deeper than `MAX_SOCKET_DEPTH`: the
 * query checks walk what they are given, and 20 000 nested lists overflowed their stack (a 500
 * and an error in the log for each packet; REST's query parser stops at a few levels).
 */
export const refusePrototypeKeysInSocketCalls = (packet: SocketPacket, next: (error?: Error) => void) => {
  const ack = ackOf(packet)
  if (typeof packet[0] !== 'string') return next()
  const args = packet.slice(1)
  const error = args.some((arg) => nestsDeeper(arg, MAX_SOCKET_DEPTH))
    ? badRequest('Invalid call', { '': `must not nest deeper than ${MAX_SOCKET_DEPTH} levels` })
    : args.some((arg) => hasProtoKey(arg))
      ? badRequest('Invalid body', { '': 'must not contain a "__proto__" key' })
      : undefined
  if (!error) return next()
  // Without an acknowledgement there is nobody to answer: the call is dropped, not run.
  if (ack) ack(error.toJSON())
}
