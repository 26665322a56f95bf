import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import { forEachDatabase, TestCompany } from '../support/harness'
import { runCli, startServe, stopProcess } from '../support/cli'
import { HttpClient } from '../support/http'
import { redisAnswers } from '../support/live-socket'
import { settingsSession } from '../support/settings-session'
import { eventually } from '../support/wait'
import { createApiKey } from '../../src/auth/api-keys'

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379'

type Served = Awaited<ReturnType<typeof startServe>>

/**
 * Keys that authenticated are kept in each process (src/auth/key-cache.ts), yet a key that stops
 * working answers 401 with the very next request on every instance (CONTRACT §2: "Revoked keys
 * answer 401"), whoever made the change and whether or not Redis answers: the database itself
 * tells each instance. Two `crewclock serve` processes share the suite's database; every key is
 * used on both before the change, so that both hold it.
 */
forEachDatabase('API key cache: a key that stops working answers 401 at once on every instance', (suite) => {
  const env = (extra: Record<string, string>) => ({
    DATABASE_URL: suite.server().db.url,
    DATA_DIR: suite.server().app.get('dataDir'),
    PORT: '0',
    ...extra
  })

  /** A fresh key of the company, answered 200 on every instance (so every instance holds it). */
  async function keyInUse(instances: Served[], company: TestCompany, userId = company.adminUserId) {
    const { id, key } = await createApiKey(suite.server().knex, suite.server().app.get('appSecret'), {
      companyId: company.id,
      userId
    })
    const clients = instances.map((instance) => new HttpClient(instance.url, key))
    for (const client of clients)
      for (let i = 0; i < 2; i++) assert.equal((await client.get('/v1/customers')).status, 200)
    return { keyId: id, clients }
  }

  /**
   * SQLite: the very next request is refused (every instance reads the file's change counter
   * before it trusts its cache). PostgreSQL: the change reaches the other instances as a
   * NOTIFY at the commit, which can arrive a few milliseconds after the writer's response: the
   * request is repeated until refused (never more than that delivery), see docs/security.md.
   */
  const answer = (client: HttpClient, path: string) =>
    suite.db.name === 'sqlite'
      ? client.get(path)
      : eventually(
          () => client.get(path),
          (res) => res.status === 401 || JSON.stringify(res.body).includes('Cliente')
        )

  async function allRefused(clients: HttpClient[]) {
    for (const client of clients) {
      const res = await answer(client, '/v1/customers')
      assert.equal(res.status, 401, res.text)
      assert.equal(res.headers.get('www-authenticate'), 'Bearer')
    }
  }

  function behaviours(start: () => Promise<Served[]>) {
    let instances: Served[] = []
    before(async () => {
      instances = await start()
    })
    after(() => Promise.all(instances.map((instance) => stopProcess(instance.child))))

    it('a key revoked on the settings page of instance A answers 401 at once on A and B; the other key still works', async () => {
      const c = await suite.company()
      const { keyId, clients } = await keyInUse(instances, c)
      const session = await settingsSession(suite.server(), c)
      const revoked = await new HttpClient(instances[0].url, session.apiKey).delete(`/settings/api-keys/${keyId}`)
      assert.equal(revoked.status, 204)
      await allRefused([clients[1], clients[0]])
      for (const instance of instances)
        assert.equal((await new HttpClient(instance.url, c.apiKey).get('/v1/customers')).status, 200)
    })

    it('requests racing a revocation: none sent after the revoke answered succeeds on B (SQLite), nor after B refused once', async () => {
      const c = await suite.company()
      const session = await settingsSession(suite.server(), c)
      const late: string[] = []
      // Six keys, four loops on B each: look-ups race the commit of the revoke on A.
      for (let round = 0; round < 6; round++) {
        const { keyId, clients } = await keyInUse(instances, c)
        let revokedAt = 0
        let refusedAt = 0
        let afterRevoke = 0
        const loop = async () => {
          while (afterRevoke < 300) {
            const sent = performance.now()
            const res = await clients[1].get('/v1/customers')
            if (revokedAt) afterRevoke++
            if (res.status === 401 && !refusedAt) refusedAt = performance.now()
            const late200 = res.status === 200 && revokedAt > 0 && sent > revokedAt
            if (late200 && (suite.db.name === 'sqlite' || (refusedAt && sent > refusedAt)))
              late.push(
                `key ${round}: 200 to a request sent ${(sent - revokedAt).toFixed(1)} ms after the revoke answered`
              )
          }
        }
        const loops = Promise.all([loop(), loop(), loop(), loop()])
        await new Promise((resolve) => setTimeout(resolve, 30))
        const revoked = await new HttpClient(instances[0].url, session.apiKey).delete(`/settings/api-keys/${keyId}`)
        revokedAt = performance.now()
        assert.equal(revoked.status, 204)
        await loops
        assert.equal((await answer(clients[1], '/v1/customers')).status, 401)
      }
      assert.deepEqual(late, [])
    })

    it('a key revoked by the CLI (no bus, no server) answers 401 at once on both instances', async () => {
      const c = await suite.company()
      const { keyId, clients } = await keyInUse(instances, c)
      const cli = await runCli(['key', 'revoke', '--key-id', String(keyId)], {
        DATABASE_URL: suite.server().db.url,
        DATA_DIR: suite.server().app.get('dataDir')
      })
      assert.equal(cli.code, 0, cli.stderr)
      await allRefused(clients)
    })

    it("the keys of an owner deactivated on instance A's settings page answer 401 at once on A and B", async () => {
      const c = await suite.company()
      const session = await settingsSession(suite.server(), c)
      const admin = await new HttpClient(instances[0].url, session.apiKey).post('/settings/admins', {
        email: `owner-${crypto.randomUUID()}@example.test`,
        fullName: 'Key Owner',
        password: 'key owner password'
      })
      assert.equal(admin.status, 201, admin.text)
      const { clients } = await keyInUse(instances, c, admin.body.id)
      const deactivated = await new HttpClient(instances[0].url, session.apiKey).delete(
        `/settings/admins/${admin.body.id}`
      )
      assert.equal(deactivated.status, 204)
      await allRefused([clients[1], clients[0]])
    })

    it("a company's new country on instance A reaches requests on B at once (the cached company is dropped)", async () => {
      const c = await suite.company({ country: 'DE' })
      const { clients } = await keyInUse(instances, c)
      assert.equal((await clients[1].get('/v1/customers/spec')).body.info.title, 'crewclock API: Kunde')
      const session = await settingsSession(suite.server(), c)
      const patched = await new HttpClient(instances[0].url, session.apiKey).patch('/settings/company', {
        country: 'IT'
      })
      assert.equal(patched.status, 200, patched.text)
      assert.equal((await answer(clients[1], '/v1/customers/spec')).body.info.title, 'crewclock API: Cliente')
    })
  }

  describe('two instances sharing Redis', () => {
    before(async function () {
      if (!(await redisAnswers(REDIS_URL))) {
        console.log(`      (skipped: no Redis answering at ${REDIS_URL})`)
        this.skip()
      }
    })
    behaviours(() => {
      const shared = { REDIS_URL, SYNC_KEY: `crewclock-test-${crypto.randomUUID()}` }
      return Promise.all([startServe(env(shared)), startServe(env(shared))])
    })
  })

  describe('two instances whose Redis does not answer (the bus is down from the start)', () => {
    // A port nothing listens on: the bus never comes up, HTTP serves regardless.
    behaviours(() => {
      const shared = { REDIS_URL: 'redis://127.0.0.1:1', SYNC_KEY: `crewclock-test-${crypto.randomUUID()}` }
      return Promise.all([startServe(env(shared)), startServe(env(shared))])
    })
  })
})
