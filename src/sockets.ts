import type { IncomingMessage } from 'node:http'
import type { RealTimeConnection } from '@feathersjs/feathers'
import type { Server, Socket } from 'socket.io'
import type { Application } from './declarations'
import { Unavailable } from '@feathersjs/errors'
import { ackOf, socketMethodGuard, type SocketPacket } from './middleware/methods'
import { refusePrototypeKeysInSocketCalls } from './middleware/prototype-keys'

declare module './declarations' {
  interface Configuration {
    /** Set by createApp(): the socket.io connections of this instance. */
    sockets: SocketRegistry
  }
}

/** Answers a socket call with 503 without running it (an instance that stops); a call without acknowledgement is dropped. */
function refuseWhileStopping(packet: SocketPacket) {
  const ack = ackOf(packet)
  const error = new Unavailable('The server is shutting down; send the call again (it was not run)', {
    reason: 'shutting-down'
  })
  if (ack) ack(error.toJSON())
}

/** The Feathers methods a socket calls with an acknowledgement that Feathers always answers. */
const CALLS = new Set(['find', 'get', 'create', 'update', 'patch', 'remove'])

/**
 * The socket.io connections of this instance: which socket carries which Feathers connection (to
 * close the sockets of a key or a company), whether new ones are admitted, and the calls still
 * running on them (a shutdown lets them finish). Two ways to end a socket:
 * - `close`: the transport closes (engine.io), the client sees `transport close` and socket.io
 *   reconnects on its own: for a restart;
 * - `disconnect`: socket.io's server disconnect, which clients never retry: for a key that no
 *   longer authenticates, where a reconnect could only fail.
 */
export class SocketRegistry {
  private readonly byConnection = new Map<RealTimeConnection, Socket>()
  /** The calls running on each socket; a socket that goes away takes its calls off the count. */
  private readonly running = new Map<Socket, Set<object>>()
  private inFlight = 0
  private stopping = false
  private io?: Server

  constructor(private readonly app: Application) {}

  /**
   * engine.io's `allowRequest`: no new socket while the instance stops; the client gets a
   * connection error and socket.io retries with its backoff (to another instance, or this one's
   * successor). A Redis outage refuses nothing: events come from the event log, which every
   * instance reads (channels.ts).
   */
  readonly admit = (_request: IncomingMessage, callback: (error: string | null | undefined, ok: boolean) => void) => {
    if (this.stopping) return callback('The server is shutting down', false)
    callback(null, true)
  }

  /**
   * Registers each new socket. A socket that has not authenticated within
   * `security.socketAuthTimeoutMs` is disconnected: unauthenticated sockets receive nothing, and
   * would otherwise hold memory and a file descriptor for as long as a client cares to keep them open.
   * A logout starts the same clock again: the socket is unauthenticated from then on (it stayed
   * connected for good before, found by a review).
   */
  track(io: Server) {
    const authDeadlines = new WeakMap<RealTimeConnection, NodeJS.Timeout>()
    const authTimeoutMs = this.app.get('security').socketAuthTimeoutMs
    const logger = this.app.get('logger')
    this.io = io
    const armDeadline = (connection: RealTimeConnection, socket: Socket) => {
      clearTimeout(authDeadlines.get(connection))
      const deadline = setTimeout(() => {
        if (!(connection as { authentication?: unknown }).authentication) socket.disconnect(true)
      }, authTimeoutMs)
      deadline.unref()
      authDeadlines.set(connection, deadline)
    }
    this.app.on('login', (_result: unknown, { connection }: { connection?: RealTimeConnection } = {}) => {
      if (connection) clearTimeout(authDeadlines.get(connection))
    })
    this.app.on('logout', (_result: unknown, { connection }: { connection?: RealTimeConnection } = {}) => {
      const socket = connection && this.byConnection.get(connection)
      if (socket) armDeadline(connection, socket)
    })
    io.on('connection', (socket: Socket) => {
      const connection = (socket as Socket & { feathers: RealTimeConnection }).feathers
      this.byConnection.set(connection, socket)
      const running = new Set<object>()
      this.running.set(socket, running)
      logger.debug({ socketId: socket.id }, 'socket connected')
      armDeadline(connection, socket)
      socket.use(socketMethodGuard(this.app))
      socket.use(refusePrototypeKeysInSocketCalls)
      socket.use((packet, next) => {
        // A call that arrives while the instance stops is answered, not run: run, it could be cut
        // off by the sockets' close after the drain, committed but answered as failed (found by a
        // review: six of six such writes were stored). Refused, it is safe to send again.
        if (this.stopping) return refuseWhileStopping(packet)
        this.countCall(running, packet)
        next()
      })
      socket.once('disconnect', () => {
        clearTimeout(authDeadlines.get(connection))
        this.byConnection.delete(connection)
        this.inFlight -= running.size
        this.running.delete(socket)
      })
    })
  }

  /** Wraps the acknowledgement of a call that passed the guards, so the call counts until it is answered. */
  private countCall(running: Set<object>, packet: unknown[]) {
    const last = packet.length - 1
    const ack = packet[last]
    if (!CALLS.has(packet[0] as string) || typeof ack !== 'function') return
    const call = {}
    running.add(call)
    this.inFlight++
    packet[last] = (...results: unknown[]) => {
      if (running.delete(call)) this.inFlight--
      ack(...results)
    }
  }

  get size() {
    return this.byConnection.size
  }

  /** Service calls that sockets are waiting for. */
  get callsInFlight() {
    return this.inFlight
  }

  connections() {
    return this.byConnection.keys()
  }

  /**
   * Sends one message to these connections' sockets: socket.io encodes it once for all of them
   * (a broadcast to their ids), and each socket gets the messages in the order they were sent.
   */
  emit(connections: Iterable<RealTimeConnection>, event: string, payload: unknown) {
    const ids: string[] = []
    for (const connection of connections) {
      const socket = this.byConnection.get(connection)
      if (socket) ids.push(socket.id)
    }
    if (ids.length > 0) this.io?.to(ids).emit(event, payload)
  }

  /** Closes the transport of the sockets `which` selects (all by default): their clients reconnect. */
  close(which: (connection: RealTimeConnection) => boolean = () => true) {
    for (const [connection, socket] of this.byConnection) if (which(connection)) socket.conn.close()
  }

  /** Disconnects the sockets `which` selects with socket.io's server disconnect: their clients stay away. */
  disconnect(which: (connection: RealTimeConnection) => boolean) {
    for (const [connection, socket] of this.byConnection) if (which(connection)) socket.disconnect(true)
  }

  /** From now on no socket is admitted (a shutdown). */
  refuseNew() {
    this.stopping = true
  }
}
