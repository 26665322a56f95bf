import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import type { HttpClient } from './http'

/**
 * Events for the webhook tests: records written through the API, each of which logs its
 * `<collection>.created` event (CONTRACT §13.1).
 *
 * Until the event log is merged, the log table and the appends are simulated here, in the shape
 * the log will have; `SIMULATED` goes when it lands.
 */
const SIMULATED = true

export async function ensureEventLog(knex: Knex) {
  if (!SIMULATED || (await knex.schema.hasTable('event_log'))) return
  await knex.schema.createTable('event_log', (t) => {
    t.increments('id')
    t.integer('company_id').notNullable()
    t.string('occurred_at', 24).notNullable()
    t.string('type', 100).notNullable()
    t.string('scope', 100).notNullable()
    t.text('data').notNullable()
    t.text('actor').notNullable()
    t.string('request_id', 64).notNullable()
    t.index(['company_id', 'id'])
  })
}

/** Creates `count` customers (one request each, in order); returns them as the API answered. */
export async function createCustomers(
  api: HttpClient,
  count: number,
  log: { knex: Knex; companyId: number },
  prefix = 'Webhook customer'
) {
  const created: Record<string, unknown>[] = []
  for (let i = 0; i < count; i++) {
    const res = await api.post('/v1/customers', { companyName: `${prefix} ${i}` })
    assert.equal(res.status, 201, res.text)
    created.push(res.body)
    if (SIMULATED)
      await log.knex('event_log').insert({
        companyId: log.companyId,
        occurredAt: new Date().toISOString(),
        type: 'customers.created',
        scope: 'customers',
        data: JSON.stringify(res.body),
        actor: JSON.stringify({ system: true }),
        requestId: 'test'
      })
  }
  return created
}

/** The ids of the company's events of `type`, in log order. */
export async function eventIds(knex: Knex, companyId: number, type: string): Promise<string[]> {
  return (await knex('event_log').where({ companyId, type }).orderBy('id').pluck('id')).map(String)
}
