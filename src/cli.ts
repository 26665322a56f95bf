import { Command, Help, InvalidArgumentError, Option } from 'commander'
import crypto from 'node:crypto'
import cluster from 'node:cluster'
import path from 'node:path'
import type { Knex } from 'knex'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { ROLE_TYPES, RoleType } from './companies/catalogues'
import { countryCodeOf } from './companies/country-codes'
import type { Application } from './declarations'

/**
 * The application's modules, loaded by the commands that use them rather than at start: `--help` and input
 * refused by the option parser answer without building the app, which takes seconds on a busy machine
 * (test/api/cli.test.ts checks that `--help` loads none of them).
 */
const load = {
  app: () => require('./app') as typeof import('./app'),
  migrations: () => require('./db/migrations') as typeof import('./db/migrations'),
  upgrades: () => require('./timesheets/upgrades') as typeof import('./timesheets/upgrades'),
  companies: () => require('./companies/create-company') as typeof import('./companies/create-company'),
  apiKeys: () => require('./auth/api-keys') as typeof import('./auth/api-keys'),
  scopes: () => require('./auth/scopes') as typeof import('./auth/scopes'),
  accounts: () => require('./services/users/user-accounts') as typeof import('./services/users/user-accounts'),
  clusterBus: () => require('./sync/cluster-bus') as typeof import('./sync/cluster-bus'),
  journal: () => require('./events/journal') as typeof import('./events/journal'),
  configuration: () => require('./configuration') as typeof import('./configuration')
}

/** Exit statuses, the same for every command (also printed by `--help`). */
export const EXIT = { ok: 0, unexpected: 1, refused: 2 } as const

const EXIT_HELP = `
Exit status:
  0  done
  2  bad input or refused: unknown or missing option, invalid value, a duplicate,
     no such company, key or user; nothing was changed
  1  unexpected error (database unreachable, a bug)
With --json, a refusal found after parsing prints {"error","validationErrors"?}
on stdout; usage errors are reported on stderr.`

type Out = { json?: boolean }

const print = (opts: Out, value: Record<string, unknown> | unknown[], text: string) => {
  process.stdout.write(opts.json ? JSON.stringify(value) + '\n' : text + '\n')
}

const fail = (message: string, opts: Out = {}, details?: Record<string, string>): never => {
  if (opts.json)
    process.stdout.write(JSON.stringify({ error: message, ...(details ? { validationErrors: details } : {}) }) + '\n')
  else
    process.stderr.write(
      `crewclock: ${message}${
        details
          ? '\n' +
            Object.entries(details)
              .map(([k, v]) => `  --${k.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())} ${v}`)
              .join('\n')
          : ''
      }\n`
    )
  process.exit(EXIT.refused)
}

const positiveInt = (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 2147483647)
    throw new InvalidArgumentError('It must be a positive integer.')
  return Number(value)
}

/** The password piped to the command (`--password-stdin`): everything read, without the final line break. */
async function readPasswordFromStdin() {
  let input = ''
  process.stdin.setEncoding('utf8')
  for await (const chunk of process.stdin) input += chunk
  return input.replace(/\r?\n$/, '')
}

const collect = (value: string, previous: string[]) => [...previous, value]

/** HTTP-style failures of the account functions (400 with field errors, 404, 409) as CLI errors. */
function failWith(error: unknown, opts: Out): never {
  const http = error as { code?: unknown; message: string; data?: { validationErrors?: Record<string, string> } }
  if (typeof http?.code === 'number' && http.code >= 400 && http.code < 500)
    return fail(http.message, opts, http.data?.validationErrors)
  throw error
}

/**
 * Runs a command against the configured database without serving. The app is built without
 * REDIS_URL: a one-shot command publishes no events, and an open Redis connection would keep
 * the process from exiting.
 */
/** Pending migrations, then the recomputations a rule change shipped with them owes stored figures. */
async function migrateDatabase(db: Knex): Promise<string[]> {
  const applied = await load.migrations().migrateLatest(db)
  await load.upgrades().upgradeAfter(db, applied)
  return applied
}

async function withDatabase<T>(work: (db: Knex, app: Application) => Promise<T>, { migrate = true } = {}): Promise<T> {
  const app = load.app().createApp({ redisUrl: undefined })
  const db = app.get('knex')
  try {
    if (migrate) await migrateDatabase(db)
    return await work(db, app)
  } finally {
    await db.destroy()
  }
}

