import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import type { HttpClient } from './http'

/**
 * Events for the webhook tests: records written through the API, each of which logs its
 * `<collection>.<created|patched|removed>` event (CONTRACT §13.1).
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

export interface LogOf {
  knex: Knex
  companyId: number
}

const ACTIONS = { POST: 'created', PATCH: 'patched', DELETE: 'removed' } as const

/** A write through the API that must succeed; returns the record it answered (the removed one for a DELETE). */
export async function write(
  api: HttpClient,
  method: keyof typeof ACTIONS,
  path: string,
  body: Record<string, unknown> | undefined,
  log: LogOf
): Promise<Record<string, unknown>> {
  const before = method === 'DELETE' ? (await api.get(path)).body : undefined
  const res = await api.request(method, path, body)
  assert.ok(res.status >= 200 && res.status < 300, `${method} ${path}: ${res.status} ${res.text}`)
  const record = method === 'DELETE' ? before : res.body
  if (SIMULATED) {
    const collection = path.split('/')[2]
    await log.knex('event_log').insert({
      companyId: log.companyId,
      occurredAt: new Date().toISOString(),
      type: `${collection}.${ACTIONS[method]}`,
      scope: collection,
      data: JSON.stringify(record),
      actor: JSON.stringify({ system: true }),
      requestId: 'test'
    })
  }
  return record
}

/** Creates `count` customers (one request each, in order); returns them as the API answered. */
export async function createCustomers(api: HttpClient, count: number, log: LogOf, prefix = 'Webhook customer') {
  const created: Record<string, unknown>[] = []
  for (let i = 0; i < count; i++)
    created.push(await write(api, 'POST', '/v1/customers', { companyName: `${prefix} ${i}` }, log))
  return created
}

/** The ids of the company's events of `type`, in log order. */
export async function eventIds(knex: Knex, companyId: number, type?: string): Promise<string[]> {
  const query = knex('event_log').where({ companyId }).orderBy('id')
  if (type) query.andWhere({ type })
  return (await query.pluck('id')).map(String)
}
