import assert from 'node:assert/strict'
import type { Server } from 'node:http'
import { forEachDatabase } from '../support/harness'
import { HttpClient } from '../support/http'
import { createApp } from '../../src/app'
import type { Application } from '../../src/declarations'

const PAGES = ['/settings/', '/dashboard/', '/docs']

/** CONTRACT §10.4: the pages work over plain HTTP; TLS-only headers only when the request came over TLS. */
forEachDatabase('pages over HTTP and HTTPS', (suite) => {
  const started: Application[] = []

  /** A second app on the same database whose only difference is TRUST_PROXY. */
  async function serverTrusting(trustProxy: string | number) {
    const app: Application = createApp({
      redisUrl: '',
      trustProxy,
      database: { url: suite.db.url },
      dataDir: suite.server().app.get('dataDir')
    } as any)
    started.push(app)
    const server: Server = await app.listen(0)
    const address = server.address()
    return new HttpClient(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`)
  }

  after(async () => {
    for (const app of started) await app.teardown()
  })

  const directives = (res: { headers: Headers }) =>
    (res.headers.get('content-security-policy') ?? '').split(';').map((d) => d.trim().split(/\s+/)[0])

  const assertPlain = (res: { status: number; headers: Headers }, page: string) => {
    assert.equal(res.status, 200, page)
    assert.ok(directives(res).includes('default-src'), `${page}: a CSP is still sent`)
    assert.ok(
      !directives(res).includes('upgrade-insecure-requests'),
      `${page}: ${res.headers.get('content-security-policy')}`
    )
    assert.equal(res.headers.get('strict-transport-security'), null, page)
  }

  const assertTls = (res: { status: number; headers: Headers }, page: string) => {
    assert.equal(res.status, 200, page)
    assert.ok(
      directives(res).includes('upgrade-insecure-requests'),
      `${page}: ${res.headers.get('content-security-policy')}`
    )
    assert.match(res.headers.get('strict-transport-security') ?? '', /max-age=\d+/, page)
  }

  it('serves the pages over plain HTTP without upgrade-insecure-requests and without HSTS', async () => {
    for (const page of PAGES) assertPlain(await suite.server().http.get(page), page)
    const c = await suite.company()
    const api = await c.api.get('/v1/customers')
    assert.equal(api.status, 200)
    assert.equal(api.headers.get('strict-transport-security'), null)
  })

  it('ignores X-Forwarded-Proto: https when TRUST_PROXY trusts nobody (a client cannot forge TLS)', async () => {
    for (const page of PAGES)
      assertPlain(await suite.server().http.get(page, undefined, { headers: { 'x-forwarded-proto': 'https' } }), page)
  })

  it('sends both when a trusted proxy (by address) says the request came over https', async function () {
    const http = await serverTrusting('127.0.0.1')
    for (const page of PAGES) {
      assertTls(
        await http.get(page, undefined, {
          headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7' }
        }),
        page
      )
      // The same trusted proxy forwarding a plain-HTTP request: no upgrade.
      assertPlain(await http.get(page, undefined, { headers: { 'x-forwarded-proto': 'http' } }), page)
      assertPlain(await http.get(page), page)
    }
  })

  it('sends both behind a trusted hop count, but not when the peer is not a trusted proxy', async function () {
    const byHops = await serverTrusting(1)
    assertTls(await byHops.get('/settings/', undefined, { headers: { 'x-forwarded-proto': 'https' } }), 'hops=1')
    const elsewhere = await serverTrusting('10.9.8.7')
    assertPlain(
      await elsewhere.get('/settings/', undefined, { headers: { 'x-forwarded-proto': 'https' } }),
      'untrusted peer'
    )
  })
})
