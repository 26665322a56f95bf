import type { Server } from 'node:http'
import type { Knex } from 'knex'
import { createApp } from '../../src/app'
import { migrateLatest } from '../../src/db/migrations'
import { createCompany } from '../../src/companies/create-company'
import type { Application } from '../../src/declarations'
import { createTestDatabase, testDatabases, TestDatabase } from './databases'
import { HttpClient } from './http'

export interface TestServer {
  db: TestDatabase
  app: Application
  knex: Knex
  url: string
  /** An unauthenticated HTTP client. */
  http: HttpClient
}

const servers = new Map<string, Promise<TestServer>>()
let companyCounter = 0

async function startServer(db: TestDatabase): Promise<TestServer> {
  await createTestDatabase(db)
  const app = createApp({
    redisUrl: '',
    database: { url: db.url },
    dataDir: `./.tmp/test/data-${db.name}-${process.pid}`,
    uploads: { dir: `./.tmp/test/uploads-${db.name}-${process.pid}` } as any
  })
  const knex = app.get('knex' as any) as Knex
  await migrateLatest(knex)
  const server: Server = await app.listen(0)
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  const url = `http://127.0.0.1:${port}`
  app.set('publicUrl', url)
  return { db, app, knex, url, http: new HttpClient(url) }
}

/** One server per database for the whole run, started on first use. */
export function serverFor(db: TestDatabase): Promise<TestServer> {
  let server = servers.get(db.name)
  if (!server) {
    server = startServer(db)
    servers.set(db.name, server)
  }
  return server
}

export async function stopServers() {
  for (const server of servers.values()) {
    const { app } = await server
    await app.teardown()
  }
  servers.clear()
}

export interface TestCompany {
  id: number
  adminUserId: number
  apiKey: string
  apiKeyId: number
  /** An HTTP client that sends this company's key. */
  api: HttpClient
}

export interface DatabaseSuite {
  db: TestDatabase
  server: () => TestServer
  /** Creates a fresh company (with its catalogues, admin and key) for this test. */
  company: (options?: {
    country?: string
    timezone?: string
    name?: string
    adminPassword?: string
  }) => Promise<TestCompany>
}

/**
 * Declares a suite once and runs it against every test database: `describe('customers [sqlite]')`
 * and, with TEST_PG_URL, `describe('customers [postgres]')`.
 */
export function forEachDatabase(title: string, body: (suite: DatabaseSuite) => void) {
  for (const db of testDatabases()) {
    describe(`${title} [${db.name}]`, function () {
      let server: TestServer
      before(async function () {
        server = await serverFor(db)
      })
      body({
        db,
        server: () => server,
        company: async (options = {}) => {
          const n = ++companyCounter
          const created = await createCompany(server.knex, server.app.get('appSecret'), {
            name: options.name ?? `Test Company ${n}`,
            country: options.country ?? 'DE',
            timezone: options.timezone,
            adminEmail: `admin-${process.pid}-${n}-${Date.now()}@example.test`,
            adminPassword: options.adminPassword
          })
          return {
            id: created.companyId,
            adminUserId: created.adminUserId,
            apiKey: created.apiKey,
            apiKeyId: created.apiKeyId,
            api: new HttpClient(server.url, created.apiKey)
          }
        }
      })
    })
  }
}

/**
 * A table of the suite's database for its tests alone (`<prefix>_<pid>`): made before them by
 * `build`, dropped after them. Returns its name.
 */
export function scratchTable(
  suite: DatabaseSuite,
  prefix: string,
  build: (table: Knex.CreateTableBuilder) => void
): string {
  const table = `${prefix}_${process.pid}`
  before(async () => {
    const db = suite.server().knex
    await db.schema.dropTableIfExists(table)
    await db.schema.createTable(table, build)
  })
  after(async () => {
    await suite.server().knex.schema.dropTableIfExists(table)
  })
  return table
}

export { testDatabases }

/** One company per catalogue language: German (DE), Italian (IT) and English (FR falls back to it). */
export interface LanguageCompanies {
  de: TestCompany
  it: TestCompany
  fr: TestCompany
}

/** Declares a `before` that creates the three companies; read them inside the tests. */
export function languageCompanies(suite: DatabaseSuite): LanguageCompanies {
  const companies = {} as LanguageCompanies
  before(async () => {
    companies.de = await suite.company({ country: 'DE' })
    companies.it = await suite.company({ country: 'IT' })
    companies.fr = await suite.company({ country: 'FR' })
  })
  return companies
}
