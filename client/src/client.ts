import { feathers } from '@feathersjs/feathers'
import type { Application, TransportConnection } from '@feathersjs/feathers'
import rest from '@feathersjs/rest-client'
import socketio from '@feathersjs/socketio-client'
import type { Socket } from 'socket.io-client'
import { CallTimeout } from './errors'
import { callGuard } from './guard'
import { Listeners } from './listeners'
import { bearerKey, nullFilters } from './rest'
import type { CrewclockServices, ServicePath, Transport } from './services'
import { ClientEvents, ConnectionState, ReconnectDelay, SocketSession } from './session'
import { fillRoute, multipartCreate, parentUploads, UPLOAD_PARENTS } from './uploads'
import type { ParentUploads, RawUploads, UploadParent, UploadTarget } from './uploads'

export interface ClientOptions {
  /** Milliseconds a call may take, waiting for the connection included (default 10 000). */
  timeout?: number
  /**
   * The HTTP base of the API (`https://crewclock.example.com`), for uploads, which are posted
   * over HTTP. Default: a REST client's URL, a socket client's socket URL (else the page's origin).
   */
  baseUrl?: string
  /** The fetch of uploads (and of `createRestClient`'s requests). Default: the global fetch. */
  fetch?: typeof fetch
  /** Delays of the reconnects the client makes itself (default 500 ms doubling to 10 s). */
  reconnectDelay?: Partial<ReconnectDelay>
}

export const DEFAULT_TIMEOUT_MS = 10_000
const DEFAULT_RECONNECT_DELAY: ReconnectDelay = { min: 500, max: 10_000 }

/** The typed API: services by path, uploads per parent, and the connection's state and events. */
export interface CrewclockClient<T extends Transport = Transport> {
  /** The Feathers application behind the client. */
  readonly app: Application
  readonly transport: T
  /** A service by path: `client.service('v1/assignments')`, `client.service('v1/assignments/:assignmentId/uploads')`. */
  service<P extends ServicePath>(path: P): CrewclockServices<T>[P]
  /** The uploads of one assignment or assignment event (the nested service with its route parameter filled in). */
  uploads(parent: UploadParent, parentId: number): ParentUploads<T>
  /** Where the connection is (a REST client is always `live`). */
  readonly state: ConnectionState
  /**
   * Resolves once the client is connected and authenticated (at once for REST); rejects with the
   * refusal (401) when the key is refused, or with CallTimeout after `timeout` ms (default: the client's).
   */
  ready(timeout?: number): Promise<void>
  on<E extends keyof ClientEvents>(event: E, listener: ClientEvents[E]): this
  off<E extends keyof ClientEvents>(event: E, listener: ClientEvents[E]): this
  /** Stops the client: no more reconnects, pending calls fail, a socket is disconnected. */
  close(): void
}

const trimSlash = (url: string) => url.replace(/\/+$/, '')

/**
 * The fetch to use, callable as a method of anything: the rest client calls it as one of its
 * services, and a browser's fetch refuses that ("Illegal invocation").
 */
const unbound =
  (given?: typeof fetch): typeof fetch =>
  (input, init) =>
    given ? given(input, init) : fetch(input, init)

/** The HTTP origin a socket talks to: its URL, else the page's. */
function socketOrigin(socket: Socket): string | undefined {
  // The Manager keeps the URL it was given (`io(url)`); its typings call it private.
  const uri = (socket.io as unknown as { uri?: unknown }).uri
  const base = typeof uri === 'string' && uri ? uri : globalThis.location?.origin
  return base ? new URL(base, globalThis.location?.href).origin : undefined
}

/**
 * A typed client for any Feathers connection, in the style of the Feathers generator's client:
 * `createClient(socketio(socket), apiKey)` or `createClient(rest(url).fetch(fetch), apiKey)`.
 * A socket client authenticates with the key on every (re)connect; calls wait for that. Use
 * `createSocketClient` or `createRestClient` to have the transport in the types.
 */
