import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Knex } from 'knex'
import { createApp } from '../../src/app'
import { migrateLatest } from '../../src/db/migrations'
import { createCompany } from '../../src/companies/create-company'
import type { Application, Configuration } from '../../src/declarations'
import type { DatabaseSuite, TestCompany } from './harness'
import { HttpClient } from './http'
import { scratchDatabase } from './scratch-database'

/**
 * A server of its own that sends webhooks, on a database of its own, for the delivery tests:
 * the shared test server sends none (config/test.json), so its sweeps see no background writes.
 * The schedule is in milliseconds so that retries and the failure window pass in seconds.
 */
export const FAST_WEBHOOKS: Configuration['webhooks'] = {
  deliver: true,
  allowPrivateUrls: true,
  timeoutMs: 2000,
  retryDelaysMs: [200, 400],
  failureWindowMs: 10 * 60 * 1000,
  claimTtlMs: 5000,
  pollMs: 100,
  concurrency: 10,
  batchSize: 100,
  busyPerSecond: 50
}

export interface WebhookServer {
  app: Application
  knex: Knex
  url: string
  http: HttpClient
  company: (options?: { adminPassword?: string }) => Promise<TestCompany>
}

let companies = 0

export function webhookServer(
  suite: DatabaseSuite,
  label: string,
  webhooks: Partial<Configuration['webhooks']> = {},
  prepare?: (app: Application) => void
): () => WebhookServer {
  let server: WebhookServer
  // Mocha runs `after` hooks in the order they are declared: the server stops before its database goes.
  after(async () => {
    await server?.app.teardown()
  })
  const scratch = scratchDatabase(suite.db, label)
  before(async () => {
    const app = createApp({
      redisUrl: '',
      database: { url: scratch.url },
      dataDir: `./.tmp/test/data-${label}-${suite.db.name}-${process.pid}`,
      webhooks: { ...FAST_WEBHOOKS, ...webhooks }
    })
    prepare?.(app)
    const knex = app.get('knex')
    await migrateLatest(knex)
    const listening: Server = await app.listen(0)
    const url = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`
    app.set('publicUrl', url)
    server = {
      app,
      knex,
      url,
      http: new HttpClient(url),
      company: async (options = {}) => {
        const n = ++companies
        const created = await createCompany(knex, app.get('appSecret'), {
          name: `Webhook Company ${n}`,
          country: 'DE',
          adminEmail: `webhooks-${process.pid}-${n}-${Date.now()}@example.test`,
          adminPassword: options.adminPassword
        })
        return {
          id: created.companyId,
          adminUserId: created.adminUserId,
          apiKey: created.apiKey,
          apiKeyId: created.apiKeyId,
          api: new HttpClient(url, created.apiKey)
        }
      }
    }
  })
  return () => server
}
