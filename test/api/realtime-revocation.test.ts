import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import { forEachDatabase, TestCompany } from '../support/harness'
import { runCli, startServe, stopProcess } from '../support/cli'
import { HttpClient } from '../support/http'
import { LiveSocket, liveSocket, redisAnswers } from '../support/live-socket'
import { settingsSession } from '../support/settings-session'
import { until } from '../support/wait'
import { createApiKey } from '../../src/auth/api-keys'

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379'

type Served = Awaited<ReturnType<typeof startServe>>

/**
 * CONTRACT §12, Channel hygiene: a key that stops working has its sockets disconnected on every
 * instance, by key id. Two `crewclock serve` processes share Redis and the suite's database.
 */
forEachDatabase('realtime: revoked keys across instances', (suite) => {
  const env = (extra: Record<string, string>) => ({
    DATABASE_URL: suite.server().db.url,
    DATA_DIR: suite.server().app.get('dataDir'),
    REDIS_URL,
    PORT: '0',
    ...extra
  })

  before(async function () {
    if (!(await redisAnswers(REDIS_URL))) {
      console.log(`      (skipped: no Redis answering at ${REDIS_URL})`)
      this.skip()
    }
  })

  /** A second key of the company and a socket with it on each instance, plus a socket of the company's own key. */
  async function socketsOf(instances: Served[], company: TestCompany, userId = company.adminUserId) {
    const { id, key } = await createApiKey(suite.server().knex, suite.server().app.get('appSecret'), {
      companyId: company.id,
      userId
    })
    const sockets = instances.map((instance) => liveSocket(instance.url, key))
    const bystander = liveSocket(instances[0].url, company.apiKey)
    await Promise.all([...sockets, bystander].map((s) => s.loggedIn()))
    return { keyId: id, sockets, bystander }
  }

  const closeAll = (sockets: LiveSocket[]) => sockets.forEach((s) => s.close())

  /** The bystander still receives: the company's other key was left alone. */
  async function stillReceives(bystander: LiveSocket, instance: Served, company: TestCompany) {
    const created = await new HttpClient(instance.url, company.apiKey).post('/v1/customers', { companyName: 'After' })
    assert.equal(created.status, 201)
    await until(() => bystander.of('v1/customers', 'created').length === 1)
    assert.deepEqual(bystander.disconnects, [])
  }

  describe('through the bus (the database check set to once an hour)', () => {
    let instances: Served[] = []

    before(async () => {
      const shared = {
        SYNC_KEY: `crewclock-test-${crypto.randomUUID()}`,
        NODE_CONFIG: JSON.stringify({ realtime: { keyCheckIntervalMs: 3_600_000 } })
      }
      instances = await Promise.all([startServe(env(shared)), startServe(env(shared))])
    })

    after(() => Promise.all(instances.map((instance) => stopProcess(instance.child))))

    it('revoking a key on the settings page disconnects its sockets on both instances', async () => {
      const c = await suite.company()
      const { keyId, sockets, bystander } = await socketsOf(instances, c)
      try {
        const session = await settingsSession(suite.server(), c)
        const revoked = await new HttpClient(instances[0].url, session.apiKey).delete(`/settings/api-keys/${keyId}`)
        assert.equal(revoked.status, 204)
        await until(() => sockets.every((s) => s.disconnects.length === 1))
        for (const s of sockets) assert.deepEqual(s.disconnects, ['io server disconnect'])
        await stillReceives(bystander, instances[1], c)
      } finally {
        closeAll([...sockets, bystander])
      }
    })

    it("deactivating the key's owner on the settings page disconnects the key's sockets on both instances", async () => {
      const c = await suite.company()
      const session = await settingsSession(suite.server(), c)
      const onInstance = new HttpClient(instances[1].url, session.apiKey)
      const admin = await onInstance.post('/settings/admins', {
        email: `second-${crypto.randomUUID()}@example.test`,
        fullName: 'Second Admin',
        password: 'second admin password'
      })
      assert.equal(admin.status, 201, admin.text)
      const { sockets, bystander } = await socketsOf(instances, c, admin.body.id)
      try {
        assert.equal((await onInstance.delete(`/settings/admins/${admin.body.id}`)).status, 204)
        await until(() => sockets.every((s) => s.disconnects.length === 1))
        for (const s of sockets) assert.deepEqual(s.disconnects, ['io server disconnect'])
        await stillReceives(bystander, instances[0], c)
      } finally {
        closeAll([...sockets, bystander])
      }
    })
  })

  describe('written by the CLI, which has no bus (each instance checks the keys of its sockets)', () => {
    let instances: Served[] = []

    before(async () => {
      const shared = { SYNC_KEY: `crewclock-test-${crypto.randomUUID()}` }
      instances = await Promise.all([startServe(env(shared)), startServe(env(shared))])
    })

    after(() => Promise.all(instances.map((instance) => stopProcess(instance.child))))

    const cli = (args: string[]) =>
      runCli(args, { DATABASE_URL: suite.server().db.url, DATA_DIR: suite.server().app.get('dataDir') })

    it('`crewclock key revoke` disconnects the sockets of the key on both instances', async () => {
      const c = await suite.company()
      const { keyId, sockets, bystander } = await socketsOf(instances, c)
      try {
        const revoked = await cli(['key', 'revoke', '--key-id', String(keyId)])
        assert.equal(revoked.code, 0, revoked.stderr)
        await until(() => sockets.every((s) => s.disconnects.length === 1))
        for (const s of sockets) assert.deepEqual(s.disconnects, ['io server disconnect'])
        await stillReceives(bystander, instances[1], c)
      } finally {
        closeAll([...sockets, bystander])
      }
    })

    it("`crewclock user deactivate` disconnects the sockets of the user's keys on both instances", async () => {
      const c = await suite.company()
      const email = `owner-${crypto.randomUUID()}@example.test`
      const made = await cli([
        'user',
        'create',
        '--company',
        String(c.id),
        '--email',
        email,
        '--full-name',
        'Key Owner',
        '--role',
        'office',
        '--json'
      ])
      assert.equal(made.code, 0, made.stderr)
      const { sockets, bystander } = await socketsOf(instances, c, JSON.parse(made.stdout).userId)
      try {
        const deactivated = await cli(['user', 'deactivate', '--email', email])
        assert.equal(deactivated.code, 0, deactivated.stderr)
        await until(() => sockets.every((s) => s.disconnects.length === 1))
        for (const s of sockets) assert.deepEqual(s.disconnects, ['io server disconnect'])
        await stillReceives(bystander, instances[0], c)
      } finally {
        closeAll([...sockets, bystander])
      }
    })
  })
})
