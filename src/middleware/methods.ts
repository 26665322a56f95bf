import { MethodNotAllowed, NotAuthenticated, NotFound } from '@feathersjs/errors'
import { getServiceOptions } from '@feathersjs/feathers'
import type { Context, Next } from 'koa'
import type { Application } from '../declarations'

/** The HTTP method of each service method, on an item path (`/v1/customers/5`) and on a collection path. */
const ITEM_METHODS: [http: string, method: string][] = [
  ['GET', 'get'],
  ['PATCH', 'patch'],
  ['DELETE', 'remove'],
  ['PUT', 'update']
]
const COLLECTION_METHODS: [http: string, method: string][] = [
  ['GET', 'find'],
  ['POST', 'create'],
  ['PATCH', 'patch'],
  ['DELETE', 'remove'],
  ['PUT', 'update']
]
/** Methods that act on a whole collection (no id) unless the service is single-record (`multi: false`, every resource). */
const MULTI_METHODS = new Set(['patch', 'remove', 'update'])

/** The HTTP methods a path offers, derived from its service's methods: the `Allow` header of a 405. */
export function allowedHttpMethods(service: unknown, item: boolean): string[] {
  const offered = getServiceOptions(service)?.methods ?? []
  const single = (service as { options?: { multi?: unknown } }).options?.multi === false
  return (item ? ITEM_METHODS : COLLECTION_METHODS)
    .filter(([, method]) => offered.includes(method) && (item || !single || !MULTI_METHODS.has(method)))
    .map(([http]) => http)
}

/**
 * A method a path does not offer is 405 naming the HTTP method and the path, with the `Allow`
 * header RFC 9110 requires (the error handler sends `data.allow`). Feathers alone would name its
 * internal method ("`update`") and send no `Allow`; it also maps `POST /v1/customers/5` to
 * `create` and drops the id, where crewclock answers 405 so that a client that meant PATCH does
 * not create a record by accident. HEAD goes where GET goes.
 */
export const allowOfferedMethods = (app: Application) => async (ctx: Context, next: Next) => {
  const found = app.lookup(ctx.path)
  if (!found) return next()
  const item = found.params.__id !== undefined
  const allow = allowedHttpMethods(found.service, item)
  const method = ctx.method === 'HEAD' ? 'GET' : ctx.method
  // X-Service-Method calls custom methods over POST; no service offers one.
  const override = ctx.get('x-service-method') !== ''
  if (!allow.includes(method) || override) {
    const hint = item && method === 'POST' && allow.includes('PATCH') ? '; use PATCH to change a record' : ''
    const what = override ? `${ctx.method} with X-Service-Method` : ctx.method
    throw new MethodNotAllowed(`${what} is not allowed on ${ctx.path}${hint}`, { method: ctx.method, allow })
  }
  await next()
}

const SERVICE_METHODS_IN_ORDER = ['find', 'get', 'create', 'update', 'patch', 'remove']
const SERVICE_METHODS = new Set(SERVICE_METHODS_IN_ORDER)

/** A socket.io packet as a socket middleware sees it: the event, its arguments, maybe an ack last. */
export type SocketPacket = unknown[]

/** The acknowledgement callback of a socket call, if the client asked for one. */
export const ackOf = (packet: SocketPacket) => {
  const last = packet[packet.length - 1]
  return typeof last === 'function' ? (last as (error: unknown) => void) : undefined
}

/**
 * Feathers listens on a socket only for method names that some service offers: a call of
 * `update` (which no service offers) went unanswered and the client waited for its timeout.
 * Calls of a method the addressed service does not offer answer 405 as on REST (and calls of an
 * unknown path 404), whether or not another service offers the method.
 */
export const socketMethodGuard = (app: Application) => (packet: SocketPacket, next: (error?: Error) => void) => {
  const [method, path] = packet
  const ack = ackOf(packet)
  if (typeof method !== 'string' || !SERVICE_METHODS.has(method) || !ack) return next()
  const found = typeof path === 'string' ? app.lookup(path) : null
  if (!found) return ack(new NotFound(`Path ${String(path)} not found`).toJSON())
  const offered = getServiceOptions(found.service)?.methods ?? []
  if (!offered.includes(method)) {
    // No HTTP here: the message names the Feathers method and what the path offers instead.
    const allow = SERVICE_METHODS_IN_ORDER.filter((name) => offered.includes(name))
    return ack(
      new MethodNotAllowed(`The method ${method} is not offered by ${path} (it offers ${allow.join(', ')})`, {
        method,
        allow
      }).toJSON()
    )
  }
  next()
}

/**
 * Ending a session (`remove` on the authentication service, `DELETE /authentication[/<token>]`)
 * needs the session's credentials: Feathers reads `params.authentication.accessToken` without
 * checking it exists, so a call without them was a TypeError (a 500) instead of a 401.
 */
export const requireCredentialsToEndSession = async (context: { params: { authentication?: unknown } }) => {
  if (!context.params.authentication) throw new NotAuthenticated('Send the credentials of the session to end')
}
