import assert from 'node:assert/strict'
import http from 'node:http'
import { forEachDatabase } from '../support/harness'
import { startServe, stopProcess } from '../support/cli'
import { freePort, LiveSocket, liveSocket } from '../support/live-socket'
import { until } from '../support/wait'

/** A POST on a connection of its own (so that node:cluster hands it to the next worker), with its request id. */
function postOnNewConnection(url: string, path: string, apiKey: string, body: unknown) {
  return new Promise<{ status: number; body: any; requestId: string }>((resolve, reject) => {
    const request = http.request(`${url}${path}`, {
      method: 'POST',
      agent: false,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }
    })
    request.once('error', reject)
    request.once('response', (response) => {
      let text = ''
      response.on('data', (chunk) => (text += chunk))
      response.on('end', () =>
        resolve({
          status: response.statusCode!,
          body: JSON.parse(text),
          requestId: String(response.headers['x-request-id'])
        })
      )
    })
    request.end(JSON.stringify(body))
  })
}

/** The pid of the worker that logged a line with this field value (pino writes `pid` on every line). */
const pidOf = (output: string, field: string, value: string) => {
  const line = output.split('\n').find((l) => l.includes(`"${field}":"${value}"`))
  return line ? (JSON.parse(line).pid as number) : undefined
}

/** CONTRACT §12, Several workers, no Redis: the workers relay events to each other through the cluster primary. */
forEachDatabase('realtime: several workers without Redis', (suite) => {
  it('WEB_CONCURRENCY=2: every event, written through either worker, reaches the sockets on both workers', async () => {
    const c = await suite.company()
    const served = await startServe({
      DATABASE_URL: suite.server().db.url,
      DATA_DIR: suite.server().app.get('dataDir'),
      REDIS_URL: '',
      WEB_CONCURRENCY: '2',
      PORT: String(await freePort()),
      LOG_LEVEL: 'debug'
    })
    const sockets: LiveSocket[] = []
    try {
      await until(() => (served.output().match(/listening on/g) ?? []).length === 2)
      // Each new connection goes to the next worker; sockets are added until both workers hold some.
      const workerOf = new Map<LiveSocket, number>()
      while (sockets.length < 4 || new Set(workerOf.values()).size < 2) {
        assert.ok(sockets.length < 20, 'twenty sockets all landed on one worker')
        const live = liveSocket(served.url, c.apiKey)
        sockets.push(live)
        await live.loggedIn()
        await until(() => pidOf(served.output(), 'socketId', live.socket.id!) !== undefined)
        workerOf.set(live, pidOf(served.output(), 'socketId', live.socket.id!)!)
      }

      const writers = new Set<number>()
      const names: string[] = []
      while (names.length < 4 || writers.size < 2) {
        assert.ok(names.length < 20, 'twenty connections all landed on one worker')
        const name = `Written ${names.length}`
        const created = await postOnNewConnection(served.url, '/v1/customers', c.apiKey, { companyName: name })
        assert.equal(created.status, 201)
        names.push(name)
        await until(() => pidOf(served.output(), 'requestId', created.requestId) !== undefined)
        writers.add(pidOf(served.output(), 'requestId', created.requestId)!)
      }

      await until(() => sockets.every((s) => s.of('v1/customers', 'created').length >= names.length))
      // Events written through different workers have no order between them (one worker's keep theirs).
      for (const s of sockets) {
        assert.deepEqual(
          s
            .of('v1/customers', 'created')
            .map((e) => e.data.companyName)
            .sort(),
          [...names].sort(),
          `socket on worker ${workerOf.get(s)}: every event, once`
        )
      }
    } finally {
      sockets.forEach((s) => s.close())
      await stopProcess(served.child)
    }
  })
})
