import assert from 'node:assert/strict'
import type { HttpClient } from './http'

/** Every event of the change feed after `after` (from the oldest retained without it), page by page, and the final cursor. */
export async function readAll(api: HttpClient, after?: string, query: Record<string, string> = {}) {
  const items: any[] = []
  let cursor = after
  for (;;) {
    const res = await api.get('/v1/changes', {
      ...(cursor !== undefined ? { after: cursor } : {}),
      size: 500,
      ...query
    })
    assert.equal(res.status, 200, res.text)
    items.push(...res.body.items)
    if (res.body.items.length < 500) return { items, next: res.body.next as string }
    cursor = res.body.next
  }
}

/** The newest cursor of a company's feed. */
export const headOf = async (api: HttpClient) => (await readAll(api)).next
