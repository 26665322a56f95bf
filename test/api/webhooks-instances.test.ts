import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createCompany } from '../../src/companies/create-company'
import { startServe, stopProcess } from '../support/cli'
import { forEachDatabase } from '../support/harness'
import { HttpClient } from '../support/http'
import { scratchDatabase } from '../support/scratch-database'
import { eventually, until } from '../support/wait'
import { createCustomers, eventIds } from '../support/webhook-events'
import { verified, WebhookReceiver } from '../support/webhook-receiver'

/**
 * Webhook delivery from several `crewclock serve` processes on one database (CONTRACT §13.3):
 * every instance sends, none sends a delivery another has sent, a stopped instance finishes and
 * writes what it sent, and the claims of an instance that dies expire so that another sends
 * the rest.
 */
const APP_SECRET = 'webhook-instances-test-secret'
const EVENTS = 120

forEachDatabase('webhooks on several instances', (suite) => {
  const scratch = scratchDatabase(suite.db, 'webhooks-instances')
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crewclock-webhooks-'))
  const running: ChildProcess[] = []
  let receiver: WebhookReceiver

  const env = () => ({
    DATABASE_URL: scratch.url,
    APP_SECRET,
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    REDIS_URL: '',
    WEBHOOKS_DELIVER: 'true',
    WEBHOOKS_POLL_MS: '100',
    WEBHOOKS_CLAIM_TTL_MS: '3000',
    WEBHOOKS_TIMEOUT_MS: '1500',
    WEBHOOKS_RETRY_DELAYS_MS: '[100]'
  })
  const serve = async () => {
    const served = await startServe(env())
    running.push(served.child)
    return served
  }

  before(async () => {
    receiver = await new WebhookReceiver().start()
  })
  after(async () => {
    for (const child of running) await stopProcess(child)
    await receiver.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  /**
   * A company with three subscriptions and its events. Their receivers answer after `delay` ms
   * with `status` (of the 1st, 2nd, 3rd).
   */
  async function burst(
    url: string,
    name: string,
    status: (n: number) => number = () => 200,
    delay: (n: number) => number = () => 10
  ) {
    const created = await createCompany(scratch.conn, APP_SECRET, {
      name: `Instances ${name}`,
      country: 'DE',
      adminEmail: `instances-${name}-${suite.db.name}-${process.pid}@example.test`
    })
    const api = new HttpClient(url, created.apiKey)
    const subscriptions: { path: string; secret: string }[] = []
    for (const n of [1, 2, 3]) {
      const to = `/${name}-${suite.db.name}-${n}`
      receiver.answer(to, async () => {
        await new Promise((resolve) => setTimeout(resolve, delay(n)))
        return status(n)
      })
      const res = await api.post('/v1/webhook-subscriptions', { url: receiver.url + to, types: ['customers.created'] })
      assert.equal(res.status, 201, res.text)
      subscriptions.push({ path: to, secret: res.body.secret })
    }
    await createCustomers(api, EVENTS)
    const ids = await eventIds(scratch.conn, created.companyId, 'customers.created')
    return { subscriptions, ids }
  }

  const accepted = (subscriptions: { path: string }[]) =>
    subscriptions.reduce((sum, s) => sum + receiver.accepted(s.path).length, 0)

  it('sends every event exactly once from two instances, also when one restarts mid-burst', async () => {
    const a = await serve()
    await serve()
    // The third receiver fails until the restart: its whole queue is still to go then.
    let restarted = false
    const { subscriptions, ids } = await burst(a.url, 'restart', (n) => (n === 3 && !restarted ? 503 : 200))
    await until(() => accepted(subscriptions) >= EVENTS / 2)
    // SIGTERM: the instance finishes the attempts under way and writes them before it exits.
    await stopProcess(a.child)
    running.splice(running.indexOf(a.child), 1)
    await serve()
    restarted = true
    await until(() => subscriptions.every((s) => receiver.accepted(s.path).length >= EVENTS))
    // Compared once every delivery is written as delivered and no claim is held: nothing more can go out.
    const count = async (table: string, column: string) =>
      Number((await scratch.conn(table).whereNotNull(column).count({ n: '*' }).first())?.n)
    await eventually(
      async () =>
        (await count('webhook_deliveries', 'nextAttemptAt')) + (await count('webhook_subscriptions', 'claimedBy')),
      (busy) => busy === 0
    )
    for (const { path: to, secret } of subscriptions) {
      assert.deepEqual(
        receiver.accepted(to).map((d) => d.id),
        ids,
        `${to}: each event once, in log order`
      )
      for (const delivery of receiver.accepted(to)) verified(delivery, secret)
    }
  })

  it('takes over the claims of an instance that died mid-burst', async () => {
    for (const child of running.splice(0)) await stopProcess(child)
    const a = await serve()
    // The third receiver is slow: the instance that sends to it holds its claim for seconds.
    const { subscriptions, ids } = await burst(a.url, 'killed', undefined, (n) => (n === 3 ? 80 : 5))
    await until(() => receiver.accepted(subscriptions[2].path).length >= 5)
    await serve()
    // Killed while it holds claims: nothing is written or given back.
    const token = `:${a.child.pid}:`
    let held = 0
    while (held === 0) {
      if (receiver.accepted(subscriptions[2].path).length >= ids.length)
        assert.fail('the burst ended before an instance holding a claim could be killed')
      held = (await scratch.conn('webhook_subscriptions').where('claimedBy', 'like', `%${token}%`).pluck('id')).length
      if (held === 0) await new Promise((resolve) => setTimeout(resolve, 10))
    }
    a.child.kill('SIGKILL')
    await new Promise((resolve) => a.child.once('close', resolve))
    running.splice(running.indexOf(a.child), 1)
    await until(() =>
      subscriptions.every((s) => new Set(receiver.accepted(s.path).map((d) => d.id)).size === ids.length)
    )
    for (const { path: to } of subscriptions) {
      const got = receiver.accepted(to).map((d) => d.id)
      const firsts = [...new Set(got)]
      assert.deepEqual(firsts, ids, `${to}: every event, first deliveries in log order`)
      // Sent again: at most what the killed instance had sent but not yet written.
      assert.ok(got.length - ids.length <= 26, `${to}: ${got.length - ids.length} sent twice`)
    }
  })
})
