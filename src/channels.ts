import type { RealTimeConnection } from '@feathersjs/feathers'
import type { Application, HookContext, NextFunction } from './declarations'
import { validApiKeyIds } from './auth/authentication'
import { registryOf } from './resources/registry'
import { visibleLogScopes } from './services/changes/changes'
import { DeliveredEvent, LogDelivery } from './events/delivery'
import { TOPICS, idsIn, type LogAppendedMessage } from './sync/topics'

export const companyChannel = (companyId: number) => `companies/${companyId}`

/** What a socket's key login leaves on its connection; a new login replaces all of it. */
interface KeyedConnection extends RealTimeConnection {
  companyId?: number
  apiKeyId?: number
  /** The values of the log's `scope` column whose events the key can read (CONTRACT §10.1); null: all. */
  logScopes?: Set<string> | null
  /** The socket gets the log's events after this id: those committed after its login. */
  logFrom?: number
}

/** The part of an authentication result a socket's login joins channels by (see src/auth/authentication.ts). */
interface LoginResult {
  company?: { id: number }
  apiKey?: { id: number; scopes?: unknown }
}

/** Forgets the key of a connection, so nothing is published to it and no revocation is looked up for it. */
function forgetKey(connection: KeyedConnection) {
  delete connection.companyId
  delete connection.apiKeyId
  delete connection.logFrom
  connection.logScopes = new Set()
}

/**
 * A socket belongs to at most one company (CONTRACT §12): every login first leaves every channel
 * the socket had joined and forgets the previous key, then a key login joins its company's channel.
 * Feathers joins nothing by itself and leaves nothing on a second login, so without this a socket
 * that authenticated with company A's key and then B's kept receiving A's events.
 *
 * It runs as the last step of the socket's `authenticate` (an after hook; Feathers' `login` event
 * comes later), so that the answer waits until the company's log is followed here: the socket gets
 * the events after the head of the log at its login (every event committed after the client has its
 * answer), none before.
 */
function joinOnLogin(app: Application, delivery: LogDelivery) {
  app.service('authentication').hooks({
    after: {
      create: [
        async (context: HookContext) => {
          const connection = context.params.connection as KeyedConnection | undefined
          if (!connection || !context.params.provider) return
          if (app.channels.length) app.channel(app.channels).leave(connection)
          forgetKey(connection)
          const result = context.result as LoginResult | undefined
          const companyId = result?.company?.id
          const apiKeyId = result?.apiKey?.id
          if (!companyId || !apiKeyId) return
          const scopes = visibleLogScopes(app, Array.isArray(result.apiKey?.scopes) ? result.apiKey.scopes : [])
          const logFrom = await delivery.follow(companyId)
          // Joined in the same turn as the follow settles: the poll never sees the company followed without its socket.
          Object.assign(connection, { companyId, apiKeyId, logFrom, logScopes: scopes && new Set(scopes) })
          app.channel(companyChannel(companyId)).join(connection)
        }
      ]
    }
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
 * The Feathers service path of a logged record event, by `<collection> <scope>`: a collection's own
 * path, and an upload's on its parent's pattern path (`v1/assignments/:assignmentId/uploads`),
 * where the typed client listens for it.
 */
function servicePaths(app: Application) {
  const paths = new Map<string, string>()
  for (const { resource, path } of registryOf(app).resources) paths.set(`${resource.path} ${path.split('/')[1]}`, path)
  return paths
}

/** Sends a company's new log events to its sockets here that may read them, in log order. */
function socketSender(app: Application) {
  let paths: Map<string, string> | undefined
  const sockets = app.get('sockets')
  return (companyId: number, events: DeliveredEvent[]) => {
    paths ??= servicePaths(app)
    const connections = app.channel(companyChannel(companyId)).connections as KeyedConnection[]
    for (const { entry, scope } of events) {
      const id = Number(entry.id)
      const readers = connections.filter(
        (connection) =>
          id > (connection.logFrom ?? Infinity) && (connection.logScopes === null || !!connection.logScopes?.has(scope))
      )
      if (readers.length === 0) continue
      const dot = entry.type.lastIndexOf('.')
      const path = paths.get(`${entry.type.slice(0, dot)} ${scope}`)
      // `company.recomputed` belongs to no service: it comes only as the log entry.
      if (path) sockets.emit(readers, `${path} ${entry.type.slice(dot + 1)}`, entry.data)
      sockets.emit(readers, LOG_EVENT, entry)
    }
  }
}

/** The socket event that carries every log entry whole (`id`, `type`, `occurredAt`, `data`, `actor`, `requestId`). */
export const LOG_EVENT = 'crewclock event'

/**
 * Realtime from the event log (CONTRACT §13.1): each instance follows the log of the companies that
 * have sockets on it (src/events/delivery.ts) and sends their sockets each new event, once and in
 * log order. After a write commits, the journal publishes `{ companyId, lastId }` on the bus; every
 * instance that follows the company reads the log after what it has sent. A lost wake-up (Redis
 * down, a write by the CLI) only delays events to the next poll.
 */
function deliverFromLog(app: Application) {
  const bus = app.get('bus')
  const delivery = new LogDelivery(app.get('knex'), {
    pollIntervalMs: app.get('realtime').logPollIntervalMs,
    listening: (companyId) => app.channel(companyChannel(companyId)).length > 0,
    deliver: socketSender(app),
    logger: app.get('logger')
  })
  app.set('eventDelivery', delivery)
  app.set('eventLogAppended', (companyId, lastId) => {
    const message: LogAppendedMessage = { companyId, lastId }
    // Delivered here at once; another instance that misses it finds the events at its next poll.
    bus.publish(TOPICS.eventLogAppended, message).catch(() => undefined)
  })
  const unsubscribe = bus.subscribe(TOPICS.eventLogAppended, (message) => {
    const { companyId, lastId } = (message ?? {}) as Partial<LogAppendedMessage>
    if (Number.isSafeInteger(companyId) && Number.isSafeInteger(lastId)) delivery.appended(companyId!, lastId!)
  })
  joinOnLogin(app, delivery)
  return () => {
    unsubscribe()
    delivery.stop()
  }
}

/**
 * A socket joins its company's channel once it has authenticated with an API key and receives the
 * events of that company's log that its key's scopes can read (`deliverFromLog`). Unauthenticated
 * sockets are in no channel and receive nothing; Feathers' own service events are published to no
 * socket (the log is the one source). A key that stops working (revoked, its user deactivated) has
 * its sockets disconnected on every instance: at once through the bus (`announceRevokedKeys`), else
 * by the periodic check of the keys in use.
 */
export const channels = (app: Application) => {
  const bus = app.get('bus')
  const stops = [
    deliverFromLog(app),
    bus.subscribe(TOPICS.apiKeysRevoked, (message) => disconnectKeys(app, idsIn(message, 'apiKeyIds'))),
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

declare module './declarations' {
  interface Configuration {
    /** Set by channels(): the reader of the event log that feeds this instance's sockets. */
    eventDelivery: LogDelivery
  }
}
