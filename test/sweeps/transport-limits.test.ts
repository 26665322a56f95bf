import assert from 'node:assert/strict'
import net from 'node:net'
import zlib from 'node:zlib'
import type { Server } from 'node:http'
import { io, Socket } from 'socket.io-client'
import WebSocket from 'ws'
import { forEachDatabase, TestCompany } from '../support/harness'
import { HttpClient } from '../support/http'
import { socketClient } from '../support/socket'
import { createApp } from '../../src/app'
import { startServe, stopProcess } from '../support/cli'
import type { Application } from '../../src/declarations'

/** A raw socket call as any socket.io client can send it, answered through its acknowledgement. */
function call(socket: Socket, event: string, ...args: unknown[]) {
  return new Promise<{ error: any; result: any }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${event} ${JSON.stringify(args)}: no answer`)), 60000)
    socket.emit(event, ...args, (error: any, result: any) => {
      clearTimeout(timer)
      resolve({ error, result })
    })
  })
}

/** Whether a TCP connection to host:port is accepted (true) or refused (the error code). */
const tcpAnswer = (host: string, port: number) =>
  new Promise<true | string>((resolve) => {
    const socket = net.connect(port, host)
    socket.once('connect', () => (socket.destroy(), resolve(true)))
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'))
  })

const connected = (socket: Socket) =>
  new Promise<void>((resolve, reject) => {
    if (socket.connected) return resolve()
    socket.once('connect', () => resolve())
    socket.once('connect_error', reject)
  })

forEachDatabase('transport limits', (suite) => {
  let company: TestCompany

  before(async () => {
    company = await suite.company()
  })

  describe('Content-Encoding', () => {
    const body = JSON.stringify({ companyName: 'Encoded GmbH' })
    const post = (encoding: string, payload: Buffer) =>
      new HttpClient(suite.server().url, company.apiKey).request('POST', '/v1/customers', undefined, {
        raw: new Uint8Array(payload),
        headers: { 'content-type': 'application/json', 'content-encoding': encoding }
      })

    it('decodes identity, gzip, deflate and br (codings are case-insensitive)', async () => {
      const cases: [string, Buffer][] = [
        ['identity', Buffer.from(body)],
        ['gzip', zlib.gzipSync(body)],
        ['deflate', zlib.deflateSync(body)],
        ['br', zlib.brotliCompressSync(body)],
        ['GZip', zlib.gzipSync(body)]
      ]
      for (const [encoding, payload] of cases) {
        const res = await post(encoding, payload)
        assert.equal(res.status, 201, `${encoding}: ${res.text}`)
        assert.equal(res.body.companyName, 'Encoded GmbH')
      }
    })

    it('refuses any other coding with 415 naming it, and a body that does not decode with 400', async () => {
      for (const encoding of ['zstd', 'compress', 'gzip, br', 'x-unknown']) {
        const res = await post(encoding, Buffer.from(body))
        assert.equal(res.status, 415, `${encoding}: ${res.text}`)
        assert.equal(res.body.name, 'UnsupportedMediaType')
        assert.ok(res.body.message.includes(`"${encoding}"`), res.body.message)
      }
      // Uploads reach the multipart parser as sent: only identity.
      const upload = await new HttpClient(suite.server().url, company.apiKey).request(
        'POST',
        '/v1/assignments/1/uploads',
        undefined,
        {
          raw: new Uint8Array(zlib.gzipSync('--x\r\n')),
          headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-encoding': 'gzip' }
        }
      )
      assert.equal(upload.status, 415, upload.text)
      for (const encoding of ['gzip', 'deflate', 'br']) {
        const res = await post(encoding, Buffer.from('not compressed at all'))
        assert.equal(res.status, 400, `${encoding} with a plain body: ${res.text}`)
        assert.equal(res.body.name, 'BadRequest')
      }
    })

    it('bounds the decoded size, not the sent size (a compression bomb is 413)', async () => {
      const bomb = zlib.gzipSync(JSON.stringify({ companyName: 'x'.repeat(20 * 1024 * 1024) }))
      assert.ok(bomb.length < 100 * 1024, `the bomb is small when sent (${bomb.length} bytes)`)
      const res = await post('gzip', bomb)
      assert.equal(res.status, 413, res.text)
      assert.equal((await suite.server().http.get('/health')).status, 200)
    })
  })

  describe('socket calls', () => {
    let socket: Socket
    let close: () => void

    before(async () => {
      const client = socketClient(suite.server().url)
      socket = client.socket
      close = client.close
      await client.client.authenticate({ strategy: 'apiKey', apiKey: company.apiKey })
    })

    after(() => close())

    it('a method the service does not offer is 405 MethodNotAllowed, an unknown path 404 (not left unanswered)', async () => {
      const cases: [string, unknown[]][] = [
        ['update', ['v1/customers', 1, { companyName: 'X' }, {}]],
        ['remove', ['v1/time-sheet-days', 1, {}]],
        ['create', ['v1/time-sheet-weeks', { status: 'draft' }, {}]]
      ]
      for (const [method, args] of cases) {
        const { error } = await call(socket, method, ...args)
        assert.equal(error?.code, 405, `${method} ${args[0]}: ${JSON.stringify(error)}`)
        assert.equal(error.name, 'MethodNotAllowed')
      }
      const unknown = await call(socket, 'update', 'v1/nothing-here', 1, {}, {})
      assert.equal(unknown.error?.code, 404, JSON.stringify(unknown.error))
      // The socket still works.
      const found = await call(socket, 'find', 'v1/customers', {})
      assert.equal(found.error, null)
      assert.ok(Array.isArray(found.result.items))
    })

    it('a "__proto__" key in a socket body or query is refused with 400, as on REST, and nothing is created', async () => {
      const before = (await company.api.get('/v1/customers', { size: 20 })).body.total
      const poisoned = JSON.parse('{"companyName":"Proto GmbH","__proto__":{"number":"P-1"}}')
      const created = await call(socket, 'create', 'v1/customers', poisoned, {})
      assert.equal(created.error?.code, 400, JSON.stringify(created))
      assert.equal(created.error.name, 'BadRequest')
      const nested = await call(
        socket,
        'create',
        'v1/customers',
        JSON.parse('{"companyName":"Proto GmbH","address":{"__proto__":{"zip":"1"}}}'),
        {}
      )
      assert.equal(nested.error?.code, 400, JSON.stringify(nested))
      const query = await call(socket, 'find', 'v1/customers', JSON.parse('{"__proto__":{"companyName":"Proto GmbH"}}'))
      assert.equal(query.error?.code, 400, JSON.stringify(query))
      assert.equal((await company.api.get('/v1/customers', { size: 20 })).body.total, before)
      // REST answers the same body the same way.
      const rest = await company.api.request('POST', '/v1/customers', undefined, {
        raw: '{"companyName":"Proto GmbH","__proto__":{"number":"P-1"}}',
        headers: { 'content-type': 'application/json' }
      })
      assert.equal(rest.status, 400)
    })
    it('a socket call nested deeper than 32 levels is refused with 400 before any check walks it; 32 levels pass to the checks', async () => {
      const nested = (levels: number) => {
        let value: unknown = 1
        for (let i = 0; i < levels; i++) value = [value]
        return value
      }
      const NESTING = 'must not nest deeper than 32 levels'
      // The query object is a level of its own: 1 + 32 lists, then 1 + 31.
      for (const [path, query] of [
        ['v1/customers', { id: nested(32) }],
        ['v1/customers', { companyName: { $in: nested(2000) } }],
        ['v1/changes', { types: nested(2000) }]
      ] as const) {
        const refused = await call(socket, 'find', path, query)
        assert.equal(refused.error?.code, 400, JSON.stringify(refused.error))
        assert.equal(refused.error.data.validationErrors[''], NESTING)
      }
      const body = await call(socket, 'create', 'v1/customers', { companyName: 'Deep GmbH', address: nested(40) }, {})
      assert.equal(body.error?.code, 400, JSON.stringify(body.error))
      assert.equal(body.error.data.validationErrors[''], NESTING)
      const shallow = await call(socket, 'find', 'v1/customers', { id: nested(31) })
      assert.equal(shallow.error?.code, 400, JSON.stringify(shallow.error))
      assert.notEqual(shallow.error.data?.validationErrors?.[''], NESTING)
      // The socket still works.
      const found = await call(socket, 'find', 'v1/customers', {})
      assert.equal(found.error, null)
    })
  })

  describe('DELETE /authentication', () => {
    it('answers 4xx, never 500: with a path id, without a token, with an invalid token', async () => {
      const http = suite.server().http
      const withKey = new HttpClient(suite.server().url, company.apiKey)
      const cases = [
        [
          'DELETE /authentication/<key> with the key',
          () => withKey.request('DELETE', `/authentication/${company.apiKey}`)
        ],
        [
          'DELETE /authentication/<key> without a header',
          () => http.request('DELETE', `/authentication/${company.apiKey}`)
        ],
        ['DELETE /authentication/x', () => http.request('DELETE', '/authentication/x')],
        ['DELETE /authentication without a token', () => http.request('DELETE', '/authentication')],
        [
          'DELETE /authentication with an invalid token',
          () => new HttpClient(suite.server().url, 'ck_invalid').request('DELETE', '/authentication')
        ]
      ] as const
      for (const [what, send] of cases) {
        const res = await send()
        assert.ok(res.status >= 400 && res.status < 500, `${what}: ${res.status} ${res.text}`)
      }
      assert.equal((await http.request('DELETE', '/authentication')).status, 401)
      assert.equal(
        (await new HttpClient(suite.server().url, 'ck_invalid').request('DELETE', '/authentication')).status,
        401
      )
    })
  })

  describe('unauthenticated sockets', function () {
    const AUTH_TIMEOUT_MS = 500
    const SOCKETS = 1000
    let app: Application
    let url: string

    before(async () => {
      app = createApp({
        redisUrl: '',
        database: { url: suite.db.url },
        dataDir: suite.server().app.get('dataDir'),
        security: { ...suite.server().app.get('security'), socketAuthTimeoutMs: AUTH_TIMEOUT_MS }
      } as any)
      const server: Server = await app.listen(0)
      url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`
    })

    after(async () => {
      await app.teardown()
    })

    it(`are disconnected after security.socketAuthTimeoutMs (${SOCKETS} at once); an authenticated one stays`, async function () {
      const authenticated = socketClient(url)
      await authenticated.client.authenticate({ strategy: 'apiKey', apiKey: company.apiKey })
      // A failed authentication does not count: that socket is cut off like the silent ones.
      const failed = socketClient(url)
      await assert.rejects(failed.client.authenticate({ strategy: 'apiKey', apiKey: 'ck_wrong' }))
      const failedDisconnected = new Promise<string>((resolve) =>
        failed.socket.once('disconnect', (reason) => resolve(reason))
      )
      const sockets: Socket[] = []
      try {
        for (let i = 0; i < SOCKETS; i++)
          sockets.push(io(url, { transports: ['websocket'], forceNew: true, reconnection: false }))
        const disconnected = sockets.map(
          (s) => new Promise<string>((resolve) => s.once('disconnect', (reason) => resolve(reason)))
        )
        await Promise.all(sockets.map(connected))
        const reasons = await Promise.race([
          Promise.all(disconnected),
          new Promise<never>((_, reject) =>
            setTimeout(
              () => reject(new Error(`still connected: ${sockets.filter((s) => s.connected).length} of ${SOCKETS}`)),
              30000
            )
          )
        ])
        assert.ok(
          reasons.every((r) => r === 'io server disconnect'),
          `disconnected by the server: ${[...new Set(reasons)].join(', ')}`
        )
        assert.equal(await failedDisconnected, 'io server disconnect')
        assert.equal(
          ((app as any).io.engine.clientsCount as number) <= 1,
          true,
          `server-side connections left: ${(app as any).io.engine.clientsCount}`
        )
        // The authenticated socket outlived the limit and still answers; so does HTTP.
        assert.equal(authenticated.socket.connected, true)
        const found = await authenticated.client.service('v1/customers').find({})
        assert.ok(Array.isArray((found as any).items))
        assert.equal((await new HttpClient(url).get('/health')).status, 200)
      } finally {
        sockets.forEach((s) => s.close())
        authenticated.close()
        failed.close()
      }
    })

    it('a socket that logs out is unauthenticated again: its calls get 401 and the same deadline disconnects it', async function () {
      const { client, socket, close } = socketClient(url)
      try {
        await client.authenticate({ strategy: 'apiKey', apiKey: company.apiKey })
        // Past the first deadline, authenticated: still connected.
        await new Promise((resolve) => setTimeout(resolve, AUTH_TIMEOUT_MS * 2))
        assert.equal(socket.connected, true)
        const disconnected = new Promise<string>((resolve) => socket.once('disconnect', (reason) => resolve(reason)))
        await client.logout()
        await assert.rejects(client.service('v1/customers').find({}), (error: any) => error.code === 401)
        const reason = await Promise.race([
          disconnected,
          new Promise<string>((resolve) => setTimeout(() => resolve('still connected after 30 s'), 30000))
        ])
        assert.equal(reason, 'io server disconnect')
      } finally {
        close()
      }
    })

    it('connections that never join the socket.io namespace are closed by the same deadline', async function () {
      // A bare engine.io connection: the transport handshake, then nothing (no socket.io CONNECT packet).
      const raw = Array.from(
        { length: 200 },
        () => new WebSocket(`${url.replace('http', 'ws')}/socket.io/?EIO=4&transport=websocket`)
      )
      try {
        const closed = raw.map((ws) => new Promise<void>((resolve) => ws.once('close', () => resolve())))
        await Promise.all(
          raw.map((ws) => new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject)))
        )
        await Promise.race([
          Promise.all(closed),
          new Promise<never>((_, reject) =>
            setTimeout(
              () =>
                reject(
                  new Error(
                    `still open: ${raw.filter((ws) => ws.readyState === WebSocket.OPEN).length} of ${raw.length}`
                  )
                ),
              30000
            )
          )
        ])
        assert.equal((await new HttpClient(url).get('/health')).status, 200)
      } finally {
        raw.forEach((ws) => ws.terminate())
      }
    })
  })

  describe('HOST', () => {
    // 127.0.0.0/8 is loopback on Linux: two local addresses tell "this address only" from "every address".
    for (const [host, other] of [
      ['127.0.0.1', '127.0.0.2'],
      ['127.0.0.2', '127.0.0.1']
    ]) {
      it(`crewclock serve with HOST=${host} accepts there and refuses on ${other}`, async function () {
        const served = await startServe({
          DATABASE_URL: suite.db.url,
          PORT: '0',
          HOST: host,
          DATA_DIR: suite.server().app.get('dataDir')
        })
        try {
          const port = Number(new URL(served.url).port)
          assert.match(served.output(), new RegExp(`listening on http://${host.replace(/\./g, '\\.')}:${port}`))
          const res = await new HttpClient(`http://${host}:${port}`).get('/health')
          assert.equal(res.status, 200, res.text)
          assert.equal(await tcpAnswer(other, port), 'ECONNREFUSED')
        } finally {
          await stopProcess(served.child)
        }
      })
    }
  })
})
