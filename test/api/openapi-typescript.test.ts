import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import ts from 'typescript'
import { forEachDatabase } from '../support/harness'

/**
 * Conformance with a standard client generator (issue #17): the served description, turned into
 * TypeScript by openapi-typescript, must type every list's `items` as the resource, so that a
 * client reading `page.items[0].id` compiles; and a `null` filter must be a value a client may send.
 * The generated types and a small client are written to .tmp/ and type-checked with the compiler.
 */

type Json = Record<string, any>

const DIR = path.resolve(__dirname, '..', '..', '.tmp', `openapi-typescript-${process.pid}`)

async function generate(doc: Json): Promise<string> {
  const { default: openapiTS, astToString } = await import('openapi-typescript')
  return astToString(await openapiTS(structuredClone(doc) as any))
}

/** Compiler diagnostics of `files` (name → text), strict mode, no emit. */
function typeErrors(files: Record<string, string>): string[] {
  fs.mkdirSync(DIR, { recursive: true })
  const names = Object.entries(files).map(([name, text]) => {
    const file = path.join(DIR, name)
    fs.writeFileSync(file, text)
    return file
  })
  const program = ts.createProgram(names, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    skipLibCheck: true,
    types: []
  })
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) => `${d.file ? path.basename(d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`
    )
}

/** The list operations of a document: path templates whose GET answers a page. */
const listPaths = (doc: Json) =>
  Object.entries<Json>(doc.paths)
    .filter(([, item]) => item.get?.responses?.['200']?.content?.['application/json']?.schema?.$ref?.endsWith('List'))
    .map(([template]) => template)

forEachDatabase('API description through openapi-typescript', (suite) => {
  let doc: Json
  let types: string

  before(async function () {
    doc = (await suite.server().http.get('/openapi.json')).body
    types = await generate(doc)
  })

  after(() => fs.rmSync(DIR, { recursive: true, force: true }))

  it('types no list item as unknown', () => {
    assert.ok(listPaths(doc).length >= 21, `lists: ${listPaths(doc).join(', ')}`)
    assert.doesNotMatch(types, /items\??: unknown/)
    assert.doesNotMatch(types, /unknown\[\]/)
  })

  it('compiles a client that reads page.items[0].id of every list and sends null filters', function () {
    const lists = listPaths(doc)
    const reads = lists.map((template, i) => {
      const page = `paths[${JSON.stringify(template)}]['get']['responses'][200]['content']['application/json']`
      return `declare const page${i}: ${page}\nexport const id${i}: number = page${i}.items[0].id\nexport const total${i}: number = page${i}.total`
    })
    // A query object typed by the description: `null` (the string) and an integer for an id filter.
    const query = "paths['/v1/assignments']['get']['parameters']['query']"
    const client = [
      "import type { paths } from './api'",
      ...reads,
      `export const withoutCustomer: ${query} = { customerId: 'null' }`,
      `export const ofCustomer: ${query} = { customerId: 7, 'id[$in]': [1, 2] }`,
      `// @ts-expect-error a string that is not the null marker is no id`,
      `export const wrong: ${query} = { customerId: 'seven' }`,
      ''
    ].join('\n')
    assert.deepEqual(typeErrors({ 'api.ts': types, 'client.ts': client }), [])
  })

  it('fails to compile a client that misuses an item (the check has teeth)', function () {
    const client = [
      "import type { paths } from './api'",
      "declare const page: paths['/v1/customers']['get']['responses'][200]['content']['application/json']",
      'export const id: string = page.items[0].id',
      ''
    ].join('\n')
    const errors = typeErrors({ 'api.ts': types, 'client.ts': client })
    assert.equal(errors.length, 1, errors.join('\n'))
    assert.match(errors[0], /Type 'number' is not assignable to type 'string'/)
  })
})
