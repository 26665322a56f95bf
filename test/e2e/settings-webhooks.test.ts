import assert from 'node:assert/strict'
import fs from 'node:fs'
import { chromium, Browser, Page } from 'playwright-core'
import { forEachDatabase } from '../support/harness'
import { until } from '../support/wait'
import { webhookServer } from '../support/webhook-app'
import { createCustomers, eventIds } from '../support/webhook-events'
import { verified, WebhookReceiver } from '../support/webhook-receiver'
import { buildWeb } from '../../src/web/build'

/**
 * The webhooks part of the settings page in headless Chromium: an admin adds a webhook and copies
 * its secret, sees its deliveries, deactivates and reactivates it, replays and deletes it; a
 * receiver on 127.0.0.1 checks what arrives with that secret.
 */
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium'
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking']
const PASSWORD = 'browser password'

forEachDatabase('settings page: webhooks in Chromium', (suite) => {
  const server = webhookServer(suite, 'webhooks-e2e')
  let browser: Browser
  let receiver: WebhookReceiver

  before(async function () {
    if (!fs.existsSync(CHROMIUM)) {
      console.log(`\n    SKIPPED the browser tests: no Chromium at ${CHROMIUM}\n`)
      this.skip()
    }
    await buildWeb()
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS })
    receiver = await new WebhookReceiver().start()
  })
  after(async () => {
    await browser?.close()
    await receiver?.stop()
  })

  const row = (page: Page, id: number) => page.locator(`#webhooks tbody tr[data-webhook-id="${id}"]`)

  it('an admin adds a webhook, copies its secret, follows its deliveries, deactivates, replays and deletes it', async () => {
    const company = await server().company({ adminPassword: PASSWORD })
    const { knex, url } = server()
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url })
    const page = await context.newPage()
    const problems: string[] = []
    page.on('pageerror', (error) => problems.push(error.message))
    try {
      await page.goto(`${url}/settings`)
      const email = (await knex('users').where({ id: company.adminUserId }).first('email')).email
      await page.fill('#login-email', email)
      await page.fill('#login-password', PASSWORD)
      await page.click('#login-form button[type=submit]')
      await page.locator('#webhooks tbody', { hasText: 'No webhooks yet.' }).waitFor()

      // A refused URL is marked at its field.
      await page.fill('#webhook-url', 'ftp://files.example.test/in')
      await page.click('#webhook-form button[type=submit]')
      await page.locator('#webhook-form .field-error').waitFor()
      assert.match(await page.locator('#webhook-error').innerText(), /correct the marked fields/)

      const to = `/e2e-${suite.db.name}`
      await page.fill('#webhook-url', receiver.url + to)
      await page.fill('#webhook-types', 'customers.created')
      await page.fill('#webhook-description', 'Payroll bridge')
      await page.click('#webhook-form button[type=submit]')
      await page.locator('#new-webhook').waitFor()
      const secret = await page.inputValue('#new-webhook-secret')
      assert.match(secret, /^whsec_[A-Za-z0-9+/]+={0,2}$/)
      await page.click('#new-webhook-copy')
      await page.waitForFunction((expected) => navigator.clipboard.readText().then((t) => t === expected), secret)
      const [subscription] = await knex('webhook_subscriptions').where({ companyId: company.id })
      await row(page, subscription.id).locator('text=Payroll bridge').waitFor()
      assert.equal(await row(page, subscription.id).locator('.scopes code').innerText(), 'customers.created')
      await createCustomers(company.api, 2)
      await until(() => receiver.accepted(to).length === 2)
      for (const delivery of receiver.accepted(to)) verified(delivery, secret)
      const ids = await eventIds(knex, company.id, 'customers.created')
      await page.reload()
      for (const id of ids) await row(page, subscription.id).locator(`li[data-event-id="${id}"] .badge.ok`).waitFor()
      assert.equal((await page.content()).includes(secret.slice(6)), false, 'the list never shows the secret')

      await row(page, subscription.id).locator('button.deactivate').click()
      await row(page, subscription.id).locator('.badge', { hasText: 'deactivated' }).waitFor()
      assert.notEqual((await knex('webhook_subscriptions').where({ id: subscription.id }).first()).deactivatedAt, null)
      await row(page, subscription.id).locator('button.activate').click()
      await row(page, subscription.id).locator('.badge', { hasText: 'active' }).waitFor()

      await row(page, subscription.id).locator('input.replay-after').fill(ids[0])
      await row(page, subscription.id).locator('button.replay').click()
      await page.locator('#webhooks-status', { hasText: 'Queued 1 delivery' }).waitFor()
      await until(() => receiver.accepted(to).length === 3)
      assert.equal(receiver.accepted(to)[2].id, ids[1])

      page.once('dialog', (dialog) => void dialog.accept())
      await row(page, subscription.id).locator('button.delete').click()
      await page.locator('#webhooks tbody', { hasText: 'No webhooks yet.' }).waitFor()
      assert.equal((await knex('webhook_subscriptions').where({ companyId: company.id })).length, 0)
      assert.deepEqual(problems, [])
    } finally {
      await context.close()
    }
  })
})
