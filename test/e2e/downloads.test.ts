import assert from 'node:assert/strict'
import fs from 'node:fs'
import { chromium, Browser } from 'playwright-core'
import { forEachDatabase } from '../support/harness'

/**
 * What a browser makes of a download's Content-Disposition (CONTRACT §10.4): the name it saves
 * the file under is the upload's name, umlauts and all, not a mangled Latin-1 guess.
 */
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium'
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking']
const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\n')

forEachDatabase('downloads in Chromium', (suite) => {
  let browser: Browser

  before(async function () {
    if (!fs.existsSync(CHROMIUM)) {
      console.log(
        `\n    SKIPPED the browser download tests: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)\n`
      )
      this.skip()
    }
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS })
  })

  after(async () => {
    await browser?.close()
  })

  it('saves a download under its UTF-8 name, a semicolon in it included', async function () {
    const company = await suite.company()
    const customer = await company.api.post('/v1/customers', { companyName: 'Müller GmbH' })
    const assignment = await company.api.post('/v1/assignments', { name: 'Angebot', customerId: customer.body.id })
    const context = await browser.newContext({ acceptDownloads: true })
    try {
      for (const [sent, saved] of [
        ['Angebot Müller.pdf', 'Angebot Müller.pdf'],
        ['Preventivo perché – 3°.pdf', 'Preventivo perché – 3°.pdf'],
        ['Rechnung; Q4.pdf', 'Rechnung; Q4.pdf']
      ]) {
        const body = new FormData()
        body.append('file', new Blob([new Uint8Array(PDF)], { type: 'application/pdf' }), sent)
        const created = await company.api.post(`/v1/assignments/${assignment.body.id}/uploads`, undefined, {
          raw: body
        })
        assert.equal(created.status, 201)
        const page = await context.newPage()
        // Navigating to an attachment starts a download instead of a page load.
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.goto(created.body.downloadUrl).catch(() => undefined)
        ])
        assert.equal(download.suggestedFilename(), saved)
        assert.deepEqual(fs.readFileSync(await download.path()), PDF)
        await page.close()
      }
    } finally {
      await context.close()
    }
  })
})