export function createClient(
  connection: TransportConnection,
  apiKey: string,
  options: ClientOptions = {}
): CrewclockClient {
  const app = feathers()
  app.configure(connection)
  const socket: Socket | undefined = app.io
  const events = new Listeners<ClientEvents>()
  const session = socket
    ? new SocketSession(socket, () => app.service('authentication').create({ strategy: 'apiKey', apiKey }), events, {
        ...DEFAULT_RECONNECT_DELAY,
        ...options.reconnectDelay
      })
    : undefined
  const timeout = options.timeout ?? DEFAULT_TIMEOUT_MS
  const fetchImpl = unbound(options.fetch)
  const target: UploadTarget = {
    apiKey,
    fetch: fetchImpl,
    urlOf(path, route) {
      const base = options.baseUrl ?? (socket ? socketOrigin(socket) : restBase(app))
      if (!base) throw new Error('Uploads need the HTTP address of the API: pass { baseUrl } to the client')
      return `${trimSlash(base)}/${fillRoute(path, route)}`
    }
  }
  app.hooks([callGuard(timeout, session), ...(socket ? [] : [bearerKey(apiKey), nullFilters]), multipartCreate(target)])
  session?.start()

  const client: CrewclockClient = {
    app,
    transport: socket ? 'socket' : 'rest',
    service: <P extends ServicePath>(path: P) => app.service(path) as unknown as CrewclockServices[P],
    uploads: (parent, parentId) =>
      parentUploads(
        app.service(`v1/${parent}/:${UPLOAD_PARENTS[parent]}/uploads`) as unknown as RawUploads,
        parent,
        parentId
      ),
    get state() {
      return session?.state ?? 'live'
    },
    ready: (ms = timeout) => (session ? readyWithin(session, ms) : Promise.resolve()),
    on(event, listener) {
      events.on(event, listener)
      return client
    },
    off(event, listener) {
      events.off(event, listener)
      return client
    },
    close: () => session?.close()
  }
  return client
}

/** A REST client's base URL, as the rest-client builds service URLs (`<base>/<path>`). */
function restBase(app: Application): string | undefined {
  const probe = app.defaultService?.('') as { base?: unknown } | undefined
  return typeof probe?.base === 'string' ? probe.base : undefined
}

function readyWithin(session: SocketSession, ms: number): Promise<void> {
  const call = { path: 'authentication', method: 'create' }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new CallTimeout({ ...call, timeoutMs: ms }, true)), ms)
    session.ready(false, call).then(
      () => {
        clearTimeout(timer)
        resolve()
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      }
    )
  })
}

/**
 * A client over socket.io, with live events: resolves once the connection is authenticated with
 * the key (rejects, closing the socket, when the key is refused or nothing answers within the
 * timeout). It re-authenticates by itself after every reconnect, reconnects by itself after a
 * server-side disconnect, and reports gaps (`reconnected`).
 */
export async function createSocketClient(
  socket: Socket,
  apiKey: string,
  options: ClientOptions = {}
): Promise<CrewclockClient<'socket'>> {
  const client = createClient(socketio(socket), apiKey, options) as CrewclockClient<'socket'>
  try {
    await client.ready()
  } catch (error) {
    client.close()
    throw error
  }
  return client
}

/** A client over REST: every request carries the key. The third argument is a fetch or the options. */
export function createRestClient(
  baseUrl: string,
  apiKey: string,
  fetchOrOptions: typeof fetch | ClientOptions = {}
): CrewclockClient<'rest'> {
  const options = typeof fetchOrOptions === 'function' ? { fetch: fetchOrOptions } : fetchOrOptions
  const base = trimSlash(baseUrl)
  return createClient(rest(base).fetch(unbound(options.fetch)), apiKey, {
    baseUrl: base,
    ...options
  }) as CrewclockClient<'rest'>
}
