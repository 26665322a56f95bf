import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import type { HttpClient } from './http'

/**
 * Events for the webhook tests: records written through the API, each of which logs its
 * `<collection>.<created|patched|removed>` event (CONTRACT §13.1).
 */

/** A write through the API that must succeed; returns the record it answered (the removed one for a DELETE). */
export async function write(
  api: HttpClient,
  method: 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body: Record<string, unknown> | undefined
): Promise<Record<string, unknown>> {
  const before = method === 'DELETE' ? (await api.get(path)).body : undefined
  const res = await api.request(method, path, body)
  assert.ok(res.status >= 200 && res.status < 300, `${method} ${path}: ${res.status} ${res.text}`)
  return method === 'DELETE' ? before : res.body
}

/** Creates `count` customers (one request each, in order); returns them as the API answered. */
export async function createCustomers(api: HttpClient, count: number, prefix = 'Webhook customer') {
  const created: Record<string, unknown>[] = []
  for (let i = 0; i < count; i++)
    created.push(await write(api, 'POST', '/v1/customers', { companyName: `${prefix} ${i}` }))
  return created
}

/** The ids of the company's events of `type`, in log order. */
export async function eventIds(knex: Knex, companyId: number, type?: string): Promise<string[]> {
  const query = knex('event_log').where({ companyId }).orderBy('id')
  if (type) query.andWhere({ type })
  return (await query.pluck('id')).map(String)
}