type UserChange = (action: 'created' | 'patched', userId: number) => void

/**
 * A change of users by the CLI, logged like every write (CONTRACT §13.1): in one transaction with
 * its events, as the server's own work (`{ system: true }`), so that the change feed, webhooks and
 * the sockets of running servers (which all read the log) see it. `note` names each user changed.
 */
async function loggedUserChange<T>(
  app: Application,
  db: Knex,
  companyId: number,
  work: (trx: Knex.Transaction, note: UserChange) => Promise<T>
): Promise<T> {
  const company = await db('companies').where({ id: companyId }).first('id', 'name', 'country', 'timezone')
  if (!company) throw Object.assign(new Error(`company ${companyId} does not exist`), { code: 404 })
  const { journalOf, loggedTransaction } = load.journal()
  return loggedTransaction(app, db, { company, requestId: `cli-${crypto.randomUUID()}` }, (params, trx) =>
    work(trx, (action, userId) => journalOf(params).touch('v1/users', action, [userId]))
  )
}

async function ensureDemoCompany(app: Application, db: Knex) {
  if (!app.get('demo').enabled || app.get('dialect').client !== 'sqlite3') return null
  const row = await db('companies').count({ n: '*' }).first()
  if (Number(row?.n ?? 0) > 0) return null
  const adminPassword = crypto.randomBytes(9).toString('base64url')
  const created = await load.companies().createCompany(db, app.get('appSecret'), {
    name: 'Demo Elektro GmbH',
    country: 'DE',
    adminEmail: 'admin@demo.crewclock.test',
    adminName: 'Demo Admin',
    adminPassword
  })
  return { ...created, adminPassword, adminEmail: 'admin@demo.crewclock.test' }
}

/** The environment variable that sets a configuration path (config/custom-environment-variables.json), if any. */
function variableOf(configPath: string[]): string | undefined {
  let node: unknown = require(path.join(process.env.NODE_CONFIG_DIR ?? 'config', 'custom-environment-variables.json'))
  for (const key of configPath) node = (node as Record<string, unknown> | undefined)?.[key]
  return typeof node === 'string' ? node : ((node as { __name?: string } | undefined)?.__name ?? undefined)
}

/**
 * The configuration is checked before the database is touched, each refusal naming its setting and
 * variable. Feathers checks it when the app starts listening: after the migrations and the demo
 * company, whose key and password were then printed for a server that never started, and with
 * only "validation failed" to say why (found by a review).
 */
async function checkConfiguration(app: Application) {
  const { configurationSchema, configurationValidator } = load.configuration()
  const settings = Object.fromEntries(
    Object.keys(configurationSchema.properties).map((key) => [key, app.get(key as never)])
  )
  try {
    await configurationValidator(settings)
  } catch (error) {
    // ajv's ValidationError carries its findings as `errors`.
    const problems = (error as { errors?: unknown }).errors
    if (!Array.isArray(problems)) throw error
    const described = problems.map(
      (problem: { instancePath: string; message?: string; params?: { missingProperty?: string } }) => {
        const configPath = [
          ...problem.instancePath.split('/').filter(Boolean),
          ...(problem.params?.missingProperty ? [problem.params.missingProperty] : [])
        ]
        const variable = variableOf(configPath)
        const sent = variable === undefined ? undefined : process.env[variable]
        // A number variable that is no number reaches the schema as missing.
        const message = problem.params?.missingProperty
          ? sent === undefined
            ? 'is required'
            : `is not valid: ${JSON.stringify(sent)}`
          : (problem.message ?? 'is not valid')
        return `${configPath.join('.')}${variable ? ` (${variable})` : ''} ${message}`
      }
    )
    fail(`invalid configuration: ${described.join('; ')}`)
  }
}

