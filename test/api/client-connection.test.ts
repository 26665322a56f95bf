import assert from 'node:assert/strict'
import http from 'node:http'
import net from 'node:net'
import { Server as SocketIoServer } from 'socket.io'
import { io, Socket } from 'socket.io-client'
import socketio from '@feathersjs/socketio-client'
import { forEachDatabase, TestCompany } from '../support/harness'
import { TcpProxy } from '../support/proxy'
import { until } from '../support/wait'
import { revokeApiKey } from '../../src/auth/api-keys'
import { createClient, createRestClient, createSocketClient } from '../../client/src'
import type { CrewclockClient } from '../../client/src'

/**
 * How @crewclock/client lives with its connection: every call settles within its timeout, a
 * call on a lost socket fails at once, and after any server-side disconnect the client
 * reconnects, authenticates again with its API key and says so (`reconnected`), with no
 * reconnect code in the application (CONTRACT §12).
 */

const FAST = { min: 20, max: 200 }

const openSocket = (url: string, reconnection: boolean): Socket =>
  io(url, { transports: ['websocket'], forceNew: true, reconnection, reconnectionDelay: 50, reconnectionDelayMax: 200 })

/** Unhandled promise rejections while a test runs (a client must never leave one behind). */
function unhandledRejections() {
  const seen: unknown[] = []
  const listener = (reason: unknown) => seen.push(reason)
  beforeEach(() => {
    seen.length = 0
    process.on('unhandledRejection', listener)
  })
  afterEach(() => {
    process.off('unhandledRejection', listener)
  })
  return seen
}

/** The authentication payloads a socket sent (`create` on `authentication`). */
function sentAuthentications(socket: Socket) {
  const sent: unknown[] = []
  socket.onAnyOutgoing((event: string, path: unknown, data: unknown) => {
    if (event === 'create' && path === 'authentication') sent.push(data)
  })
  return sent
}

/** Every service call a socket sent, as `method path`. */
function sentCalls(socket: Socket) {
  const sent: string[] = []
  socket.onAnyOutgoing((event: string, path: unknown) => sent.push(`${event} ${String(path)}`))
  return sent
}

/** A free port on 127.0.0.1, closed again. */
async function freePort() {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as net.AddressInfo).port
  await new Promise((resolve) => server.close(resolve))
  return port
}

/**
 * A socket.io server that accepts the key `ck_fake` and then never answers a service call, or
 * (with `dropOnCall`) disconnects the socket that made it: a server that hangs, or one that goes
 * away in the middle of a call.
 */
async function fakeServer({ dropOnCall }: { dropOnCall: boolean }) {
  const httpServer = http.createServer()
  const ioServer = new SocketIoServer(httpServer)
  const authentications: unknown[] = []
  ioServer.on('connection', (socket) => {
    socket.onAny((event: string, path: unknown, ...rest: unknown[]) => {
      const ack = rest.pop() as (error: unknown, result?: unknown) => void
      if (event === 'create' && path === 'authentication') {
        authentications.push(rest[0])
        return ack(null, { accessToken: 'not used', authentication: { strategy: 'apiKey' } })
      }
      if (dropOnCall) socket.disconnect(true)
    })
  })
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(httpServer.address() as net.AddressInfo).port}`
  return {
    url,
    authentications,
    close: () => new Promise((resolve) => ioServer.close(resolve))
  }
}

describe('typed client: calls on a dead connection', () => {
  const rejections = unhandledRejections()
  afterEach(() => assert.deepEqual(rejections, []))

  it('a REST call to a server that never answers rejects with Timeout, and its request is aborted', async () => {
    // The connections that carried a request, and those of them the client closed.
    let requests = 0
    let closed = 0
    const server = net.createServer((socket) => {
      socket.once('data', () => {
        requests++
        socket.once('close', () => closed++)
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`
      const client = createRestClient(url, 'ck_any', { timeout: 300 })
      const started = Date.now()
      await assert.rejects(
        client.service('v1/customers').find({ query: { size: 5 } }),
        (e: any) =>
          e.name === 'Timeout' &&
          e.code === 408 &&
          e.message === 'find v1/customers: no answer within 300 ms' &&
          e.data.waitedForConnection === false
      )
      assert.ok(Date.now() - started >= 290, 'not before its time')
      // A call's own timeout wins over the client's.
      await assert.rejects(client.service('v1/customers').get(1, { timeout: 50 }), (e: any) => e.data.timeoutMs === 50)
      await until(() => requests === 2 && closed === 2)
    } finally {
      server.close()
    }
  })

  it('a socket call while the connection cannot come up rejects with Timeout and is never sent afterwards', async () => {
    const port = await freePort()
    const socket = io(`http://127.0.0.1:${port}`, { transports: ['websocket'], forceNew: true, reconnection: false })
    const calls = sentCalls(socket)
    const server = await fakeServer({ dropOnCall: false })
    const proxy = new TcpProxy('127.0.0.1', Number(new URL(server.url).port))
    const client = createClient(socketio(socket), 'ck_fake', { timeout: 300, reconnectDelay: FAST })
    try {
      await assert.rejects(
        client.service('v1/projects').create({ number: 'never sent' }),
        (e: any) => e.name === 'Timeout' && e.data.waitedForConnection === true && /not sent/.test(e.message)
      )
      assert.equal(client.state, 'connecting')
      // The server comes up on that port: the client connects and authenticates by itself.
      proxy.port = port
      await proxy.start()
      await client.ready(60_000)
      assert.deepEqual(server.authentications, [{ strategy: 'apiKey', apiKey: 'ck_fake' }])
      assert.deepEqual(calls, ['create authentication'], 'the timed-out create never went out')
    } finally {
      client.close()
      await proxy.stop()
      await server.close()
    }
  })

  it('a socket call to a server that stops answering rejects with Timeout', async () => {
    const server = await fakeServer({ dropOnCall: false })
    const socket = openSocket(server.url, false)
    try {
      const client = await createSocketClient(socket, 'ck_fake', { timeout: 300 })
      await assert.rejects(
        client.service('v1/customers').find(),
        (e: any) => e.name === 'Timeout' && e.message === 'find v1/customers: no answer within 300 ms'
      )
      assert.equal(client.state, 'live')
    } finally {
      socket.close()
      await server.close()
    }
  })

  it('a call in flight when the server disconnects rejects at once with ConnectionLost; the client comes back by itself', async () => {
    const server = await fakeServer({ dropOnCall: true })
    const socket = openSocket(server.url, false)
    try {
      const client = await createSocketClient(socket, 'ck_fake', { timeout: 120_000, reconnectDelay: FAST })
      const disconnects: string[] = []
      client.on('disconnected', (reason) => disconnects.push(reason))
      let reconnected = 0
      client.on('reconnected', () => reconnected++)
      await assert.rejects(
        client.service('v1/customers').get(1),
        (e: any) =>
          e.name === 'Unavailable' &&
          e.code === 503 &&
          e.data.reason === 'io server disconnect' &&
          /may have/.test(e.message)
      )
      assert.deepEqual(disconnects, ['io server disconnect'])
      await until(() => reconnected === 1)
      assert.equal(client.state, 'live')
      assert.deepEqual(server.authentications, [
        { strategy: 'apiKey', apiKey: 'ck_fake' },
        { strategy: 'apiKey', apiKey: 'ck_fake' }
      ])
    } finally {
      socket.close()
      await server.close()
    }
  })
})

