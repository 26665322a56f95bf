import { ChildProcess, spawn } from 'node:child_process'
import net from 'node:net'
import { io, ManagerOptions, Socket, SocketOptions } from 'socket.io-client'
import { eventually, until } from './wait'

/** A service event as a plain socket.io client receives it: `'v1/customers created'` with the record. */
export interface ReceivedEvent {
  path: string
  event: string
  data: any
}

/**
 * A socket as a plain integrator writes one with socket.io-client alone: socket.io's default
 * reconnection, and a handler that authenticates with the API key on every `connect` (the first
 * and each reconnect). It records what a test looks at: the events, why the socket was closed,
 * how many logins succeeded, the connection errors.
 */
export interface LiveSocket {
  socket: Socket
  events: ReceivedEvent[]
  /** socket.io's reason of each disconnect: `transport close`, `io server disconnect`, ... */
  disconnects: string[]
  /** What happened, in order: `login`, `disconnect: <reason>`, `<path> <event>`. */
  timeline: string[]
  logins: number
  connectErrors: number
  /** Set when the last `authenticate` was refused. */
  lastAuthError: any
  /** The answer of the last successful `authenticate` (with the `accessToken` Feathers minted). */
  lastAuthResult: any
  /** Resolves once the socket has logged in `count` times in all. */
  loggedIn(count?: number): Promise<void>
  /** A service call over the socket (`find`, `create`, ...), resolving with Feathers' error or result. */
  call(method: string, path: string, ...args: unknown[]): Promise<{ error: any; result: any }>
  /** Events of one service path (and kind, if given). */
  of(path: string, event?: string): ReceivedEvent[]
  close(): void
}

/** `credentials`: an API key, or any authentication request (`{ strategy: 'jwt', accessToken }`). */
export function liveSocket(
  url: string,
  credentials: string | Record<string, unknown>,
  options: Partial<ManagerOptions & SocketOptions> = {}
): LiveSocket {
  const authentication = typeof credentials === 'string' ? { strategy: 'apiKey', apiKey: credentials } : credentials
  const socket = io(url, { transports: ['websocket'], forceNew: true, ...options })
  const live: LiveSocket = {
    socket,
    events: [],
    disconnects: [],
    timeline: [],
    logins: 0,
    connectErrors: 0,
    lastAuthError: undefined,
    lastAuthResult: undefined,
    loggedIn: (count = 1) => until(() => live.logins >= count),
    call: (method, path, ...args) =>
      new Promise((resolve) =>
        socket.emit(method, path, ...args, (error: any, result: any) => resolve({ error, result }))
      ),
    of: (path, event) => live.events.filter((e) => e.path === path && (!event || e.event === event)),
    close: () => void socket.close()
  }
  socket.on('connect', () => {
    socket.emit('create', 'authentication', authentication, (error: any, result: any) => {
      if (error) live.lastAuthError = error
      else {
        live.lastAuthResult = result
        live.logins++
        live.timeline.push('login')
      }
    })
  })
  socket.on('disconnect', (reason) => {
    live.disconnects.push(reason)
    live.timeline.push(`disconnect: ${reason}`)
  })
  socket.on('connect_error', () => live.connectErrors++)
  socket.onAny((name: string, data: unknown) => {
    const match = /^(.+) (created|updated|patched|removed)$/.exec(name)
    if (!match) return
    live.events.push({ path: match[1], event: match[2], data })
    live.timeline.push(name)
  })
  return live
}

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = net.createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo
      probe.close(() => resolve(port))
    })
  })

export const redisAnswers = (url: string) =>
  new Promise<boolean>((resolve) => {
    const { hostname, port } = new URL(url)
    const socket = net.connect(Number(port || 6379), hostname)
    socket.once('connect', () => (socket.end(), resolve(true)))
    socket.once('error', () => resolve(false))
  })

/** A redis-server of the test's own on `port`, so that stopping it leaves the shared one alone. */
export async function ownRedis(port: number): Promise<{ url: string; stop: () => Promise<void> }> {
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' }
  )
  // Not left behind when mocha exits early (a timeout).
  const kill = () => child.kill('SIGKILL')
  process.once('exit', kill)
  child.once('exit', () => process.removeListener('exit', kill))
  const url = `redis://127.0.0.1:${port}`
  await eventually(
    () => redisAnswers(url),
    (answers) => answers
  )
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGKILL')
      })
  }
}
