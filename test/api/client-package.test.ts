import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import type ts from 'typescript'
import { ROOT } from '../support/cli'
import { compile, STRICT } from '../support/compile'

/**
 * @crewclock/client as an integrator gets it: built from the current sources, packed with
 * `npm pack`, installed from the tarball into an empty project. It brings none of the server's
 * dependencies, loads with require(), and its declarations compile on their own, strict and
 * with every library checked, carrying the same types as the sources (test/types/client-usage.ts).
 */

const run = promisify(execFile)
const CLIENT = path.join(ROOT, 'client')
const SERVER_ONLY = [
  'knex',
  'pg',
  'sqlite3',
  'koa',
  '@feathersjs/knex',
  '@feathersjs/koa',
  '@feathersjs/authentication'
]

interface NpmTree {
  name?: string
  dependencies?: Record<string, NpmTree>
}

/** Every package name in an `npm ls --all --json` tree. */
const namesIn = (tree: NpmTree): string[] =>
  Object.entries(tree.dependencies ?? {}).flatMap(([name, sub]) => [name, ...namesIn(sub)])

describe('@crewclock/client as a package', function () {
  const dir = path.join(ROOT, '.tmp', `client-package-${process.pid}`)
  const project = path.join(dir, 'project')
  let packed: { files: { path: string }[]; filename: string }

  before(async function () {
    fs.rmSync(dir, { recursive: true, force: true })
    fs.mkdirSync(project, { recursive: true })
    await run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(CLIENT, 'tsconfig.json')])
    const pack = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: CLIENT })
    ;[packed] = JSON.parse(pack.stdout)
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'integrator', private: true }))
    await run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', path.join(dir, packed.filename)],
      { cwd: project }
    )
  })

  after(() => fs.rmSync(dir, { recursive: true, force: true }))

  it('ships its built code, declarations and README only', () => {
    const files = packed.files.map((f) => f.path).sort()
    assert.ok(files.includes('lib/index.js') && files.includes('lib/index.d.ts') && files.includes('README.md'))
    assert.deepEqual(
      files.filter((f) => !/^lib\/[\w.-]+\.(js|d\.ts)$/.test(f) && f !== 'README.md' && f !== 'package.json'),
      []
    )
  })

  it("installs without the server's dependencies", async () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(CLIENT, 'package.json'), 'utf8'))
    assert.deepEqual(Object.keys(manifest.dependencies).sort(), [
      '@feathersjs/feathers',
      '@feathersjs/rest-client',
      '@feathersjs/socketio-client',
      'socket.io-client'
    ])
    const tree: NpmTree = JSON.parse((await run('npm', ['ls', '--all', '--json'], { cwd: project })).stdout)
    const installed = new Set(namesIn(tree))
    assert.ok(installed.has('@crewclock/client') && installed.has('socket.io-client'))
    assert.deepEqual(
      SERVER_ONLY.filter((name) => installed.has(name)),
      []
    )
  })

  it('loads with require() in the installing project', async () => {
    const probe = `const c = require('@crewclock/client'); console.log(JSON.stringify({
      functions: ['createClient', 'createSocketClient', 'createRestClient', 'uploadFile'].filter((f) => typeof c[f] === 'function'),
      paths: Object.keys(c.SERVICE_METHODS).length,
      from: require.resolve('@crewclock/client')
    }))`
    const out = JSON.parse((await run(process.execPath, ['-e', probe], { cwd: project })).stdout)
    assert.deepEqual(out.functions, ['createClient', 'createSocketClient', 'createRestClient', 'uploadFile'])
    assert.ok(out.paths >= 26)
    assert.equal(out.from, path.join(project, 'node_modules', '@crewclock', 'client', 'lib', 'index.js'))
  })

  // Node projects check every library (Feathers' own declarations need Node's `events` types);
  // browser projects without Node's types skip the libraries' checks, as the usual tsconfig does.
  const setups: [string, ts.CompilerOptions][] = [
    ['a Node project, every library checked', { ...STRICT, skipLibCheck: false, types: ['node'] }],
    ['a browser project without Node types', STRICT]
  ]
  for (const [setup, options] of setups) {
    it(`its declarations compile on their own in ${setup}, with the same types as the sources`, () => {
      const usage = path.join(project, 'usage.ts')
      const fixture = fs.readFileSync(path.join(ROOT, 'test', 'types', 'client-usage.ts'), 'utf8')
      assert.match(fixture, /from '\.\.\/\.\.\/client\/src'/)
      fs.writeFileSync(usage, fixture.replace("from '../../client/src'", "from '@crewclock/client'"))
      const errors = compile(usage, options)
      assert.deepEqual(
        errors.map((e) => `${path.relative(project, e.file)}:${e.line}: ${e.message}`),
        []
      )
    })
  }
})