export async function serve() {
  const app = load.app().createApp()
  const db = app.get('knex')
  const logger = app.get('logger')
  const workers = app.get('webConcurrency')
  if (cluster.isPrimary) {
    await checkConfiguration(app)
    await migrateDatabase(db)
    const demo = await ensureDemoCompany(app, db)
    const base = app.get('publicUrl') || `http://localhost:${app.get('port')}`
    if (demo) {
      process.stdout.write(
        [
          '',
          'crewclock: created a demo company on this new database.',
          `  API key:        ${demo.apiKey}`,
          `  Settings page:  ${base}/settings  (admin: ${demo.adminEmail} / ${demo.adminPassword})`,
          `  Dashboard:      ${base}/dashboard`,
          `  Try:            curl -H "Authorization: Bearer ${demo.apiKey}" ${base}/v1/customers`,
          ''
        ].join('\n') + '\n'
      )
    }
    if (workers > 1) {
      await Promise.all([db.destroy(), app.get('bus').close()])
      // Without Redis the workers' sync bus is this process: it passes each message on to the other workers.
      if (!app.get('redisUrl')) load.clusterBus().relayClusterBus(logger)
      // Without Redis the workers' rate-limit counters live here, so the limits hold for the
      // deployment, not per worker (CONTRACT §10.2).
      const { RateLimiterClusterMaster } = require('rate-limiter-flexible') as typeof import('rate-limiter-flexible')
      new RateLimiterClusterMaster()
      // Workers share the port (node:cluster); SQLite runs in WAL mode, so they read concurrently.
      // A worker that exits before it listens (the port taken, an address the host lacks) would fail
      // again at once: the service stops with exit code 1, as one process does, instead of
      // starting workers forever (found by a review). One that served and then died is replaced.
      let stopping = false
      let failed = false
      const listened = new Set<number>()
      for (let i = 0; i < workers; i++) cluster.fork()
      cluster.on('listening', (worker) => listened.add(worker.id))
      cluster.on('exit', (worker, code) => {
        if (!stopping && !listened.has(worker.id)) {
          logger.error({ pid: worker.process.pid, code }, 'a worker exited before it listened; stopping')
          process.stderr.write(`crewclock: a worker could not start (exit code ${code}); its error is above\n`)
          failed = true
          stopWorkers()
        }
        if (stopping) {
          if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(failed ? EXIT.unexpected : EXIT.ok)
          return
        }
        listened.delete(worker.id)
        logger.warn({ pid: worker.process.pid, code }, 'worker exited; starting a new one')
        cluster.fork()
      })
      function stopWorkers() {
        stopping = true
        for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM')
      }
      process.once('SIGTERM', stopWorkers)
      process.once('SIGINT', stopWorkers)
      return
    }
  }
  // HOST is honoured (CONTRACT §10.3): 127.0.0.1 keeps the API off the network. Workers bind through
  // the primary with the same address.
  const server = await app.listen(app.get('port'), app.get('host'))
  if (!server.listening) await new Promise((resolve, reject) => server.once('listening', resolve).once('error', reject))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : app.get('port')
  logger.info({ port, pid: process.pid }, 'crewclock listening')
  process.stdout.write(`crewclock listening on http://${app.get('host')}:${port}\n`)
  const inFlight = countRequests(server)
  const stop = async () => {
    await stopServing(app, server, inFlight)
    process.exit(0)
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}

/**
 * How long a stopping instance lets in-flight requests finish before it closes its sockets: they
 * must be closed within 10 s (CONTRACT §12), and a load balancer's drain is usually no longer.
 */
const SHUTDOWN_GRACE_MS = 9000

/**
 * HTTP requests being answered, socket.io's long-polling requests left out: they are held open on
 * purpose and end with their sockets.
 */
function countRequests(server: Server) {
  let count = 0
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/socket.io/')) return
    count++
    res.once('close', () => count--)
  })
  return () => count
}

/**
 * SIGTERM (CONTRACT §12, Shutdown): stop accepting connections and sockets, let in-flight requests
 * and socket calls finish and send their events (read from the log) to the open sockets, then close the sockets'
 * transports. Their clients see `transport close` and socket.io reconnects them, to another instance
 * or to this one's successor; socket.io's server disconnect (`disconnectSockets`) is never retried
 * by clients. Then the pool, the bus and the rest are closed by the app's teardown.
 */
