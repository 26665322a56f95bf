import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { ROOT } from '../support/cli'
import ts from 'typescript'
import { compile, STRICT } from '../support/compile'

/**
 * The client's types hold: test/types/client-usage.ts compiles under `--strict` with every wrong
 * usage marked `@ts-expect-error`, and without the markers each marked line, and no other, is
 * an error (so no marker is satisfied by accident, and none is stale).
 */

const FIXTURE = path.join(ROOT, 'test', 'types', 'client-usage.ts')
const MARKER = /^\s*\/\/ @ts-expect-error\b/

describe('typed client: types', function () {
  const source = fs.readFileSync(FIXTURE, 'utf8')
  const lines = source.split('\n')
  // The line after each marker (1-based).
  const marked = lines.flatMap((line, i) => (MARKER.test(line) ? [i + 2] : []))

  it('compiles the right usages, and the marked wrong ones, under --strict', () => {
    assert.ok(marked.length >= 15, `${marked.length} marked usages`)
    const errors = compile(FIXTURE, STRICT)
    assert.deepEqual(
      errors.map((e) => `${path.relative(ROOT, e.file)}:${e.line}: ${e.message}`),
      []
    )
  })

  it('fails on each marked line, and on no other, once the markers are gone', () => {
    const unmarked = lines.map((line) => (MARKER.test(line) ? '' : line)).join('\n')
    const errors = compile(FIXTURE, STRICT, unmarked)
    assert.deepEqual(
      errors.filter((e) => e.file !== FIXTURE),
      [],
      'errors outside the fixture'
    )
    const failing = [...new Set(errors.map((e) => e.line))].sort((x, y) => x - y)
    assert.deepEqual(
      failing.map((line) => `${line}: ${lines[line - 1].trim()}`),
      marked.map((line) => `${line}: ${lines[line - 1].trim()}`)
    )
  })

  it("the examples of the client's README compile against it", () => {
    const readme = fs.readFileSync(path.join(ROOT, 'client', 'README.md'), 'utf8')
    const blocks = [...readme.matchAll(/```ts\n([^]*?)```/g)].map((m) =>
      m[1].replaceAll("'@crewclock/client'", "'../../client/src'")
    )
    const dashboard = blocks.findIndex((block) => block.includes('async function resync'))
    assert.ok(blocks.length >= 4 && dashboard > 0)
    // A browser project with a bundler (top-level await); the first examples also read process.env.
    const options = { ...STRICT, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler }
    const examples = [
      {
        name: 'readme-usage.ts',
        text: `declare const bytes: ArrayBuffer\n${blocks.slice(0, dashboard).join('\n')}`,
        types: ['node']
      },
      { name: 'readme-dashboard.ts', text: blocks[dashboard], types: [] }
    ]
    for (const { name, text, types } of examples) {
      const file = path.join(ROOT, 'test', 'types', name)
      const errors = compile(file, { ...options, types }, `${text}\nexport {}\n`)
      assert.deepEqual(
        errors.map((e) => `${name}:${e.line}: ${e.message}`),
        []
      )
    }
  })
})