forEachDatabase('typed client: staying live', (suite) => {
  const rejections = unhandledRejections()
  const clients: CrewclockClient[] = []
  afterEach(() => {
    for (const client of clients.splice(0)) client.close()
    assert.deepEqual(rejections, [])
  })

  const connect = async (company: TestCompany, reconnection: boolean) => {
    const socket = openSocket(suite.server().url, reconnection)
    const authentications = sentAuthentications(socket)
    const client = await createSocketClient(socket, company.apiKey, { reconnectDelay: FAST })
    clients.push(client)
    const gaps: string[] = []
    client.on('disconnected', (reason) => gaps.push(`disconnected: ${reason}`))
    client.on('reconnected', () => gaps.push('reconnected'))
    return { client, socket, authentications, gaps }
  }

  /** The two ways a server drops its sockets: a socket.io disconnect (never retried by socket.io) and a transport close. */
  const drops = {
    'io server disconnect': (io: SocketIoServer) => io.disconnectSockets(true),
    'transport close': (io: SocketIoServer) => {
      for (const socket of io.sockets.sockets.values()) socket.conn.close()
    }
  }

  for (const [reason, drop] of Object.entries(drops)) {
    for (const reconnection of [false, true]) {
      it(`after a server-side ${reason}, reconnects, authenticates again with the key and receives later events (socket.io reconnection ${reconnection ? 'on' : 'off'})`, async () => {
        const company = await suite.company()
        const { client, authentications, gaps } = await connect(company, reconnection)
        const numbers: string[] = []
        client.service('v1/projects').on('created', (project) => numbers.push(project.number))

        drop(suite.server().app.io as SocketIoServer)
        await until(() => gaps.length > 0)
        // A call made in the gap waits for the new connection's authentication, then goes out.
        const during = client.service('v1/projects').find({ query: { size: 1 } })
        assert.equal((await during).size, 1)
        await until(() => gaps.includes('reconnected'))
        assert.deepEqual(gaps, [`disconnected: ${reason}`, 'reconnected'])
        assert.equal(client.state, 'live')

        const created = await company.api.post('/v1/projects', { number: `AFTER-${reconnection}-${Date.now()}` })
        assert.equal(created.status, 201)
        await until(() => numbers.includes(created.body.number))
        // Each connection authenticated with the key itself, never with the JWT of the one before.
        assert.deepEqual(authentications, [
          { strategy: 'apiKey', apiKey: company.apiKey },
          { strategy: 'apiKey', apiKey: company.apiKey }
        ])
      })
    }
  }

  it('a key revoked while connected ends in `unauthorized`: no more retries, calls reject with the 401 at once', async () => {
    const company = await suite.company()
    const { client, socket, authentications } = await connect(company, true)
    const refusals: { code?: number }[] = []
    client.on('unauthorized', (error) => refusals.push(error as { code?: number }))
    // The server closes the key's sockets (its revocation sweep); the client's new authentication is refused.
    await revokeApiKey(suite.server().knex, company.apiKeyId)
    await until(() => refusals.length === 1)
    assert.equal(refusals[0].code, 401)
    assert.equal(client.state, 'unauthorized')
    assert.equal(socket.connected, false)
    assert.equal(socket.active, false, 'the socket will not reconnect')
    await assert.rejects(client.service('v1/projects').find(), (e: any) => e.code === 401)
    assert.equal(authentications.length, 2)
  })

  it('createSocketClient rejects a refused key with the 401 and closes the socket', async () => {
    const socket = openSocket(suite.server().url, true)
    const authentications = sentAuthentications(socket)
    await assert.rejects(createSocketClient(socket, 'ck_nope'), (e: any) => e.code === 401)
    assert.equal(socket.connected, false)
    assert.equal(socket.active, false)
    assert.equal(authentications.length, 1)
  })
})