async function stopServing(app: Application, server: Server, requestsInFlight: () => number) {
  const logger = app.get('logger')
  logger.info('stopping')
  const sockets = app.get('sockets')
  sockets.refuseNew()
  const closed = new Promise((resolve) => server.close(resolve))
  const deadline = performance.now() + SHUTDOWN_GRACE_MS
  while ((requestsInFlight() > 0 || sockets.callsInFlight > 0) && performance.now() < deadline) {
    server.closeIdleConnections()
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  // The events of the writes that just finished are in the log: they go out before the sockets close.
  const flushed = app.get('eventDelivery').flush()
  await Promise.race([
    flushed,
    new Promise((resolve) => setTimeout(resolve, Math.max(200, deadline - performance.now())))
  ])
  sockets.close()
  server.closeAllConnections()
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 1000).unref())])
  await app.teardown().catch(() => undefined)
}

/** Marks mandatory options "(required)" in the help; commander 14 only refuses them when missing. */
function optionDescription(this: Help, option: Option) {
  const description = Help.prototype.optionDescription.call(this, option)
  return option.mandatory ? `${description} (required)` : description
}

export function buildCli() {
  const program = new Command()
  // Set before any subcommand is added: subcommands copy these settings when they are created.
  program
    .name('crewclock')
    .description(
      'crewclock: work-order and time-tracking API. Configuration comes from config/ and the environment (DATABASE_URL, PORT, ...).'
    )
    .showHelpAfterError()
    .configureHelp({ optionDescription })
    // commander exits 1 on a usage error; here 1 means unexpected, so a usage error is a refusal (2).
    .exitOverride((error) => process.exit(error.exitCode === 0 ? EXIT.ok : EXIT.refused))
    .addHelpText('afterAll', EXIT_HELP)

  program.command('serve').description('migrate, then serve the API on PORT (what `npm start` runs)').action(serve)

  program
    .command('migrate')
    .description(
      'run pending database migrations against DATABASE_URL (and the recomputations a changed time-sheet rule owes)'
    )
    .option('--json', 'machine-readable output')
    .action(async (opts: Out) => {
      const applied = await withDatabase((db) => migrateDatabase(db), { migrate: false })
      print(
        opts,
        { applied },
        applied.length ? `applied ${applied.length} migration(s): ${applied.join(', ')}` : 'database is up to date'
      )
    })

  const company = program.command('company').description('manage companies')
  company
    .command('create')
    .description('create a company with its default catalogues, an admin user and one API key')
    .requiredOption('--name <name>', 'company name')
    .requiredOption('--country <code>', 'ISO 3166-1 alpha-2 country code, any case (DE, it, ...)')
    .option('--timezone <iana>', 'IANA timezone (default by country: DE Europe/Berlin, IT Europe/Rome)')
    .requiredOption('--admin-email <email>', 'email of the admin user')
    .addOption(
      new Option(
        '--admin-password <password>',
        'password of the admin user (settings page login, at least 8 characters); without it or --admin-password-stdin a strong one is generated and printed once'
      ).conflicts('adminPasswordStdin')
    )
    .option(
      '--admin-password-stdin',
      'read the admin password from standard input instead (kept out of the process list and shell history)'
    )
    .option('--admin-name <name>', 'full name of the admin user', 'Administrator')
    .option(
      '--json',
      'print exactly one JSON object: {"companyId","adminUserId","apiKey"}, plus "adminPassword" when it was generated'
    )
    .action(
      async (
        opts: Out & {
          name: string
          country: string
          timezone?: string
          adminEmail: string
          adminPassword?: string
          adminPasswordStdin?: boolean
          adminName: string
        }
      ) => {
        const { adminPasswordStdin, json: _json, ...given } = opts
        const generated = given.adminPassword === undefined && !adminPasswordStdin
        const adminPassword = adminPasswordStdin
          ? await readPasswordFromStdin()
          : generated
            ? crypto.randomBytes(18).toString('base64url')
            : given.adminPassword!
        const input = { ...given, country: countryCodeOf(given.country) ?? given.country, adminPassword }
        const errors = load.companies().validateCompanyInput(input)
        const passwordProblem = load.accounts().passwordError(adminPassword)
        if (passwordProblem) errors.adminPassword = passwordProblem
        if (Object.keys(errors).length) fail('invalid company', opts, errors)
        const result = await withDatabase(async (db, app) => {
          const taken = await db('users').where({ emailNormalized: input.adminEmail.trim().toLowerCase() }).first()
          if (taken) fail('a user with this email already exists', opts, { adminEmail: 'already exists' })
          return load.companies().createCompany(db, app.get('appSecret'), input)
        })
        print(
          opts,
          {
            companyId: result.companyId,
            adminUserId: result.adminUserId,
            apiKey: result.apiKey,
            ...(generated ? { adminPassword } : {})
          },
          [
            `company ${result.companyId} created`,
            `admin user: ${result.adminUserId}`,
            `API key: ${result.apiKey}`,
            ...(generated
              ? [
                  `admin password: ${adminPassword}  (generated, shown only now; change it with \`crewclock user set-password\`)`
                ]
              : [])
          ].join('\n')
        )
      }
    )

  const key = program.command('key').description('manage API keys')
  key
    .command('create')
    .description("create an API key acting as the company's first admin user")
    .addOption(new Option('--company <id>', 'company id').argParser(positiveInt).makeOptionMandatory())
    .option('--name <name>', 'a label for the key')
    .addOption(
      new Option(
        '--scope <scope>',
        'what the key may do, repeatable: <collection>:read or <collection>:write, * for every collection'
      )
        .argParser(collect)
        .default([], '*:write')
    )
    .option('--json', 'print exactly one JSON object: {"keyId","apiKey","scopes"}')
    .action(async (opts: Out & { company: number; name?: string; scope: string[] }) => {
      const created = await withDatabase(async (db, app) => {
        const scopes = opts.scope.length ? opts.scope : undefined
        if (scopes) {
          const { scopeErrors, scopeCollections } = load.scopes()
          const errors = scopeErrors(scopes, scopeCollections(app.get('registry').resources))
          const named = Object.entries(errors).map(
            ([path, message]) => `"${scopes[Number(path.split('.')[1])]}" ${message}`
          )
          if (named.length) fail(`invalid --scope: ${named.join('; ')}`, opts, opts.json ? errors : undefined)
        }
        const admin = await db('users')
          .join('roles', 'roles.id', 'users.roleId')
          .where({ 'users.companyId': opts.company, 'roles.type': 'admin' })
          .whereNull('users.deactivatedAt')
          .orderBy('users.id')
          .first('users.id')
        if (!admin) fail(`company ${opts.company} does not exist or has no active admin user`, opts)
        const key = await load.apiKeys().createApiKey(db, app.get('appSecret'), {
          companyId: opts.company,
          userId: admin.id,
          name: opts.name,
          scopes
        })
        return { ...key, scopes: load.scopes().normalizeScopes(scopes ?? load.scopes().DEFAULT_SCOPES) }
      })
      print(
        opts,
        { keyId: created.id, apiKey: created.key, scopes: created.scopes },
        `key ${created.id}: ${created.key}\nscopes: ${created.scopes.join(' ')}`
      )
    })
  key
    .command('list')
    .description('list the API keys of a company (masked)')
    .addOption(new Option('--company <id>', 'company id').argParser(positiveInt).makeOptionMandatory())
    .option('--json', 'machine-readable output')
    .action(async (opts: Out & { company: number }) => {
      const keys = await withDatabase(async (db) => {
        // No such company is a refusal (exit 2), as for every other command: not an empty list.
        if (!(await db('companies').where({ id: opts.company }).first('id')))
          fail(`company ${opts.company} does not exist`, opts)
        return load.apiKeys().listApiKeys(db, opts.company)
      })
      print(
        opts,
        keys,
        keys
          .map(
            (k) =>
              `${k.id}\t${k.maskedKey}\t${k.name ?? ''}\t${k.scopes.join(',')}\t${k.revokedAt ? 'revoked ' + k.revokedAt : 'active'}`
          )
          .join('\n') || 'no keys'
      )
    })
  key
    .command('revoke')
    .description('revoke an API key: it answers 401 from now on')
    .addOption(new Option('--key-id <id>', 'key id').argParser(positiveInt).makeOptionMandatory())
    .option('--json', 'machine-readable output')
    .action(async (opts: Out & { keyId: number }) => {
      const revoked = await withDatabase((db) => load.apiKeys().revokeApiKey(db, opts.keyId))
      if (!revoked) fail(`no active key with id ${opts.keyId}`, opts)
      print(opts, { keyId: opts.keyId, revoked: true }, `key ${opts.keyId} revoked`)
    })

  const user = program
    .command('user')
    .description('manage users: administrators are managed here or on the settings page, never with an API key')
  user
    .command('create')
    .description(
      'create a user of a company; an administrator needs a password (--password-stdin) to sign in to the settings page'
    )
    .addOption(new Option('--company <id>', 'company id').argParser(positiveInt).makeOptionMandatory())
    .requiredOption('--email <email>', 'email address (the login; unique across all companies)')
    .requiredOption('--full-name <name>', 'full name')
    .addOption(new Option('--role <type>', 'role type').choices([...ROLE_TYPES]).makeOptionMandatory())
    .option(
      '--password-stdin',
      'read the password (at least 8 characters) from standard input, e.g. `printf %s "$PW" | crewclock user create ...`'
    )
    .option('--json', 'print exactly one JSON object: {"userId","companyId","email","roleType"}')
    .action(
      async (
        opts: Out & { company: number; email: string; fullName: string; role: RoleType; passwordStdin?: boolean }
      ) => {
        if (opts.role === 'admin' && !opts.passwordStdin)
          fail('an administrator needs a password to sign in: pipe it in with --password-stdin', opts, {
            passwordStdin: 'is required for --role admin'
          })
        const password = opts.passwordStdin ? await readPasswordFromStdin() : null
        const input = { email: opts.email, fullName: opts.fullName, roleType: opts.role, password }
        const errors = load.accounts().accountErrors(input)
        if (Object.keys(errors).length) fail('invalid user', opts, errors)
        const userId = await withDatabase((db, app) =>
          loggedUserChange(app, db, opts.company, async (trx, note) => {
            const created = await load.accounts().createAccount(trx, { companyId: opts.company, ...input })
            note('created', created)
            return created
          }).catch((error) => failWith(error, opts))
        )
        print(
          opts,
          { userId, companyId: opts.company, email: opts.email, roleType: opts.role },
          `user ${userId} (${opts.role}) created in company ${opts.company}`
        )
      }
    )
  user
    .command('set-password')
    .description("set a user's password (read from standard input); ends the user's settings-page sessions")
    .requiredOption('--email <email>', 'email address of the user')
    // Required: a password is never taken from the command line (process list, shell history).
    .addOption(
      new Option(
        '--password-stdin',
        'read the new password (at least 8 characters) from standard input'
      ).makeOptionMandatory()
    )
    .option('--json', 'print exactly one JSON object: {"userId","passwordSet":true}')
    .action(async (opts: Out & { email: string; passwordStdin?: boolean }) => {
      const password = await readPasswordFromStdin()
      const problem = load.accounts().passwordError(password)
      if (problem) fail('invalid password', opts, { password: problem })
      const userId = await withDatabase(async (db, app) => {
        const found = await load.accounts().findUserByEmail(db, opts.email)
        if (!found) fail(`no user with email ${opts.email}`, opts)
        await loggedUserChange(app, db, found.companyId, async (trx, note) => {
          await load.accounts().setPassword(trx, found.id, password)
          note('patched', found.id)
        })
        return found.id as number
      })
      print(opts, { userId, passwordSet: true }, `password of user ${userId} set; their settings sessions have ended`)
    })
  user
    .command('deactivate')
    .description(
      'deactivate a user: they sign in to nothing and their API keys stop working; never the last active admin of a company'
    )
    .requiredOption('--email <email>', 'email address of the user')
    .option('--json', 'print exactly one JSON object: {"userId","deactivatedAt"}')
    .action(async (opts: Out & { email: string }) => {
      const row = await withDatabase(async (db, app) => {
        const found = await load.accounts().findUserByEmail(db, opts.email)
        if (!found) fail(`no user with email ${opts.email}`, opts)
        await loggedUserChange(app, db, found.companyId, async (trx, note) => {
          await load.accounts().deactivateAccount(trx, found.companyId, found.id)
          note('patched', found.id)
        }).catch((error) => failWith(error, opts))
        return db('users').where({ id: found.id }).first('id', 'deactivatedAt')
      })
      const deactivatedAt = new Date(row.deactivatedAt).toISOString()
      print(opts, { userId: row.id, deactivatedAt }, `user ${row.id} deactivated at ${deactivatedAt}`)
    })
  return program
}

export async function main(argv = process.argv) {
  await buildCli().parseAsync(argv)
}
