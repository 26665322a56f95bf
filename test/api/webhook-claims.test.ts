import assert from 'node:assert/strict'
import { releaseClaim } from '../../src/webhooks/claims'
import { DELIVERIES, queueNewEvents, queueReplay, SUBSCRIPTIONS } from '../../src/webhooks/queue'
import { forEachDatabase } from '../support/harness'
import { createCustomers } from '../support/webhook-events'

/**
 * A claim that goes back while a replay commits (src/webhooks/claims.ts releaseClaim). The shared
 * test server sends no webhooks (config/test.json), so nothing but this test claims or sends: the
 * sender's steps are called one by one, the replay held open between them.
 */
forEachDatabase('webhook claims', (suite) => {
  it('a replay committed while the claim goes back leaves the subscription due, not waiting for its next event', async () => {
    const knex = suite.server().knex
    const company = await suite.company()
    const created = await company.api.post('/v1/webhook-subscriptions', {
      url: 'https://hooks.example.test/claims',
      types: ['customers.created']
    })
    assert.equal(created.status, 201, created.text)
    const id = created.body.id as number
    await createCustomers(company.api, 2)

    // An instance claims the subscription, queues its two events and sends them.
    const token = 'test-instance'
    await knex(SUBSCRIPTIONS)
      .where({ id })
      .update({ claimedBy: token, claimedUntil: new Date(Date.now() + 60_000).toISOString() })
    assert.equal((await queueNewEvents(knex, company.id, id, 10, new Date())).queued, 2)
    await knex(DELIVERIES)
      .where({ subscriptionId: id })
      .update({ nextAttemptAt: null, deliveredAt: new Date().toISOString(), attempts: 1, lastStatus: 200 })

    // A replay of both is queued and not yet committed when the instance gives the claim back.
    const replay = await knex.transaction()
    let released: Promise<void> | undefined
    try {
      assert.deepEqual(await queueReplay(replay, company.id, id, 0, new Date()), { queued: 2, deactivated: false })
      released = releaseClaim(knex, id, token, new Date())
      await new Promise((resolve) => setTimeout(resolve, 300))
      await replay.commit()
    } catch (error) {
      await replay.rollback()
      throw error
    }
    await released

    const subscription = await knex(SUBSCRIPTIONS).where({ id }).first('claimedBy', 'dueAt')
    assert.equal(subscription.claimedBy, null)
    assert.notEqual(subscription.dueAt, null, 'the replayed deliveries make the subscription due')
    assert.ok(new Date(subscription.dueAt).getTime() <= Date.now())
    const queued = await knex(DELIVERIES).where({ subscriptionId: id }).whereNotNull('nextAttemptAt').count({ n: '*' })
    assert.equal(Number(queued[0].n), 2)
  })
})
