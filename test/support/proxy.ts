import net from 'node:net'

/**
 * A TCP proxy in front of the test database. `stop()` behaves like a database server going
 * down (open connections are reset, new ones refused); `start()` brings it back on the same
 * port, or as a host that accepts connections and never answers. It lets a test take the database away from one app instance without touching the
 * PostgreSQL server that other test runs share.
 */
export class TcpProxy {
  private server?: net.Server
  private readonly sockets = new Set<net.Socket>()
  port = 0

  constructor(
    readonly targetHost: string,
    readonly targetPort: number
  ) {}

  /** `url` with its host and port replaced by the proxy's. */
  proxiedUrl(url: string) {
    const u = new URL(url)
    u.hostname = '127.0.0.1'
    u.port = String(this.port)
    return u.toString()
  }

  /** `unresponsive`: accept connections but never answer, like a host that stopped responding. */
  start({ unresponsive = false } = {}): Promise<void> {
    const server = net.createServer((client) => (unresponsive ? this.hold(client) : this.relay(client)))
    this.server = server
    return new Promise((resolve, reject) => {
      server.once('error', reject)
      server.listen(this.port, '127.0.0.1', () => {
        this.port = (server.address() as net.AddressInfo).port
        resolve()
      })
    })
  }

  stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy()
    this.sockets.clear()
    const server = this.server
    this.server = undefined
    return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()))
  }

  private hold(client: net.Socket) {
    this.sockets.add(client)
    client.on('close', () => this.sockets.delete(client))
    client.on('error', () => client.destroy())
  }

  private relay(client: net.Socket) {
    const upstream = net.connect(this.targetPort, this.targetHost)
    for (const socket of [client, upstream]) {
      this.sockets.add(socket)
      socket.on('close', () => this.sockets.delete(socket))
      // Either side failing ends the pair, like a dropped connection.
      socket.on('error', () => (socket === client ? upstream : client).destroy())
    }
    client.pipe(upstream)
    upstream.pipe(client)
  }
}
