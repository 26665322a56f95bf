import { MethodNotAllowed, NotAuthenticated, NotFound } from '@feathersjs/errors'
import { getServiceOptions } from '@feathersjs/feathers'
import type { Context, Next } from 'koa'
import type { Application } from '../declarations'

/**
 * Feathers maps `POST /v1/customers/5` to `create` and drops the id; crewclock answers 405
 * instead, so a client that meant PATCH does not create a record by accident.
 */
export const noPostOnItems = (app: Application) => async (ctx: Context, next: Next) => {
  if (ctx.method === 'POST' && app.lookup(ctx.path)?.params.__id !== undefined) {
    throw new MethodNotAllowed('POST is not supported on an item path; use PATCH to change a record')
  }
  await next()
}

const SERVICE_METHODS = new Set(['find', 'get', 'create', 'update', 'patch', 'remove'])

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
  if (!getServiceOptions(found.service)?.methods?.includes(method)) {
    return ack(new MethodNotAllowed(`Method ${method} is not supported on ${path}`).toJSON())
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
