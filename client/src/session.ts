import type { Socket } from 'socket.io-client'
import { CallDescription, ClientClosed } from './errors'
import { Listeners } from './listeners'

/**
 * Where a client's connection is:
 * - `connecting`: not yet authenticated for the first time;
 * - `live`: connected and authenticated, events arrive;
 * - `reconnecting`: the connection was lost (events may be missed) and is being re-established;
 * - `unauthorized`: the API key was refused (revoked, mistyped); the client has stopped;
 * - `closed`: closed by the application (`client.close()`, or the socket's own `disconnect()`).
 * A REST client is always `live`.
 */
export type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'unauthorized' | 'closed'

/** What a client reports about its connection (socket clients; a REST client has none of these). */
export interface ClientEvents {
  /** The state changed. */
  state: (state: ConnectionState) => void
  /** The live connection was lost (`reason` as socket.io says it); events may be missed until `reconnected`. */
  disconnected: (reason: string) => void
  /**
   * Connected and authenticated again after a gap: events of the gap are lost, so reload what
   * the application shows (a `find`).
   */
  reconnected: () => void
  /** The API key was refused (401/403): the client has closed its connection and will not retry. */
  unauthorized: (error: Error) => void
}

/** Delays between reconnect attempts the client makes itself: doubling from `min` up to `max` ms. */
export interface ReconnectDelay {
  min: number
  max: number
}

/** The key is refused, not just unlucky: trying again cannot help. */
const isRefusal = (error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code
  return code === 401 || code === 403
}

/**
 * Keeps a socket client connected and authenticated with its API key. On every connect, first
 * and later, it authenticates with the key itself (never with the JWT of an earlier connection,
 * which may have expired); calls wait until that is done. After a disconnect that socket.io
 * does not retry (a server-side `io server disconnect`, a refused connection, reconnection turned
 * off or given up) it reconnects by itself, with growing delays.
 */
export class SocketSession {
  state: ConnectionState = 'connecting'
  /** Counts connections, so that an answer meant for an earlier one is ignored. */
  private epoch = 0
  private wasLive = false
  private reconnects = 0
  private authAttempts = 0
  private reconnectTimer?: ReturnType<typeof setTimeout>
  private authTimer?: ReturnType<typeof setTimeout>
  private refusal?: unknown
  private stopped = false
  private waiting = new Set<() => void>()
  private inflight = new Set<(reason: string) => void>()

  constructor(
    readonly socket: Socket,
    private readonly login: () => Promise<unknown>,
    private readonly events: Listeners<ClientEvents>,
    private readonly delay: ReconnectDelay
  ) {}

  start() {
    this.socket.on('connect', this.onConnect)
    this.socket.on('disconnect', this.onDisconnect)
    this.socket.on('connect_error', this.onConnectError)
    this.socket.io.on('reconnect_failed', this.onReconnectFailed)
    if (this.socket.connected) this.onConnect()
    else if (!this.socket.active) this.socket.connect()
  }

  /** Stops for good: no more reconnects; calls waiting or in flight fail; the socket is disconnected. */
  close() {
    if (this.stopped && this.state === 'closed') return
    this.stopped = true
    this.clearTimers()
    this.socket.off('connect', this.onConnect)
    this.socket.off('disconnect', this.onDisconnect)
    this.socket.off('connect_error', this.onConnectError)
    this.socket.io.off('reconnect_failed', this.onReconnectFailed)
    for (const lose of [...this.inflight]) lose('the client was closed')
    this.setState('closed')
    this.socket.disconnect()
  }

  /**
   * Resolves when a call can be sent: when the connection is authenticated, or for the
   * authentication itself when it is connected. Rejects once the key was refused or the client closed.
   */
  async ready(authentication: boolean, call: CallDescription): Promise<void> {
    for (;;) {
      if (this.state === 'unauthorized') throw this.refusal
      if (this.state === 'closed') throw new ClientClosed(call)
      if (authentication ? this.socket.connected : this.state === 'live') return
      await new Promise<void>((resolve) => this.waiting.add(resolve))
    }
  }

  /** Registers a call waiting for its answer; `lose` runs if the connection closes first. Returns the unregister. */
  track(lose: (reason: string) => void): () => void {
    this.inflight.add(lose)
    return () => this.inflight.delete(lose)
  }

  private setState(state: ConnectionState) {
    if (state === this.state) return
    this.state = state
    this.notify()
    this.events.emit('state', state)
  }

  private notify() {
    const waiting = [...this.waiting]
    this.waiting.clear()
    for (const resolve of waiting) resolve()
  }

  private readonly onConnect = () => {
    const epoch = ++this.epoch
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer)
    this.reconnectTimer = undefined
    this.setState(this.wasLive ? 'reconnecting' : 'connecting')
    // The authentication waits for a connection, not for a state.
    this.notify()
    this.authenticate(epoch)
  }

  private authenticate(epoch: number) {
    this.login().then(
      () => {
        if (epoch !== this.epoch || this.stopped) return
        this.authAttempts = 0
        this.reconnects = 0
        const gap = this.wasLive
        this.wasLive = true
        this.setState('live')
        if (gap) this.events.emit('reconnected')
      },
      (error: unknown) => {
        if (epoch !== this.epoch || this.stopped) return
        if (isRefusal(error)) return this.refuse(error)
        // The server is busy, limits the rate or did not answer: try again on this connection.
        this.authTimer = setTimeout(() => {
          this.authTimer = undefined
          if (epoch === this.epoch && !this.stopped) this.authenticate(epoch)
        }, this.backoff(this.authAttempts++))
      }
    )
  }

  private refuse(error: unknown) {
    this.refusal = error
    this.stopped = true
    this.clearTimers()
    this.setState('unauthorized')
    this.socket.disconnect()
    this.events.emit('unauthorized', error as Error)
  }

  private readonly onDisconnect = (reason: string) => {
    this.epoch++
    if (this.authTimer) clearTimeout(this.authTimer)
    this.authTimer = undefined
    for (const lose of [...this.inflight]) lose(reason)
    if (this.stopped) return
    if (reason === 'io client disconnect') return this.setState('closed')
    this.setState('reconnecting')
    this.events.emit('disconnected', reason)
    if (!this.socketIoRetries()) this.scheduleReconnect()
  }

  /** Whether socket.io's manager will reconnect by itself (it never does after a server-side disconnect). */
  private socketIoRetries() {
    return this.socket.active && this.socket.io.reconnection()
  }

  private readonly onConnectError = () => {
    if (!this.stopped && !this.socketIoRetries()) this.scheduleReconnect()
  }

  private readonly onReconnectFailed = () => {
    if (!this.stopped) this.scheduleReconnect()
  }

  private scheduleReconnect() {
    if (this.reconnectTimer || this.socket.connected) return
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined
      if (!this.stopped && !this.socket.connected) this.socket.connect()
    }, this.backoff(this.reconnects++))
  }

  /** Doubling delays with jitter, so that many clients of a restarted server do not come back at once. */
  private backoff(attempt: number) {
    const delay = Math.min(this.delay.max, this.delay.min * 2 ** Math.min(attempt, 20))
    return delay * (0.5 + Math.random() / 2)
  }

  private clearTimers() {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer)
    if (this.authTimer) clearTimeout(this.authTimer)
    this.reconnectTimer = this.authTimer = undefined
  }
}
