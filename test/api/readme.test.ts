import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { forEachDatabase } from '../support/harness'
import { ROOT } from '../support/cli'

/** The curl commands of README's "Using the API" block as written there, continuation lines joined. */
function readmeCurlCommands() {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')
  const block = /## Using the API\n+```sh\n([^]*?)```/.exec(readme)
  assert.ok(block, 'README.md has a sh block under "## Using the API"')
  return block[1]
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((line) => line.startsWith('curl '))
}

/** Runs one command line through sh with $KEY set; curl adds the status as the last line of its output. */
function runCurl(command: string, key: string): Promise<{ status: number; body: string }> {
  const withStatus = command.replace(/^curl /, `curl -sS -w '\\n%{http_code}' `)
  return new Promise((resolve, reject) => {
    execFile('sh', ['-c', withStatus], { env: { ...process.env, KEY: key } }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`${command}\n${stderr}`))
      const at = stdout.lastIndexOf('\n')
      resolve({ status: Number(stdout.slice(at + 1)), body: stdout.slice(0, at) })
    })
  })
}

forEachDatabase("README's examples", (suite) => {
  it('the curl examples of "Using the API" run verbatim: only the key, the host and the new customer\'s id are put in', async function () {
    const company = await suite.company()
    const commands = readmeCurlCommands()
    assert.deepEqual(
      commands.map((command) => /-X (\w+)/.exec(command)?.[1] ?? (/ -d /.test(command) ? 'POST' : 'GET')),
      ['GET', 'POST', 'GET', 'PATCH', 'DELETE']
    )
    let customerId: number | undefined
    const results = []
    for (const command of commands) {
      // README's id is 1, the first customer of a new database; this shared test database has others.
      const line = command
        .replaceAll('http://localhost:3030', suite.server().url)
        .replace(/\/v1\/customers\/1\b/, `/v1/customers/${customerId}`)
      const result = await runCurl(line, company.apiKey)
      // An example that answers something else than 2xx says so in its comment (`# 204`).
      const meant = /#\s*(\d{3})\s*$/.exec(command)?.[1]
      if (meant) assert.equal(result.status, Number(meant), `${command}\n${result.body}`)
      else assert.ok(result.status >= 200 && result.status < 300, `${command}\n→ ${result.status} ${result.body}`)
      if (/ -d /.test(command) && !/-X PATCH/.test(command)) customerId = JSON.parse(result.body).id
      results.push(result)
    }
    const [, created, search, patched] = results
    assert.equal(JSON.parse(created.body).billingAddress.city, 'Berlin')
    // `%25m%C3%BCller%25` is `%müller%`: case-insensitive, it finds "Elektro Müller GmbH".
    assert.deepEqual(
      JSON.parse(search.body).items.map((c: any) => c.id),
      [customerId]
    )
    assert.equal(JSON.parse(patched.body).number, 'K-1001')
    assert.equal((await company.api.get(`/v1/customers/${customerId}`)).status, 404)
  })
})
