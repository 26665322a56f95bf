import assert from 'node:assert/strict'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { forEachDatabase } from '../support/harness'
import { HttpClient } from '../support/http'
import { ROOT, runCli, startServe, stopProcess } from '../support/cli'
import { until } from '../support/wait'

describe('CLI without a database', () => {
  const probe = path.join(ROOT, 'test', 'support', 'loaded-modules-probe.js')
  /** The project's modules and the packages a run loaded, as test/support/loaded-modules-probe.js reports them on exit. */
  const loadedBy = async (args: string[], env: Record<string, string> = {}) => {
    const res = await runCli(args, { ...env, NODE_OPTIONS: `--require ${probe}` })
    const line = res.stderr.split('\n').find((l) => l.startsWith('loaded-modules: '))
    assert.ok(line, `the probe reported nothing:\n${res.stderr}`)
    return { res, ...(JSON.parse(line.slice('loaded-modules: '.length)) as { sources: string[]; packages: string[] }) }
  }

  it('--help and refused options load neither the application nor its packages', async () => {
    for (const args of [['--help'], ['company', 'create', '--help'], ['key', 'list', '--company', 'abc']]) {
      const { res, sources, packages } = await loadedBy(args)
      assert.ok(sources.includes('src/cli.ts'), `the probe saw the CLI: ${sources}`)
      assert.deepEqual(
        sources.filter(
          (file) =>
            file.startsWith('src/') &&
            !['src/cli.ts', 'src/companies/catalogues.ts', 'src/companies/country-codes.ts'].includes(file)
        ),
        [],
        args.join(' ')
      )
      assert.deepEqual(
        packages.filter((name) => /^(@feathersjs\/|knex$|koa$|socket\.io$|pg$|better-sqlite3$|sqlite3$)/.test(name)),
        [],
        args.join(' ')
      )
      assert.equal(res.code, args.includes('--help') ? 0 : 2, res.stderr)
    }
    // The probe does see the application when a command needs it.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crewclock-probe-'))
    try {
      const { res, sources } = await loadedBy(['migrate', '--json'], {
        DATABASE_URL: `sqlite://${dir}/probe.sqlite`,
        DATA_DIR: dir
      })
      assert.equal(res.code, 0, res.stderr)
      assert.ok(sources.includes('src/app.ts'))
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it('--help marks required options and documents the exit statuses', async () => {
    const create = await runCli(['company', 'create', '--help'], {})
    for (const option of ['--name <name>', '--country <code>', '--admin-email <email>']) {
      assert.match(create.stdout, new RegExp(`${option}[^\n]*(\n {20,}[^\n]*)*\\(required\\)`), option)
    }
    const timezone = /--timezone[^]*?(?=\n {2}-)/.exec(create.stdout)?.[0] ?? ''
    assert.doesNotMatch(timezone, /required/)
    assert.match((await runCli(['key', 'create', '--help'], {})).stdout, /--company <id>\s+company id \(required\)/)
    assert.match(
      (await runCli(['user', 'create', '--help'], {})).stdout,
      /--role <type>\s+role type \(choices: "admin", "office", "worker"\)\s+\(required\)/
    )
    const top = await runCli(['--help'], {})
    assert.match(top.stdout, /Exit status:\n\s+0\s+done\n\s+2\s+bad input or refused[^]*\n\s+1\s+unexpected error/)
  })

  it('usage errors exit 2 and name the option or command', async () => {
    const cases: [string[], RegExp][] = [
      [['key', 'list', '--company', 'abc'], /--company <id>' argument 'abc' is invalid/],
      [['key', 'list'], /required option '--company <id>' not specified/],
      [
        ['user', 'create', '--company', '1', '--email', 'a@b.test', '--full-name', 'A', '--role', 'boss'],
        /--role <type>' argument 'boss' is invalid/
      ],
      [
        [
          'company',
          'create',
          '--name',
          'A',
          '--country',
          'DE',
          '--admin-email',
          'a@b.test',
          '--admin-password',
          'long enough',
          '--admin-password-stdin'
        ],
        /--admin-password <password>' cannot be used with option '--admin-password-stdin'/
      ],
      [['no-such-command'], /unknown command 'no-such-command'/],
      [[], /Usage: crewclock/]
    ]
    for (const [args, message] of cases) {
      const res = await runCli(args, {})
      assert.equal(res.code, 2, `${args.join(' ')}: ${res.stderr}`)
      assert.match(res.stderr, message)
    }
  })

  it('an unexpected error exits 1', async () => {
    const res = await runCli(['key', 'list', '--company', '1'], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' })
    assert.equal(res.code, 1, res.stderr)
    assert.match(res.stderr, /crewclock: .*ECONNREFUSED/)
  })
})

forEachDatabase('CLI', (suite) => {
  const env = () => ({ DATABASE_URL: suite.server().db.url, DATA_DIR: suite.server().app.get('dataDir') })

  it('--help lists the commands', async () => {
    const res = await runCli(['--help'], env())
    assert.equal(res.code, 0)
    for (const command of ['serve', 'migrate', 'company', 'key'])
      assert.match(res.stdout, new RegExp(`\\b${command}\\b`))
    const sub = await runCli(['company', 'create', '--help'], env())
    assert.match(sub.stdout, /--admin-email/)
    assert.match(sub.stdout, /--json/)
  })

  it('migrate --json reports an up-to-date database', async () => {
    const res = await runCli(['migrate', '--json'], env())
    assert.equal(res.code, 0, res.stderr)
    assert.deepEqual(JSON.parse(res.stdout), { applied: [] })
  })

  it('company create --json prints exactly one JSON object whose key works over HTTP', async () => {
    const email = `cli-${Date.now()}@example.test`
    const res = await runCli(
      [
        'company',
        'create',
        '--name',
        'Dach & Co',
        '--country',
        'IT',
        '--admin-email',
        email,
        '--admin-password',
        'secret-pass',
        '--json'
      ],
      env()
    )
    assert.equal(res.code, 0, res.stderr)
    const lines = res.stdout.trim().split('\n')
    assert.equal(lines.length, 1)
    const out = JSON.parse(lines[0])
    assert.deepEqual(Object.keys(out).sort(), ['adminUserId', 'apiKey', 'companyId'])
    assert.match(out.apiKey, /^ck_[A-Za-z0-9_-]{43}$/)
    const api = new HttpClient(suite.server().url, out.apiKey)
    assert.equal((await api.get('/v1/customers')).status, 200)
    const company = await suite.server().knex('companies').where({ id: out.companyId }).first()
    assert.equal(company.timezone, 'Europe/Rome')

    const again = await runCli(
      ['company', 'create', '--name', 'Dup', '--country', 'DE', '--admin-email', email.toUpperCase(), '--json'],
      env()
    )
    assert.equal(again.code, 2)
    assert.equal(JSON.parse(again.stdout).validationErrors.adminEmail, 'already exists')
  })

  it('company create rejects bad input naming each option, and writes nothing', async () => {
    const before = await suite.server().knex('companies').count({ n: '*' }).first()
    const res = await runCli(
      [
        'company',
        'create',
        '--name',
        'X',
        '--country',
        'Germany',
        '--admin-email',
        'nope',
        '--timezone',
        'Mars/Base',
        '--admin-password',
        'short'
      ],
      env()
    )
    assert.equal(res.code, 2)
    for (const option of ['--country', '--admin-email', '--timezone', '--admin-password'])
      assert.match(res.stderr, new RegExp(option))
    // Only the assigned ISO 3166-1 alpha-2 codes: not a reserved one (XX), a retired one (UK), a licence-plate letter (D).
    for (const country of ['XX', 'UK', 'D']) {
      const refused = await runCli(
        ['company', 'create', '--name', 'X', '--country', country, '--admin-email', 'x@example.test', '--json'],
        env()
      )
      assert.equal(refused.code, 2, country)
      assert.deepEqual(JSON.parse(refused.stdout).validationErrors, {
        country: 'must be an ISO 3166 alpha-2 country code such as DE or IT'
      })
    }
    const after = await suite.server().knex('companies').count({ n: '*' }).first()
    assert.equal(Number(after?.n), Number(before?.n))
  })

  it('company create takes the country in any case and, without a password, generates one that signs in, printed once', async () => {
    const address = `cli-gen-${Date.now()}@example.test`
    const res = await runCli(
      ['company', 'create', '--name', 'Generated', '--country', ' it ', '--admin-email', address, '--json'],
      env()
    )
    assert.equal(res.code, 0, res.stderr)
    const out = JSON.parse(res.stdout)
    assert.deepEqual(Object.keys(out).sort(), ['adminPassword', 'adminUserId', 'apiKey', 'companyId'])
    assert.match(out.adminPassword, /^[A-Za-z0-9_-]{24}$/)
    assert.equal((await suite.server().knex('companies').where({ id: out.companyId }).first()).country, 'IT')
    const signedIn = await suite
      .server()
      .http.post('/authentication', { strategy: 'local', email: address, password: out.adminPassword })
    assert.equal(signedIn.status, 201, signedIn.text)

    const text = await runCli(
      ['company', 'create', '--name', 'Generated text', '--country', 'de', '--admin-email', `text-${address}`],
      env()
    )
    assert.equal(text.code, 0, text.stderr)
    assert.equal(text.stdout.match(/^admin password: [A-Za-z0-9_-]{24} /gm)?.length, 1, text.stdout)

    const piped = await runCli(
      [
        'company',
        'create',
        '--name',
        'Piped',
        '--country',
        'FR',
        '--admin-email',
        `piped-${address}`,
        '--admin-password-stdin',
        '--json'
      ],
      env(),
      'piped password\n'
    )
    assert.equal(piped.code, 0, piped.stderr)
    assert.equal(JSON.parse(piped.stdout).adminPassword, undefined, 'a given password is never echoed')
    assert.equal(
      (
        await suite
          .server()
          .http.post('/authentication', { strategy: 'local', email: `piped-${address}`, password: 'piped password' })
      ).status,
      201
    )
  })

  it('key create, list and revoke; a revoked key answers 401', async function () {
    const company = await suite.company()
    const created = await runCli(
      ['key', 'create', '--company', String(company.id), '--name', 'integration', '--json'],
      env()
    )
    assert.equal(created.code, 0, created.stderr)
    const { keyId, apiKey } = JSON.parse(created.stdout)
    const api = new HttpClient(suite.server().url, apiKey)
    assert.equal((await api.get('/v1/customers')).status, 200)

    const listed = await runCli(['key', 'list', '--company', String(company.id), '--json'], env())
    const keys = JSON.parse(listed.stdout)
    assert.equal(keys.length, 2)
    const entry = keys.find((k: any) => k.id === keyId)
    assert.equal(entry.name, 'integration')
    assert.equal(entry.maskedKey, `ck_…${apiKey.slice(-4)}`)
    assert.ok(!listed.stdout.includes(apiKey), 'list never shows a whole key')

    const revoked = await runCli(['key', 'revoke', '--key-id', String(keyId), '--json'], env())
    assert.equal(revoked.code, 0, revoked.stderr)
    const res = await api.get('/v1/customers')
    assert.equal(res.status, 401)
    assert.equal(res.headers.get('www-authenticate'), 'Bearer')
    assert.equal((await company.api.get('/v1/customers')).status, 200, 'the other key still works')

    const twice = await runCli(['key', 'revoke', '--key-id', String(keyId)], env())
    assert.equal(twice.code, 2)
    const missing = await runCli(['key', 'create', '--company', '99999999'], env())
    assert.equal(missing.code, 2)
    const bad = await runCli(['key', 'create', '--company', 'abc'], env())
    assert.equal(bad.code, 2)
    assert.match(bad.stderr, /--company <id>' argument 'abc' is invalid. It must be a positive integer/)
  })

  it('key create --scope (repeatable) stores the scopes; key list shows them; an invalid scope exits 2 naming it', async function () {
    const company = await suite.company()
    const created = await runCli(
      [
        'key',
        'create',
        '--company',
        String(company.id),
        '--scope',
        'time-entries:write',
        '--scope',
        'customers:read',
        '--json'
      ],
      env()
    )
    assert.equal(created.code, 0, created.stderr)
    const lines = created.stdout.trim().split('\n')
    assert.equal(lines.length, 1)
    const { keyId, scopes } = JSON.parse(lines[0])
    assert.deepEqual(scopes, ['customers:read', 'time-entries:write'])
    const listed = JSON.parse((await runCli(['key', 'list', '--company', String(company.id), '--json'], env())).stdout)
    assert.deepEqual(listed.find((k: any) => k.id === keyId).scopes, ['customers:read', 'time-entries:write'])
    assert.deepEqual(listed.find((k: any) => k.id === company.apiKeyId).scopes, ['*:write'])
    const text = await runCli(['key', 'list', '--company', String(company.id)], env())
    assert.match(text.stdout, /customers:read,time-entries:write/)
    // No such company: a refusal like every command's, not an empty list.
    const nobody = await runCli(['key', 'list', '--company', '2147483000', '--json'], env())
    assert.equal(nobody.code, 2, nobody.stdout + nobody.stderr)
    assert.deepEqual(JSON.parse(nobody.stdout), { error: 'company 2147483000 does not exist' })

    const before = listed.length
    const invalid = await runCli(
      [
        'key',
        'create',
        '--company',
        String(company.id),
        '--scope',
        'customers:read',
        '--scope',
        'payroll:write',
        '--scope',
        'customers'
      ],
      env()
    )
    assert.equal(invalid.code, 2)
    assert.match(invalid.stderr, /"payroll:write" "payroll" is not a collection/)
    assert.match(invalid.stderr, /"customers" must be/)
    const invalidJson = await runCli(
      ['key', 'create', '--company', String(company.id), '--scope', 'payroll:write', '--json'],
      env()
    )
    assert.equal(invalidJson.code, 2)
    assert.match(JSON.parse(invalidJson.stdout).validationErrors['scopes.0'], /"payroll" is not a collection/)
    assert.equal(
      JSON.parse((await runCli(['key', 'list', '--company', String(company.id), '--json'], env())).stdout).length,
      before
    )
    const help = await runCli(['key', 'create', '--help'], env())
    assert.match(help.stdout, /--scope <scope>/)
  })

  describe('user commands', function () {
    let n = 0
    const email = (name: string) => `${name}-cli-${process.pid}-${Date.now()}-${++n}@example.test`
    const login = (address: string, password: string) =>
      suite.server().http.post('/authentication', { strategy: 'local', email: address, password })

    it('--help describes user create, set-password and deactivate', async () => {
      const help = await runCli(['user', '--help'], env())
      for (const command of ['create', 'set-password', 'deactivate'])
        assert.match(help.stdout, new RegExp(`\\b${command}\\b`))
      const create = await runCli(['user', 'create', '--help'], env())
      for (const option of ['--company', '--email', '--full-name', '--role', '--password-stdin', '--json'])
        assert.match(create.stdout, new RegExp(option))
      assert.match(create.stdout, /admin.*office.*worker/)
      assert.match(
        (await runCli(['user', 'set-password', '--help'], env())).stdout,
        /--password-stdin\s[^-]*\(required\)/
      )
      const withoutStdin = await runCli(['user', 'set-password', '--email', 'nobody@crew.test'], env())
      assert.equal(withoutStdin.code, 2)
      assert.match(withoutStdin.stderr, /--password-stdin/)
      assert.match((await runCli(['user', 'deactivate', '--help'], env())).stdout, /last active admin/)
    })

    it('user create --role admin reads the password from stdin; the admin signs in over HTTP; without a password it exits 2', async () => {
      const company = await suite.company()
      const address = email('cli-admin')
      const res = await runCli(
        [
          'user',
          'create',
          '--company',
          String(company.id),
          '--email',
          address,
          '--full-name',
          'Cli Admin',
          '--role',
          'admin',
          '--password-stdin',
          '--json'
        ],
        env(),
        'cli admin password\n'
      )
      assert.equal(res.code, 0, res.stderr)
      const out = JSON.parse(res.stdout)
      assert.deepEqual(Object.keys(out).sort(), ['companyId', 'email', 'roleType', 'userId'])
      assert.equal(out.roleType, 'admin')
      const signedIn = await login(address, 'cli admin password')
      assert.equal(signedIn.status, 201, signedIn.text)
      assert.equal(
        (await suite.server().http.withKey(signedIn.body.accessToken).get('/settings/admins')).body.length,
        2
      )

      const noPassword = await runCli(
        [
          'user',
          'create',
          '--company',
          String(company.id),
          '--email',
          email('nopw'),
          '--full-name',
          'No Pw',
          '--role',
          'admin'
        ],
        env()
      )
      assert.equal(noPassword.code, 2)
      assert.match(noPassword.stderr, /administrator needs a password.*--password-stdin/)
      const short = await runCli(
        [
          'user',
          'create',
          '--company',
          String(company.id),
          '--email',
          email('short'),
          '--full-name',
          'Short',
          '--role',
          'admin',
          '--password-stdin'
        ],
        env(),
        'short\n'
      )
      assert.equal(short.code, 2)
      assert.match(short.stderr, /--password must be at least 8 characters/)
      const taken = await runCli(
        [
          'user',
          'create',
          '--company',
          String(company.id),
          '--email',
          address.toUpperCase(),
          '--full-name',
          'Dup',
          '--role',
          'admin',
          '--password-stdin',
          '--json'
        ],
        env(),
        'long enough pw'
      )
      assert.equal(taken.code, 2)
      assert.deepEqual(JSON.parse(taken.stdout).validationErrors, { email: 'already exists' })
      const worker = await runCli(
        [
          'user',
          'create',
          '--company',
          String(company.id),
          '--email',
          email('cli-worker'),
          '--full-name',
          'Cli Worker',
          '--role',
          'worker',
          '--json'
        ],
        env()
      )
      assert.equal(worker.code, 0, worker.stderr)
      assert.equal((await company.api.get(`/v1/users/${JSON.parse(worker.stdout).userId}`)).body.roleType, 'worker')
      const badRole = await runCli(
        [
          'user',
          'create',
          '--company',
          String(company.id),
          '--email',
          email('x'),
          '--full-name',
          'X',
          '--role',
          'boss'
        ],
        env()
      )
      assert.notEqual(badRole.code, 0)
      const noCompany = await runCli(
        [
          'user',
          'create',
          '--company',
          '99999999',
          '--email',
          email('x'),
          '--full-name',
          'X',
          '--role',
          'admin',
          '--password-stdin'
        ],
        env(),
        'long enough pw'
      )
      assert.equal(noCompany.code, 2)
    })

    it('user set-password sets the password from stdin and ends the settings sessions', async () => {
      const company = await suite.company({ adminPassword: 'first password' })
      const { email: address } = await suite.server().knex('users').where({ id: company.adminUserId }).first('email')
      const token = (await login(address, 'first password')).body.accessToken
      const session = suite.server().http.withKey(token)
      assert.equal((await session.get('/settings/admins')).status, 200)
      const res = await runCli(
        ['user', 'set-password', '--email', address.toUpperCase(), '--password-stdin', '--json'],
        env(),
        'second password\r\n'
      )
      assert.equal(res.code, 0, res.stderr)
      assert.deepEqual(JSON.parse(res.stdout), { userId: company.adminUserId, passwordSet: true })
      assert.equal((await session.get('/settings/admins')).status, 401)
      assert.equal((await login(address, 'first password')).status, 401)
      assert.equal((await login(address, 'second password')).status, 201)
      const withoutStdin = await runCli(['user', 'set-password', '--email', address], env())
      assert.equal(withoutStdin.code, 2)
      assert.match(withoutStdin.stderr, /--password-stdin/)
      const unknown = await runCli(
        ['user', 'set-password', '--email', email('nobody'), '--password-stdin'],
        env(),
        'long enough pw'
      )
      assert.equal(unknown.code, 2)
      assert.match(unknown.stderr, /no user with email/)
    })

    it('user deactivate: never the last active admin (exit 2); another admin is deactivated, signs in to nothing, their keys stop', async () => {
      const company = await suite.company({ adminPassword: 'first password' })
      const { email: firstEmail } = await suite.server().knex('users').where({ id: company.adminUserId }).first('email')
      const last = await runCli(['user', 'deactivate', '--email', firstEmail], env())
      assert.equal(last.code, 2)
      assert.match(last.stderr, /last active administrator/)
      assert.equal((await login(firstEmail, 'first password')).status, 201)

      const address = email('second')
      const created = await runCli(
        [
          'user',
          'create',
          '--company',
          String(company.id),
          '--email',
          address,
          '--full-name',
          'Second',
          '--role',
          'admin',
          '--password-stdin',
          '--json'
        ],
        env(),
        'second password'
      )
      const secondId = JSON.parse(created.stdout).userId
      const session = suite.server().http.withKey((await login(address, 'second password')).body.accessToken)
      const key = await session.post('/settings/api-keys', { name: 'second admin key' })
      assert.equal((await company.api.withKey(key.body.key).get('/v1/customers')).status, 200)

      const res = await runCli(['user', 'deactivate', '--email', address, '--json'], env())
      assert.equal(res.code, 0, res.stderr)
      const out = JSON.parse(res.stdout)
      assert.equal(out.userId, secondId)
      assert.match(out.deactivatedAt, /^\d{4}-\d\d-\d\dT.*Z$/)
      assert.equal((await session.get('/settings/admins')).status, 401)
      assert.equal((await login(address, 'second password')).status, 401)
      assert.equal((await company.api.withKey(key.body.key).get('/v1/customers')).status, 401)
      assert.equal((await runCli(['user', 'deactivate', '--email', address], env())).code, 2)
      // The CLI's changes are in the company's log like every write, as the server's own work; refusals log nothing.
      const feed = await company.api.get('/v1/changes?types=users.*&size=500')
      assert.equal(feed.status, 200, feed.text)
      assert.deepEqual(
        feed.body.items.map((e: any) => [e.type, e.data.id, e.data.deactivatedAt === null, e.actor]),
        [
          ['users.created', secondId, true, { system: true }],
          ['users.patched', secondId, false, { system: true }]
        ]
      )
      // Now the first admin is the last one again.
      assert.equal((await runCli(['user', 'deactivate', '--email', firstEmail], env())).code, 2)
    })
  })
})

describe('crewclock migrate and serve on a fresh SQLite database', function () {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crewclock-serve-'))
  const env = {
    NODE_ENV: 'development',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dir,
    DATABASE_URL: `sqlite://${dir}/crewclock.sqlite`,
    LOG_LEVEL: 'warn'
  }
  after(() => fs.rmSync(dir, { recursive: true, force: true }))

  it('serve refuses a bad setting before it touches the database, naming the setting and its variable (exit 2)', async () => {
    const file = path.join(dir, 'never.sqlite')
    for (const [variable, value, said] of [
      ['PORT', 'abc', 'port (PORT) is not valid: "abc"'],
      ['PORT', '70000', 'port (PORT) must be <= 65535'],
      ['DB_STATEMENT_TIMEOUT_MS', 'x', 'database.statementTimeoutMs (DB_STATEMENT_TIMEOUT_MS) is not valid: "x"']
    ]) {
      const res = await runCli(['serve'], { ...env, DATABASE_URL: `sqlite://${file}`, [variable]: value })
      assert.equal(res.code, 2, `${variable}=${value}: ${res.stderr}`)
      assert.ok(res.stderr.includes(`invalid configuration: ${said}`), res.stderr)
      // No migration, no demo company whose key and password would be printed for a server that never ran.
      assert.equal(fs.existsSync(file), false)
      assert.doesNotMatch(res.stdout, /demo company/)
    }
  })

  it('migrate --json lists what it applied to a new database, then nothing', async () => {
    const file = path.join(dir, 'migrated.sqlite')
    const first = await runCli(['migrate', '--json'], { DATA_DIR: dir, DATABASE_URL: `sqlite://${file}` })
    assert.equal(first.code, 0, first.stderr)
    const applied: string[] = JSON.parse(first.stdout).applied
    assert.ok(applied.length >= 4, first.stdout)
    assert.deepEqual(applied, [...applied].sort())
    const second = await runCli(['migrate'], { DATA_DIR: dir, DATABASE_URL: `sqlite://${file}` })
    assert.equal(second.stdout.trim(), 'database is up to date')
  })

  it('creates a demo company on first start, prints its key and URLs, and not on later starts', async () => {
    const first = await startServe(env)
    try {
      const output = first.output()
      const key = /API key:\s+(ck_\S+)/.exec(output)?.[1]
      assert.ok(key, output)
      assert.match(output, /\/settings/)
      assert.match(output, /\/dashboard/)
      const res = await new HttpClient(first.url, key).get('/v1/customers')
      assert.equal(res.status, 200)
      assert.equal(res.body.total, 0)
    } finally {
      await stopProcess(first.child)
    }
    const second = await startServe(env)
    try {
      assert.doesNotMatch(second.output(), /API key/)
      const health = await new HttpClient(second.url).get('/health')
      assert.equal(health.status, 200)
    } finally {
      await stopProcess(second.child)
    }
  })
  it('logs each request as JSON with its request id, and never a key, a password or a token', async () => {
    const own = fs.mkdtempSync(path.join(os.tmpdir(), 'crewclock-log-'))
    const served = await startServe({
      ...env,
      DATA_DIR: own,
      DATABASE_URL: `sqlite://${own}/crewclock.sqlite`,
      LOG_LEVEL: 'trace'
    })
    try {
      const banner = served.output()
      const key = /API key:\s+(ck_\S+)/.exec(banner)![1]
      const [, email, password] = /\(admin: (\S+) \/ (\S+)\)/.exec(banner)!
      const from = banner.length
      const api = new HttpClient(served.url, key)
      const wrongKey = `ck_${'x'.repeat(43)}`
      assert.equal((await api.get('/v1/customers')).status, 200)
      assert.equal((await api.post('/v1/customers', { companyName: 'Log GmbH', apiKey: key, password })).status, 400)
      assert.equal((await new HttpClient(served.url, wrongKey).get('/v1/customers')).status, 401)
      const login = await new HttpClient(served.url).post('/authentication', { strategy: 'local', email, password })
      assert.equal(login.status, 201)
      assert.equal(
        (
          await new HttpClient(served.url).post('/authentication', {
            strategy: 'local',
            email,
            password: 'Wrong-Secret-42'
          })
        ).status,
        401
      )
      assert.equal((await new HttpClient(served.url, login.body.accessToken).get('/v1/customers')).status, 401)
      await new Promise((r) => setTimeout(r, 200)) // let the last log lines arrive

      const lines = served
        .output()
        .slice(from)
        .split('\n')
        .filter((line) => line.startsWith('{'))
      const requests = lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'request')
      assert.ok(requests.length >= 6, served.output().slice(from))
      for (const entry of requests) assert.match(entry.requestId, /^[\w.-]+$/)
      const logged = served.output().slice(from)
      for (const secret of [key, key.slice(3), wrongKey, password, 'Wrong-Secret-42', login.body.accessToken]) {
        assert.ok(!logged.includes(secret), `the log contains a secret: ${secret.slice(0, 6)}…`)
      }
    } finally {
      await stopProcess(served.child)
      fs.rmSync(own, { recursive: true, force: true })
    }
  })

  it('WEB_CONCURRENCY=2 on a port that is taken exits 1 with a message, instead of starting workers forever', async () => {
    const taken = net.createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const { port } = taken.address() as net.AddressInfo
    try {
      const run = runCli(['serve'], { ...env, PORT: String(port), HOST: '127.0.0.1', WEB_CONCURRENCY: '2' })
      const result = await Promise.race([run, new Promise<null>((resolve) => setTimeout(() => resolve(null), 60000))])
      assert.ok(result, 'still running after 60 s')
      assert.equal(result.code, 1, result.stderr)
      assert.match(result.stderr, /a worker could not start/)
      assert.ok((result.stderr.match(/starting a new one/g) ?? []).length === 0, result.stderr)
    } finally {
      taken.close()
    }
  })

  it('WEB_CONCURRENCY=2 runs two workers on one port', async () => {
    // Workers cannot report a port picked by the primary: choose a free one first.
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as net.AddressInfo
        probe.close(() => resolve(port))
      })
    })
    const served = await startServe({ ...env, PORT: String(port), WEB_CONCURRENCY: '2' })
    try {
      await until(() => (served.output().match(/listening on/g) ?? []).length >= 2)
      const ports = [...served.output().matchAll(/listening on http:\/\/[^:]+:(\d+)/g)].map((m) => m[1])
      assert.equal(ports.length, 2, served.output())
      assert.deepEqual(ports, [String(port), String(port)])
      for (let i = 0; i < 10; i++) assert.equal((await new HttpClient(served.url).get('/health')).status, 200)
    } finally {
      await stopProcess(served.child)
    }
  })
})
