import type { RealTimeConnection } from '@feathersjs/feathers'
import type { Channel } from '@feathersjs/transport-commons'
import type { Application, HookContext, NextFunction } from './declarations'
import { allows } from './auth/scopes'
import { validApiKeyIds } from './auth/authentication'
import { collectionOf } from './resources/openapi'
import { TOPICS, idsIn } from './sync/topics'

export const companyChannel = (companyId: number) => `companies/${companyId}`

/** What a socket's key login leaves on its connection; a new login replaces all of it. */
interface KeyedConnection extends RealTimeConnection {
  companyId?: number
  apiKeyId?: number
  /** The scopes of the key the socket authenticated with (CONTRACT §10.1). */
  apiKeyScopes?: string[]
}

/** The part of an authentication result a socket's login joins channels by (see src/auth/authentication.ts). */
interface LoginResult {
  company?: { id: number }
  apiKey?: { id: number; scopes?: unknown }
}

/** The sockets of `channel` whose key can read the collection of the event's service path. */
export const readersOf = (channel: Channel, path: string | undefined) =>
  channel.filter(
    (connection: KeyedConnection) => !!path && allows(connection.apiKeyScopes ?? [], collectionOf(path), 'read')
  )

/** Forgets the key of a connection, so nothing is published to it and no revocation is looked up for it. */
function forgetKey(connection: KeyedConnection) {
  delete connection.companyId
  delete connection.apiKeyId
  connection.apiKeyScopes = []
}

/**
 * A socket belongs to at most one company (CONTRACT §12): every login first leaves every channel
 * the socket had joined and forgets the previous key, then a key login joins its company's channel.
 * Feathers joins nothing by itself and leaves nothing on a second login, so without this a socket
 * that authenticated with company A's key and then B's kept receiving A's events.
 */
function joinOnLogin(app: Application) {
  app.on('login', (result: LoginResult | undefined, { connection }: { connection?: KeyedConnection } = {}) => {
    if (!connection) return
    if (app.channels.length) app.channel(app.channels).leave(connection)
    forgetKey(connection)
    const companyId = result?.company?.id
    const apiKeyId = result?.apiKey?.id
    if (!companyId || !apiKeyId) return
    Object.assign(connection, {
      companyId,
      apiKeyId,
      apiKeyScopes: Array.isArray(result.apiKey?.scopes) ? result.apiKey.scopes : []
    })
    app.channel(companyChannel(companyId)).join(connection)
  })
  // Feathers leaves the channels on logout; the key goes with them.
  app.on('logout', (_result: unknown, { connection }: { connection?: KeyedConnection } = {}) => {
    if (connection) forgetKey(connection)
  })
}

/** Disconnects this instance's sockets of these keys (a server disconnect: the keys cannot come back). */
function disconnectKeys(app: Application, apiKeyIds: number[]) {
  if (apiKeyIds.length === 0) return
  const ids = new Set(apiKeyIds)
  app.get('sockets').disconnect((connection: KeyedConnection) => ids.has(connection.apiKeyId!))
}

/**
 * The fallback for keys that stop working without a message on the bus (the CLI has none; a
 * message is lost while Redis is down): every `intervalMs` the instance asks the database which of
 * the keys its sockets use still authenticate (unrevoked, with an active user), and disconnects the
 * sockets of the others. It asks about a set of ids, not about changes since a time, so no clock
 * takes part, and the question's size is the number of distinct keys with open sockets here.
 */
function checkKeysOfSockets(app: Application, intervalMs: number) {
  let running = false
  const timer = setInterval(async () => {
    if (running) return
    const ids = new Set<number>()
    for (const connection of app.get('sockets').connections() as Iterable<KeyedConnection>)
      if (connection.apiKeyId) ids.add(connection.apiKeyId)
    if (ids.size === 0) return
    running = true
    try {
      const valid = new Set(await validApiKeyIds(app.get('knex'), [...ids]))
      disconnectKeys(
        app,
        [...ids].filter((id) => !valid.has(id))
      )
    } catch {
      // The database may be briefly unreachable; the next round asks again.
    } finally {
      running = false
    }
  }, intervalMs)
  timer.unref()
  return () => clearInterval(timer)
}

/**
 * Sockets that may have missed events are closed (a transport close: the client reconnects and
 * reads again): all of them when the bus goes down, since other instances' events no longer arrive
 * (and new sockets are refused until it is back, `SocketRegistry.admit`); a company's when an
 * instance reports that it could not send that company's events.
 */
function closeStaleSockets(app: Application) {
  const bus = app.get('bus')
  const sockets = app.get('sockets')
  bus.on('down', () => sockets.close())
  return bus.subscribe(TOPICS.realtimeResync, (message) => {
    const companies = new Set(idsIn(message, 'companyIds'))
    sockets.close((connection: KeyedConnection) => companies.has(connection.companyId!))
  })
}

/**
 * A socket joins its company's channel once it has authenticated with an API key and receives the
 * `created`, `patched` and `removed` events of that company that its key's scopes can read.
 * Unauthenticated sockets are in no channel and receive nothing. A key that stops working (revoked,
 * its user deactivated) has its sockets disconnected on every instance: at once through the bus
 * (`announceRevokedKeys`), else by the periodic check of the keys in use.
 */
export const channels = (app: Application) => {
  joinOnLogin(app)
  app.publish((_data: unknown, context: HookContext) => {
    const companyId = context.params?.company?.id
    return companyId ? readersOf(app.channel(companyChannel(companyId)), context.path) : []
  })
  const bus = app.get('bus')
  const stops = [
    bus.subscribe(TOPICS.apiKeysRevoked, (message) => disconnectKeys(app, idsIn(message, 'apiKeyIds'))),
    closeStaleSockets(app),
    checkKeysOfSockets(app, app.get('realtime').keyCheckIntervalMs)
  ]
  app.hooks({
    teardown: [
      async (_context: unknown, next: NextFunction) => {
        for (const stop of stops) stop()
        await next()
      }
    ]
  })
}
