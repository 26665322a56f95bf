import type { RealTimeConnection } from '@feathersjs/feathers'
import type { Channel } from '@feathersjs/transport-commons'
import type { Server, Socket } from 'socket.io'
import type { Application, HookContext, NextFunction } from './declarations'
import { allows } from './auth/scopes'
import { collectionOf } from './resources/openapi'
import { socketMethodGuard } from './middleware/methods'
import { refusePrototypeKeysInSocketCalls } from './middleware/prototype-keys'

export const companyChannel = (companyId: number) => `companies/${companyId}`

interface KeyedConnection extends RealTimeConnection {
  apiKeyId?: number
  /** The scopes of the key the socket last authenticated with (see `keyScopes`). */
  apiKeyScopes?: string[]
}

/** The part of an authentication result a socket's login joins channels by (see src/auth/authentication.ts). */
interface LoginResult {
  company?: { id: number }
  apiKey?: { id: number; scopes?: unknown }
}

// --- Key scopes on sockets (CONTRACT §10.1, docs/decisions.md) ------------------------------------

/** Remembers, per socket, the scopes of the key it authenticated with; a new login replaces them. */
function keyScopes(app: Application) {
  app.on('login', (authResult: LoginResult | undefined, { connection }: { connection?: KeyedConnection }) => {
    if (connection) connection.apiKeyScopes = Array.isArray(authResult?.apiKey?.scopes) ? authResult.apiKey.scopes : []
  })
}

/** The sockets of `channel` whose key can read the collection of the event's service path. */
export const readersOf = (channel: Channel, path: string | undefined) =>
  channel.filter(
    (connection: KeyedConnection) => !!path && allows(connection.apiKeyScopes ?? [], collectionOf(path), 'read')
  )

// ------------------------------------------------------------------------------------------------

const socketsOf = new WeakMap<Application, Map<RealTimeConnection, Socket>>()

/**
 * Remembers which socket.io socket carries which Feathers connection, so a key can be cut off.
 * A socket that has not authenticated within `security.socketAuthTimeoutMs` is disconnected:
 * unauthenticated sockets receive nothing, and would otherwise hold memory and a file
 * descriptor for as long as a client cares to keep them open.
 */
export const trackSockets = (app: Application) => (io: Server) => {
  const sockets = new Map<RealTimeConnection, Socket>()
  socketsOf.set(app, sockets)
  const authDeadlines = new WeakMap<RealTimeConnection, NodeJS.Timeout>()
  const authTimeoutMs = app.get('security').socketAuthTimeoutMs
  app.on('login', (_result: unknown, { connection }: { connection?: RealTimeConnection } = {}) => {
    if (connection) clearTimeout(authDeadlines.get(connection))
  })
  io.on('connection', (socket: Socket) => {
    const connection = (socket as Socket & { feathers: RealTimeConnection }).feathers
    sockets.set(connection, socket)
    const deadline = setTimeout(() => {
      if (!(connection as { authentication?: unknown }).authentication) socket.disconnect(true)
    }, authTimeoutMs)
    deadline.unref()
    authDeadlines.set(connection, deadline)
    socket.use(socketMethodGuard(app))
    socket.use(refusePrototypeKeysInSocketCalls)
    socket.once('disconnect', () => {
      clearTimeout(deadline)
      sockets.delete(connection)
    })
  })
}

/** Disconnects every socket of this instance that authenticated with one of the keys. */
export function disconnectApiKeys(app: Application, apiKeyIds: number[]) {
  const ids = new Set(apiKeyIds)
  for (const [connection, socket] of socketsOf.get(app) ?? []) {
    if (ids.has((connection as KeyedConnection).apiKeyId as number)) socket.disconnect(true)
  }
}

/**
 * Revocations can happen in another process (the CLI, another instance): each instance looks
 * for newly revoked keys every few seconds and closes their sockets. Calls on such a socket
 * already fail before that (every call re-checks the key).
 */
function watchRevocations(app: Application, intervalMs: number) {
  const db = app.get('knex')
  let since = new Date().toISOString()
  let running = false
  const timer = setInterval(async () => {
    if (running || (socketsOf.get(app)?.size ?? 0) === 0) return
    running = true
    try {
      const now = new Date().toISOString()
      const revoked = await db('api_keys').select('id').where('revokedAt', '>=', since)
      since = now
      if (revoked.length)
        disconnectApiKeys(
          app,
          revoked.map((row) => Number(row.id))
        )
    } catch {
      // The database may be briefly unreachable; the next round tries again.
    } finally {
      running = false
    }
  }, intervalMs)
  timer.unref()
  return () => clearInterval(timer)
}

/**
 * A socket joins its company's channel once it has authenticated with an API key and receives
 * the `created`, `patched` and `removed` events of that company only. Unauthenticated sockets
 * are in no channel and receive nothing.
 */
export const channels = (app: Application) => {
  app.on('login', (authResult: LoginResult | undefined, { connection }: { connection?: KeyedConnection }) => {
    if (!connection || !authResult?.company?.id || !authResult.apiKey?.id) return
    connection.apiKeyId = authResult.apiKey.id
    app.channel(companyChannel(authResult.company.id)).join(connection)
  })
  keyScopes(app)
  app.publish((_data: unknown, context: HookContext) => {
    const companyId = context.params?.company?.id
    return companyId ? readersOf(app.channel(companyChannel(companyId)), context.path) : []
  })
  const stop = watchRevocations(app, 2000)
  app.hooks({
    teardown: [
      async (_context: unknown, next: NextFunction) => {
        stop()
        await next()
      }
    ]
  })
}
