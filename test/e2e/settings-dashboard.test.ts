import assert from 'node:assert/strict'
import fs from 'node:fs'
import type { Server as HttpServer } from 'node:http'
import type { Server as SocketIoServer } from 'socket.io'
import { chromium, Browser, BrowserContext, Page } from 'playwright-core'
import { forEachDatabase, TestCompany } from '../support/harness'
import { HttpClient } from '../support/http'
import { createApp } from '../../src/app'
import type { Application } from '../../src/declarations'
import { buildWeb } from '../../src/web/build'
import { addDays, today } from '../../src/timesheets/periods'

/**
 * The settings page and the dashboard in headless Chromium (Debian's package), against the
 * test server: what an admin does with a mouse, checked through the page and through the API.
 */
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium'
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking']
const PASSWORD = 'browser password'

/** JSON columns: text on SQLite, parsed already on PostgreSQL. */
const jsonOf = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value)

// The pages must be tested as the current sources build them, not as an older bundle.
let built: Promise<unknown> | undefined
const buildOnce = () => (built ??= buildWeb())

forEachDatabase('settings page and dashboard in Chromium', (suite) => {
  let browser: Browser
  let context: BrowserContext

  before(async function () {
    if (!fs.existsSync(CHROMIUM)) {
      console.log(
        `\n    SKIPPED the browser tests: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)\n`
      )
      this.skip()
    }
    await buildOnce()
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS })
  })

  after(async () => {
    await browser?.close()
  })

  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: suite.server().url })
  })

  afterEach(async () => {
    await context?.close()
  })

  const adminEmail = async (company: TestCompany) =>
    (await suite.server().knex('users').where({ id: company.adminUserId }).first()).email as string

  async function openPage(path: string) {
    const page = await context.newPage()
    const problems: string[] = []
    page.on('pageerror', (error) => problems.push(error.message))
    await page.goto(suite.server().url + path)
    return { page, problems }
  }

  async function signIn(page: Page, email: string, password: string) {
    await page.fill('#login-email', email)
    await page.fill('#login-password', password)
    await page.click('#login-form button[type=submit]')
  }

  const keyRow = (page: Page, id: number) => page.locator(`#keys tbody tr[data-key-id="${id}"]`)

  it('an admin signs in, creates a key, copies it, uses it over REST, sees its usage and revokes a key', async function () {
    const company = await suite.company({ adminPassword: PASSWORD })
    const { page, problems } = await openPage('/settings')

    await signIn(page, await adminEmail(company), 'not the password')
    await page.locator('#login-error', { hasText: 'Sign-in failed' }).waitFor()

    await signIn(page, await adminEmail(company), PASSWORD)
    await keyRow(page, company.apiKeyId).waitFor()
    assert.equal(
      await keyRow(page, company.apiKeyId).locator('code.masked').textContent(),
      `ck_…${company.apiKey.slice(-4)}`
    )
    assert.equal((await page.content()).includes(company.apiKey), false, 'the list shows keys masked')

    await page.fill('#key-name', 'Payroll export')
    await page.click('#key-form button[type=submit]')
    await page.locator('#new-key').waitFor()
    const newKey = await page.inputValue('#new-key-value')
    assert.match(newKey, /^ck_[A-Za-z0-9_-]{43}$/)
    const [created] = await suite.server().knex('api_keys').where({ companyId: company.id, name: 'Payroll export' })
    await keyRow(page, created.id).waitFor()

    await keyRow(page, created.id).locator('button.copy').click()
    await page.locator('#copy-status', { hasText: 'Copied' }).waitFor()
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), newKey)
    assert.equal(await keyRow(page, created.id).locator('input.secret').inputValue(), newKey)
    await keyRow(page, company.apiKeyId).locator('button.copy').click()
    await page.waitForFunction(
      (expected) => navigator.clipboard.readText().then((text) => text === expected),
      company.apiKey
    )

    const used = await company.api.withKey(newKey).get('/v1/customers')
    assert.equal(used.status, 200)
    await company.api.withKey(newKey).get('/v1/roles')
    await page.reload()
    await keyRow(page, created.id).locator('td.usage', { hasText: 'v1: 2 requests' }).waitFor()

    page.once('dialog', (dialog) => void dialog.accept())
    await keyRow(page, company.apiKeyId).locator('button.revoke').click()
    await page.locator(`#keys tbody tr.revoked[data-key-id="${company.apiKeyId}"]`).waitFor()
    assert.equal((await company.api.get('/v1/customers')).status, 401, 'the revoked key answers 401')
    assert.equal((await company.api.withKey(newKey).get('/v1/customers')).status, 200)
    assert.deepEqual(problems, [])
  })

  it('refuses users who are not admins', async function () {
    const company = await suite.company({ adminPassword: PASSWORD })
    const worker = await company.api.post('/v1/users', {
      fullName: 'Otto Office',
      email: `otto-${Date.now()}@example.test`,
      password: PASSWORD
    })
    assert.equal(worker.status, 201)
    const { page } = await openPage('/settings')
    await signIn(page, worker.body.email, PASSWORD)
    await page.locator('#login-error', { hasText: 'not an administrator' }).waitFor()
    assert.equal(await page.locator('#settings-view').isHidden(), true)
  })

  it("edits the company's country and timezone, and adds, edits and deletes working-time versions, with errors and refusals shown at the field", async function () {
    const company = await suite.company({ adminPassword: PASSWORD })
    const versionsOf = async () =>
      (await suite.server().knex('company_working_times').where({ companyId: company.id }).orderBy('validFrom')).map(
        (row: any) => ({
          ...row,
          targetMinutes: jsonOf(row.targetMinutes),
          breakRules: jsonOf(row.breakRules)
        })
      )
    const { page, problems } = await openPage('/settings')
    await signIn(page, await adminEmail(company), PASSWORD)
    const versionRow = (validFrom: string) => page.locator(`#working-times tbody tr[data-valid-from="${validFrom}"]`)
    await versionRow('1970-01-01').waitFor()
    assert.equal(await page.locator('#working-times tbody tr').count(), 1)
    assert.match(
      (await versionRow('1970-01-01').textContent()) ?? '',
      /the start.*in effect today.*Mon–Fri 8:00 h, Sat–Sun 0:00 h/
    )
    assert.equal(
      await versionRow('1970-01-01').locator('button.delete').count(),
      0,
      'the first version cannot be deleted'
    )
    // The form adds a version from tomorrow (company timezone), prefilled with the version in effect then.
    assert.equal(await page.inputValue('#valid-from'), addDays(today('Europe/Berlin'), 1))
    assert.equal(await page.inputValue('#target-monday'), '480')

    await page.fill('#country', 'IT')
    await page.fill('#timezone', 'Europe/Rome')
    await page.click('#company-form button[type=submit]')
    await page.locator('#company-status', { hasText: 'Saved' }).waitFor()
    const row = await suite.server().knex('companies').where({ id: company.id }).first()
    assert.deepEqual([row.country, row.timezone], ['IT', 'Europe/Rome'])

    // A 400 is shown at the field, and nothing is added.
    await page.fill('#valid-from', '2025-03-01')
    await page.fill('#target-monday', '1441')
    await page.click('#working-time-form button[type=submit]')
    await page.locator('#target-monday[aria-invalid]').waitFor()
    assert.match((await page.locator('label:has(#target-monday) .field-error').textContent()) ?? '', /1440/)
    assert.equal((await versionsOf()).length, 1)

    // A version from a chosen day.
    await page.fill('#target-monday', '420')
    await page.fill('#target-friday', '300')
    await page.fill('#carry-cap', '1200')
    await page.click('#add-break-rule')
    const rules = page.locator('#break-rules .break-rule')
    await rules.nth(2).locator('input.after').fill('600')
    await rules.nth(2).locator('input.break').fill('60')
    await page.click('#working-time-form button[type=submit]')
    await page.locator('#working-times-status', { hasText: 'Added a version' }).waitFor()
    await versionRow('2025-03-01').waitFor()
    assert.match(
      (await versionRow('2025-03-01').textContent()) ?? '',
      /Mon 7:00 h, Tue–Thu 8:00 h, Fri 5:00 h, Sat–Sun 0:00 h/
    )
    assert.equal(await page.locator('#target-monday[aria-invalid]').count(), 0, 'the marks are cleared')
    const [first, added] = await versionsOf()
    assert.equal(first.targetMinutes.monday, 480, 'the first version is untouched')
    assert.equal(added.validFrom, '2025-03-01')
    assert.deepEqual(
      [added.targetMinutes.monday, added.targetMinutes.friday, added.carryOverCapMinutes],
      [420, 300, 1200]
    )
    assert.deepEqual(added.breakRules[2], { afterMinutes: 600, minBreakMinutes: 60 })

    // The form fills in the version in effect on the chosen day.
    await page.fill('#valid-from', '2025-04-01')
    await page.locator('#target-monday[value="420"]').waitFor()
    await page.fill('#valid-from', '2025-02-01')
    await page.locator('#target-monday[value="480"]').waitFor()

    // Refusals: a day that another version has; a range that reaches an approved and locked month.
    await page.fill('#valid-from', '2025-03-01')
    await page.click('#working-time-form button[type=submit]')
    await page.locator('#working-time-error', { hasText: 'another version begins on that day' }).waitFor()
    await page.locator('#valid-from[aria-invalid]').waitFor()
    const worker = (
      await company.api.post('/v1/users', {
        fullName: 'Lena Locked',
        email: `lena-${Date.now()}@example.test`,
        employedFrom: '2025-01-01'
      })
    ).body
    const february = (
      await company.api.get('/v1/time-sheet-months/by-user', { userId: worker.id, month: '2025-02-01' })
    ).body
    assert.equal((await company.api.patch(`/v1/time-sheet-months/${february.id}`, { status: 'submitted' })).status, 200)
    assert.equal((await company.api.patch(`/v1/time-sheet-months/${february.id}`, { status: 'approved' })).status, 200)
    await page.fill('#valid-from', '2025-02-10')
    await page.click('#working-time-form button[type=submit]')
    await page
      .locator('#working-time-error', { hasText: /locked month February 2025 \(user \d+\)\. Reopen it first/ })
      .waitFor()
    assert.match((await page.locator('label:has(#valid-from) .field-error').textContent()) ?? '', /locked month/)
    assert.equal((await versionsOf()).length, 2)

    // Editing a listed version.
    await versionRow('2025-03-01').locator('button.edit').click()
    await page.locator('#working-time-form-title', { hasText: 'Change the version from' }).waitFor()
    assert.equal(await page.inputValue('#valid-from'), '2025-03-01')
    assert.equal(await page.inputValue('#target-friday'), '300')
    await page.fill('#target-friday', '360')
    await page.fill('#valid-from', '2025-03-03')
    await page.click('#working-time-form button[type=submit]')
    await page.locator('#working-times-status', { hasText: 'Saved the version' }).waitFor()
    await versionRow('2025-03-03').waitFor()
    const [, edited] = await versionsOf()
    assert.deepEqual([edited.id, edited.validFrom, edited.targetMinutes.friday], [added.id, '2025-03-03', 360])
    assert.equal(await page.inputValue('#valid-from'), addDays(today('Europe/Rome'), 1), 'back to adding a version')

    // Deleting it.
    page.once('dialog', (dialog) => void dialog.accept())
    await versionRow('2025-03-03').locator('button.delete').click()
    await versionRow('2025-03-03').waitFor({ state: 'detached' })
    await page.locator('#working-times-status', { hasText: 'Deleted the version' }).waitFor()
    assert.equal((await versionsOf()).length, 1)
    assert.deepEqual(problems, [])
  })

  it('the dashboard, opened from the settings page, shows time entries and events live without a reload', async function () {
    const company = await suite.company({ adminPassword: PASSWORD })
    const api = company.api
    const worker = (
      await api.post('/v1/users', { fullName: 'Tina Tischler', email: `tina-${Date.now()}@example.test` })
    ).body
    const gang = (await api.post('/v1/gangs', { name: 'Kolonne Nord', userIds: [worker.id] })).body
    const customer = (await api.post('/v1/customers', { companyName: 'Bauherr AG' })).body
    const assignment = (await api.post('/v1/assignments', { name: 'Neubau', customerId: customer.id })).body
    const eventType = (await api.get('/v1/assignment-event-types')).body.items[0]
    const entryType = (await api.get('/v1/time-entry-types', { isUnassigned: true })).body.items[0]
    const now = Date.now()
    const inTwoHours = new Date(now + 2 * 3600_000).toISOString()
    const gangEvent = await api.post('/v1/assignment-events', {
      assignmentId: assignment.id,
      typeId: eventType.id,
      name: 'Dach decken',
      startsAt: new Date(now).toISOString(),
      endsAt: inTwoHours,
      assignedGangs: [gang.id]
    })
    assert.equal(gangEvent.status, 201)

    const { page, problems } = await openPage('/settings')
    await signIn(page, await adminEmail(company), PASSWORD)
    await keyRow(page, company.apiKeyId).locator('button.open-dashboard').click()
    await page.waitForURL('**/dashboard')
    await page.locator('#connection[data-state=live]').waitFor()
    await page.evaluate(() => ((window as any).loadedOnce = true))

    const lane = page.locator(`#workers li.lane[data-user-id="${worker.id}"]`)
    await lane.locator('.event', { hasText: 'Dach decken' }).locator('.via', { hasText: 'Kolonne Nord' }).waitFor()
    await page.locator(`#gangs li.lane[data-gang-id="${gang.id}"] .event`, { hasText: 'Dach decken' }).waitFor()
    assert.equal(await page.locator('#clocked-in-count').textContent(), '0')

    const entry = await api.post('/v1/time-entries', {
      userId: worker.id,
      typeId: entryType.id,
      startsAt: new Date(now - 3600_000).toISOString()
    })
    assert.equal(entry.status, 201)
    const tile = page.locator(`#clocked-in li.tile[data-entry-id="${entry.body.id}"]`)
    await tile.locator('.who', { hasText: 'Tina Tischler' }).waitFor()
    assert.equal(await page.locator('#clocked-in-count').textContent(), '1')
    await lane.locator('.lane-head .badge.ok', { hasText: 'in since' }).waitFor()

    await api.patch(`/v1/time-entries/${entry.body.id}`, { pausedAt: new Date().toISOString() })
    await page.locator(`#clocked-in li.tile.paused[data-entry-id="${entry.body.id}"]`).waitFor()

    const direct = await api.post('/v1/assignment-events', {
      assignmentId: assignment.id,
      typeId: eventType.id,
      name: 'Gerüst abbauen',
      startsAt: new Date(now).toISOString(),
      endsAt: inTwoHours,
      assignedUsers: [worker.id]
    })
    await lane.locator(`.event[data-event-id="${direct.body.id}"]`, { hasText: 'Gerüst abbauen' }).waitFor()
    const loose = await api.post('/v1/assignment-events', {
      assignmentId: assignment.id,
      typeId: eventType.id,
      name: 'Material holen',
      startsAt: new Date(now).toISOString(),
      endsAt: inTwoHours
    })
    await page.locator(`#unassigned .event[data-event-id="${loose.body.id}"]`).waitFor()
    await api.patch(`/v1/assignment-events/${loose.body.id}`, {
      startsAt: '2020-01-01T08:00:00Z',
      endsAt: '2020-01-01T09:00:00Z'
    })
    await page.locator(`#unassigned .event[data-event-id="${loose.body.id}"]`).waitFor({ state: 'detached' })

    await api.patch(`/v1/time-entries/${entry.body.id}`, { endsAt: new Date().toISOString() })
    await tile.waitFor({ state: 'detached' })
    assert.equal(await page.locator('#clocked-in-count').textContent(), '0')
    await lane.locator('.lane-head .badge', { hasText: 'off' }).waitFor()

    assert.equal(await page.evaluate(() => (window as any).loadedOnce), true, 'the page was not reloaded')
    assert.deepEqual(problems, [])
  })

  it('the dashboard stays live across a server restart: it reconnects by itself, catches up on the gap and shows later changes', async function () {
    /** An instance of its own on the test database, which the test stops and starts on the same port. */
    const startInstance = async (port = 0) => {
      const app: Application = createApp({
        redisUrl: '',
        database: { url: suite.db.url },
        dataDir: suite.server().app.get('dataDir')
      } as any)
      const server: HttpServer = await app.listen(port)
      const address = server.address()
      return { app, server, port: typeof address === 'object' && address ? address.port : port }
    }
    /** What the server does on SIGTERM (src/cli.ts): stop accepting, close the sockets and connections, tear down. */
    const stopInstance = async ({ app, server }: { app: Application; server: HttpServer }) => {
      ;(app.io as SocketIoServer | undefined)?.disconnectSockets(true)
      const down = app.teardown()
      server.closeAllConnections()
      await down
    }

    const company = await suite.company({ adminPassword: PASSWORD })
    const first = await startInstance()
    let second: Awaited<ReturnType<typeof startInstance>> | undefined
    try {
      const url = `http://127.0.0.1:${first.port}`
      const api = new HttpClient(url, company.apiKey)
      const worker = (
        await api.post('/v1/users', { fullName: 'Rudi Restart', email: `rudi-${Date.now()}@example.test` })
      ).body
      const entryType = (await api.get('/v1/time-entry-types', { isUnassigned: true })).body.items[0]
      const clockIn = (minutesAgo: number) => ({
        userId: worker.id,
        typeId: entryType.id,
        startsAt: new Date(Date.now() - minutesAgo * 60_000).toISOString()
      })

      const page = await context.newPage()
      const problems: string[] = []
      page.on('pageerror', (error) => problems.push(error.message))
      await page.goto(`${url}/dashboard`)
      await page.fill('#api-key', company.apiKey)
      await page.click('#key-form button[type=submit]')
      await page.locator('#connection[data-state=live]').waitFor()
      await page.evaluate(() => ((window as any).loadedOnce = true))
      const lane = page.locator(`#workers li.lane[data-user-id="${worker.id}"]`)
      await lane.locator('.lane-head .badge', { hasText: 'off' }).waitFor()

      // The server goes down under the open page.
      await stopInstance(first)
      await page.locator('#connection[data-state=reconnecting]').waitFor()

      // Meanwhile the worker clocks in through another instance: an event the page cannot receive.
      const inGap = await company.api.post('/v1/time-entries', clockIn(60))
      assert.equal(inGap.status, 201)

      // The server comes back on the same port: the page reconnects by itself and reloads the gap.
      second = await startInstance(first.port)
      await page.locator(`#clocked-in li.tile[data-entry-id="${inGap.body.id}"]`).waitFor()
      await page.locator('#connection[data-state=live]').waitFor()

      // And it is live again: a change made now appears without a reload.
      const ended = await api.patch(`/v1/time-entries/${inGap.body.id}`, {
        endsAt: new Date(Date.now() - 40 * 60_000).toISOString()
      })
      assert.equal(ended.status, 200)
      await page.locator(`#clocked-in li.tile[data-entry-id="${inGap.body.id}"]`).waitFor({ state: 'detached' })
      const later = await api.post('/v1/time-entries', clockIn(5))
      assert.equal(later.status, 201)
      await page.locator(`#clocked-in li.tile[data-entry-id="${later.body.id}"]`).waitFor()
      assert.equal(await page.evaluate(() => (window as any).loadedOnce), true, 'the page was not reloaded')
      assert.deepEqual(problems, [])
    } finally {
      await stopInstance(second ?? first)
    }
  })

  it('the dashboard takes a pasted key, refuses a wrong one and goes back to the key form when its key is revoked', async function () {
    const company = await suite.company({ adminPassword: PASSWORD })
    const { page } = await openPage('/dashboard')
    await page.locator('#key-view').waitFor()
    await page.fill('#api-key', `ck_${'x'.repeat(43)}`)
    await page.click('#key-form button[type=submit]')
    await page.locator('#key-error', { hasText: 'not accepted' }).waitFor()

    await page.fill('#api-key', company.apiKey)
    await page.click('#key-form button[type=submit]')
    await page.locator('#connection[data-state=live]').waitFor()
    await page.reload()
    await page.locator('#connection[data-state=live]').waitFor()

    const login = await suite
      .server()
      .http.post('/authentication', { strategy: 'local', email: await adminEmail(company), password: PASSWORD })
    const revoked = await suite
      .server()
      .http.withKey(login.body.accessToken)
      .delete(`/settings/api-keys/${company.apiKeyId}`)
    assert.equal(revoked.status, 204)
    await page.locator('#connection[data-state=offline]').waitFor()
    await page.locator('#key-error', { hasText: 'not accepted' }).waitFor()
    assert.equal(await page.evaluate(() => localStorage.length), 0, 'the revoked key is forgotten')
  })

  it('lists, adds and deactivates administrators, never the last active one; changes the password; logout ends the session', async function () {
    const company = await suite.company({ adminPassword: PASSWORD })
    const email = await adminEmail(company)
    const { page, problems } = await openPage('/settings')
    await signIn(page, email, PASSWORD)
    const adminRow = (id: number) => page.locator(`#admins tbody tr[data-admin-id="${id}"]`)
    await adminRow(company.adminUserId).waitFor()
    assert.match((await adminRow(company.adminUserId).textContent()) ?? '', /\(you\)/)

    await page.fill('#admin-email', `new-admin-${Date.now()}@example.test`)
    await page.fill('#admin-name', 'Nina Newadmin')
    await page.fill('#admin-password', 'short')
    await page.click('#admin-form button[type=submit]')
    await page.locator('#admin-form .field-error').waitFor()
    const newEmail = await page.inputValue('#admin-email')
    await page.fill('#admin-password', 'nina password')
    await page.click('#admin-form button[type=submit]')
    await page.locator('#admin-status', { hasText: 'Nina Newadmin can now sign in' }).waitFor()
    const nina = await suite.server().knex('users').where({ emailNormalized: newEmail.toLowerCase() }).first()
    assert.equal(nina.roleType, 'admin')
    assert.equal(
      (
        await suite
          .server()
          .http.post('/authentication', { strategy: 'local', email: newEmail, password: 'nina password' })
      ).status,
      201
    )

    page.once('dialog', (dialog) => void dialog.accept())
    await adminRow(nina.id).locator('button.deactivate').click()
    await page.locator(`#admins tbody tr.revoked[data-admin-id="${nina.id}"]`).waitFor()
    page.once('dialog', (dialog) => void dialog.accept())
    await adminRow(company.adminUserId).locator('button.deactivate').click()
    await page.locator('#admins-error', { hasText: 'last active administrator' }).waitFor()

    await page.fill('#current-password', 'not the password')
    await page.fill('#new-password', 'a new password')
    await page.click('#password-form button[type=submit]')
    await page.locator('#password-form .field-error', { hasText: 'not your current password' }).waitFor()
    const oldToken = await page.evaluate(() => sessionStorage.getItem('crewclock.settings.token'))
    await page.fill('#current-password', PASSWORD)
    await page.fill('#new-password', 'a new password')
    await page.click('#password-form button[type=submit]')
    await page.locator('#login-error', { hasText: 'password has been changed' }).waitFor()
    assert.equal((await suite.server().http.withKey(oldToken!).get('/settings/company')).status, 401)

    await signIn(page, email, 'a new password')
    await adminRow(company.adminUserId).waitFor()
    const token = await page.evaluate(() => sessionStorage.getItem('crewclock.settings.token'))
    await page.click('#logout')
    await page.locator('#login-view').waitFor()
    assert.equal(
      (await suite.server().http.withKey(token!).get('/settings/company')).status,
      401,
      'logout ended the session on the server'
    )
    assert.deepEqual(problems, [])
  })

  it('shows the scopes of each key and sends the chosen scopes when creating one', async function () {
    const company = await suite.company({ adminPassword: PASSWORD })
    const { page, problems } = await openPage('/settings')
    await signIn(page, await adminEmail(company), PASSWORD)
    await keyRow(page, company.apiKeyId).waitFor()
    assert.equal((await keyRow(page, company.apiKeyId).locator('td.scopes').textContent())?.trim(), '*:write')
    assert.equal(await page.locator('#key-collections').isHidden(), true)

    const sent = async (action: () => Promise<void>) => {
      const request = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/settings/api-keys'))
      const response = page.waitForResponse(
        (r) => r.request().method() === 'POST' && r.url().endsWith('/settings/api-keys')
      )
      await action()
      return { body: JSON.parse((await request).postData() ?? '{}'), response: await response }
    }

    await page.fill('#key-name', 'Full')
    const full = await sent(() => page.click('#key-form button[type=submit]'))
    assert.deepEqual(full.body, { name: 'Full' }, 'full access is the default and needs no scopes')

    await page.fill('#key-name', 'Reader')
    await page.check('#key-scopes input[value=read]')
    const read = await sent(() => page.click('#key-form button[type=submit]'))
    assert.deepEqual(read.body, { name: 'Reader', scopes: ['*:read'] })

    await page.fill('#key-name', 'Clock')
    await page.check('#key-scopes input[value=custom]')
    await page.locator('#key-collections select[data-collection="time-entries"]').waitFor()
    await page.selectOption('#key-collections select[data-collection="time-entries"]', 'write')
    await page.selectOption('#key-collections select[data-collection="customers"]', 'read')
    const custom = await sent(() => page.click('#key-form button[type=submit]'))
    assert.deepEqual(custom.body.scopes.sort(), ['customers:read', 'time-entries:write'])
    // The server side of scopes on POST /settings/api-keys (src/settings/api-keys.ts) belongs to
    // another change; once it accepts them, the new keys are listed with their scopes.
    if (read.response.status() === 201) {
      const readId = (await read.response.json()).id
      assert.equal((await keyRow(page, readId).locator('td.scopes').textContent())?.trim(), '*:read')
    }
    assert.deepEqual(problems, [])
  })

  it('both pages fit a phone screen', async function () {
    const company = await suite.company({ adminPassword: PASSWORD })
    await context.close()
    context = await browser.newContext({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true })
    const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
    const { page } = await openPage('/settings')
    await signIn(page, await adminEmail(company), PASSWORD)
    await keyRow(page, company.apiKeyId).waitFor()
    assert.ok((await overflow(page)) <= 0, 'settings page scrolls sideways')
    await keyRow(page, company.apiKeyId).locator('button.open-dashboard').click()
    await page.locator('#connection[data-state=live]').waitFor()
    assert.ok((await overflow(page)) <= 0, 'dashboard scrolls sideways')
  })
})
