import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { Type } from '@feathersjs/typebox'
import { getServiceOptions } from '@feathersjs/feathers'
import { forEachDatabase, TestCompany } from '../support/harness'
import { HttpClient } from '../support/http'
import { buildDescription, DescribedResource, Json, pathTemplate } from '../../src/resources/openapi'
import { defineResource, output, writable } from '../../src/resources/define-resource'
import type { Resource } from '../../src/resources/define-resource'
import { buildQuerySchema } from '../../src/resources/query'
import { registryOf } from '../../src/resources/registry'
import { Id, Str, Timestamp } from '../../src/resources/types'
import { customerResource } from '../../src/services/customers/customers.schema'

const REDOCLY = path.resolve(__dirname, '..', '..', 'node_modules', '@redocly', 'cli', 'bin', 'cli.js')

/** OpenAPI 3.1 schema validation (the official JSON Schema of the specification). */
let validator: Promise<{ validate: (doc: Json) => Promise<{ valid: boolean; errors?: unknown }> }> | undefined
async function assertValidOpenApi(doc: Json, label: string) {
  validator ??= import('@seriousme/openapi-schema-validator').then(({ Validator }) => new Validator())
  const result = await (await validator).validate(structuredClone(doc))
  assert.ok(result.valid, `${label}: ${JSON.stringify(result.errors, null, 1)?.slice(0, 2000)}`)
  assert.equal(doc.openapi, '3.1.0')
}

/** Redocly's recommended rules, run as its CLI on written files; errors fail, warnings are listed. */
async function lint(docs: Record<string, Json>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crewclock-openapi-'))
  try {
    const files = Object.entries(docs).map(([name, doc]) => {
      const file = path.join(dir, `${name}.json`)
      fs.writeFileSync(file, JSON.stringify(doc, null, 2))
      return file
    })
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' }
    const { stdout } = await promisify(execFile)(process.execPath, [REDOCLY, 'lint', ...files, '--format', 'json'], {
      env,
      maxBuffer: 64 * 1024 * 1024
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }))
    // One JSON report per file, written back to back on stdout (the CLI's notices go to stderr).
    const reports = JSON.parse(`[${stdout.replace(/\}\s*\{(?=\s*"totals")/g, '},{')}]`) as { problems: Json[] }[]
    assert.equal(reports.length, files.length)
    return reports.flatMap((report) => report.problems)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

forEachDatabase('API description', (suite) => {
  let de: TestCompany
  let it_: TestCompany
  let fr: TestCompany
  let combined: Json

  before(async () => {
    de = await suite.company({ country: 'DE' })
    it_ = await suite.company({ country: 'IT' })
    fr = await suite.company({ country: 'FR' })
    const res = await suite.server().http.get('/openapi.json')
    assert.equal(res.status, 200)
    combined = res.body
  })

  const collections = () => Object.keys(combined.paths).flatMap((p) => /^\/v1\/([^/]+)\/spec$/.exec(p)?.[1] ?? [])

  it('serves /openapi.json publicly: OpenAPI 3.1, English names, every registered collection', async () => {
    await assertValidOpenApi(combined, '/openapi.json')
    assert.equal(combined.info.title, 'crewclock API')
    // The collections of the declarations and those described by contributions only (the change feed).
    const registry = registryOf(suite.server().app)
    const registered = [
      ...registry.resources.map((r) => r.path.split('/')[1]),
      ...registry.contributions.map((c) => c.collection)
    ]
    assert.deepEqual(new Set(collections()), new Set(registered))
    assert.ok(combined.tags.some((t: Json) => t.name === 'Customer'))
    assert.deepEqual(combined.components.securitySchemes.apiKey, {
      type: 'http',
      scheme: 'bearer',
      description: combined.components.securitySchemes.apiKey.description
    })
    assert.deepEqual(combined.security, [{ apiKey: [] }])
  })

  it('describes every method of every /v1 service', () => {
    const app = suite.server().app as any
    const verbs: Record<string, [string, boolean]> = {
      find: ['get', false],
      create: ['post', false],
      get: ['get', true],
      patch: ['patch', true],
      update: ['put', true],
      remove: ['delete', true]
    }
    const missing: string[] = []
    for (const [path, service] of Object.entries<any>(app.services).filter(([p]) => p.startsWith('v1/'))) {
      const base = pathTemplate(path)
      const item = Object.keys(combined.paths).find(
        (p) => p.startsWith(`${base}/{`) && !p.slice(base.length + 1).includes('/')
      )
      for (const method of getServiceOptions(service).methods ?? []) {
        const [verb, onItem] = verbs[method] ?? []
        if (!verb) continue
        const template = onItem ? item : base
        if (!template || !combined.paths[template]?.[verb]) missing.push(`${method} ${path}`)
      }
    }
    assert.deepEqual(missing, [])
  })

  it('serves GET /v1/<collection>/spec for every collection, valid OpenAPI 3.1, only that collection', async () => {
    for (const collection of collections()) {
      const res = await fr.api.get(`/v1/${collection}/spec`)
      assert.equal(res.status, 200, collection)
      await assertValidOpenApi(res.body, collection)
      const foreign = Object.keys(res.body.paths).filter(
        (p) => !p.startsWith(`/v1/${collection}/`) && p !== `/v1/${collection}`
      )
      assert.deepEqual(foreign, [], collection)
      assert.ok(res.body.paths[`/v1/${collection}/spec`], collection)
    }
  })

  it('lints every document without errors (Redocly recommended rules)', async function () {
    const docs: Record<string, Json> = { combined }
    for (const collection of collections()) docs[collection] = (await de.api.get(`/v1/${collection}/spec`)).body
    const problems = await lint(docs)
    const errors = problems.filter((p) => p.severity === 'error')
    assert.deepEqual(errors, [])
    // The one accepted warning: the API is proprietary, there is no license to name.
    assert.deepEqual(
      [...new Set(problems.map((p) => p.ruleId))].filter((rule) => rule !== 'info-license'),
      []
    )
  })

  it('declares 401, 403 and 429 on every operation that needs the key (403 not on /spec: any valid key may read it)', () => {
    const missing: string[] = []
    for (const [template, item] of Object.entries<Json>(combined.paths)) {
      for (const [verb, operation] of Object.entries<Json>(item)) {
        const publicOperation = Array.isArray(operation.security) && operation.security.length === 0
        const expected = publicOperation ? [] : template.endsWith('/spec') ? ['401', '429'] : ['401', '403', '429']
        for (const status of expected)
          if (!operation.responses[status]) missing.push(`${verb.toUpperCase()} ${template} ${status}`)
        if (publicOperation && operation.responses['429'])
          missing.push(`${verb.toUpperCase()} ${template}: a key-less operation spends no budget`)
      }
    }
    assert.deepEqual(missing, [])
    assert.ok(
      combined.paths['/v1/assignments/{assignmentId}/uploads'].post.responses['401'],
      'the multipart upload too'
    )
    assert.deepEqual(
      combined.components.responses.TooManyRequests.content['application/json'].schema.allOf[1].properties.code,
      { const: 429 }
    )
  })

  it('declares null in a PATCH body only where a PATCH takes it: catalogue references and orders default on create, never clear', () => {
    const allowsNull = (schema: Json): boolean =>
      schema.type === 'null' ||
      (Array.isArray(schema.type) && schema.type.includes('null')) ||
      (Array.isArray(schema.anyOf) && schema.anyOf.some(allowsNull))
    const { schemas } = combined.components
    for (const [entity, fields] of [
      ['Assignment', ['typeId', 'statusId']],
      ['AssignmentEvent', ['name', 'order']],
      ['AssignmentEventGroup', ['typeId', 'order']]
    ] as const)
      for (const field of fields) {
        assert.equal(allowsNull(schemas[`${entity}Data`].properties[field]), true, `${entity}Data.${field}`)
        assert.equal(allowsNull(schemas[`${entity}Patch`].properties[field]), false, `${entity}Patch.${field}`)
      }
    // Fields a PATCH clears still say so.
    assert.equal(allowsNull(schemas.AssignmentPatch.properties.projectId), true)
  })

  it('gives every id int32 format: path parameters, fields and filters', () => {
    const untyped: string[] = []
    const visit = (node: unknown, where: string) => {
      if (!node || typeof node !== 'object') return
      const schema = node as Json
      if (
        schema.type === 'integer' &&
        schema.minimum === 1 &&
        schema.maximum === 2147483647 &&
        schema.format !== 'int32'
      )
        untyped.push(where)
      for (const [key, value] of Object.entries(schema)) visit(value, `${where}/${key}`)
    }
    visit(combined, '#')
    assert.deepEqual(untyped, [])
    assert.equal(combined.components.schemas.Customer.properties.id.format, 'int32')
    assert.equal(combined.components.schemas.Assignment.properties.customerId.format, 'int32')
  })

  it('uses the company display names in info.title and tags (DE, IT; English otherwise)', async () => {
    const names = { DE: 'Kunde', IT: 'Cliente', FR: 'Customer' }
    for (const [country, company] of [
      ['DE', de],
      ['IT', it_],
      ['FR', fr]
    ] as const) {
      const doc = (await company.api.get('/v1/customers/spec')).body
      assert.equal(doc.info.title, `crewclock API: ${names[country]}`)
      assert.deepEqual(
        doc.tags.map((t: Json) => t.name),
        [names[country]]
      )
      for (const item of Object.values<Json>(doc.paths)) {
        for (const operation of Object.values<Json>(item)) assert.deepEqual(operation.tags, [names[country]])
      }
    }
  })

  it('requires the API key for /spec (401 NotAuthenticated with WWW-Authenticate)', async () => {
    const res = await suite.server().http.get('/v1/customers/spec')
    assert.equal(res.status, 401)
    assert.equal(res.body.name, 'NotAuthenticated')
    assert.equal(res.headers.get('www-authenticate'), 'Bearer')
    assert.equal((await suite.server().http.withKey('ck_not-a-key').get('/v1/customers/spec')).status, 401)
  })

  it('routes /spec before the item id placeholder, offers GET only and takes no query', async () => {
    const res = await de.api.get('/v1/customers/spec')
    assert.equal(res.status, 200)
    assert.equal(res.body.openapi, '3.1.0')
    assert.equal((await de.api.patch('/v1/customers/spec', { companyName: 'x' })).status, 405)
    assert.equal((await de.api.delete('/v1/customers/spec')).status, 405)
    const query = await de.api.get('/v1/customers/spec', { page: 1 })
    assert.equal(query.status, 400)
    assert.ok(query.body.data.validationErrors.page)
  })

  it('describes the collection and item operations with their real status codes and bodies', async () => {
    const doc = (await fr.api.get('/v1/customers/spec')).body
    const list = doc.paths['/v1/customers'].get
    const create = doc.paths['/v1/customers'].post
    const item = doc.paths['/v1/customers/{customerId}']
    assert.deepEqual(Object.keys(doc.paths['/v1/customers']).sort(), ['get', 'post'])
    assert.deepEqual(Object.keys(item).sort(), ['delete', 'get', 'patch'])
    assert.deepEqual(create.requestBody.content['application/json'].schema, {
      $ref: '#/components/schemas/CustomerData'
    })
    assert.deepEqual(create.responses['201'].content['application/json'].schema, {
      $ref: '#/components/schemas/Customer'
    })
    assert.deepEqual(item.patch.requestBody.content['application/json'].schema, {
      $ref: '#/components/schemas/CustomerPatch'
    })
    // CONTRACT §6: companyName or surname, as anyOf of required sets beside the sentence.
    assert.deepEqual(doc.components.schemas.CustomerData.anyOf, [
      { required: ['companyName'], properties: { companyName: { type: 'string', minLength: 1 } } },
      { required: ['surname'], properties: { surname: { type: 'string', minLength: 1 } } }
    ])
    assert.match(doc.components.schemas.CustomerData.description, /`companyName` or `surname` is required/)
    assert.match(doc.components.schemas.Customer.properties.surname.description, /Required unless `companyName`/)
    assert.equal(item.delete.responses['204'].description, 'Deleted; no body.')
    assert.equal(item.delete.responses['204'].content, undefined)
    // CONTRACT §10.2: the key's budget on every response of an authenticated operation, not on the 401;
    // §13.4: a write's success may be a replay.
    for (const response of [item.delete.responses['204'], create.responses['201'], doc.components.responses.NotFound]) {
      assert.deepEqual(Object.keys(response.headers).sort(), [
        ...(response === doc.components.responses.NotFound ? [] : ['Idempotent-Replayed']),
        'RateLimit-Limit',
        'RateLimit-Remaining',
        'RateLimit-Reset'
      ])
    }
    assert.equal(doc.components.responses.NotAuthenticated.headers['RateLimit-Limit'], undefined)
    assert.ok(doc.components.responses.TooManyRequests.headers['Retry-After'])
    assert.equal(doc.components.responses.Error.headers['Retry-After'], undefined)
    assert.equal(item.get.parameters[0].name, 'customerId')
    assert.deepEqual(item.get.parameters[0].schema, {
      type: 'integer',
      format: 'int32',
      minimum: 1,
      maximum: 2147483647
    })
    for (const status of ['400', '401', '404']) assert.ok(item.get.responses[status], status)
    assert.equal(
      doc.components.responses.NotFound.content['application/json'].schema.allOf[0].$ref,
      '#/components/schemas/Error'
    )
    assert.deepEqual(doc.components.schemas.Error.required, ['name', 'message', 'code', 'className'])
    assert.deepEqual(doc.components.schemas.Error.properties.data.properties.validationErrors.additionalProperties, {
      type: 'string'
    })
    // Shared objects live in components; nullable ones are referenced with anyOf null.
    assert.deepEqual(doc.components.schemas.Customer.properties.billingAddress, {
      anyOf: [{ $ref: '#/components/schemas/Address' }, { type: 'null' }]
    })
    assert.equal(doc.components.schemas.Address.properties.latitude.maximum, 90)
    assert.equal(doc.components.schemas.AddressInput.properties.latitude, undefined)
    // A list is one object per resource (no allOf): generated clients type its items as the resource.
    assert.deepEqual(doc.components.schemas.CustomerList.required, ['page', 'pages', 'size', 'total', 'items'])
    assert.equal(doc.components.schemas.CustomerList.additionalProperties, false)
    assert.deepEqual(doc.components.schemas.CustomerList.properties.items.type, 'array')
    assert.deepEqual(doc.components.schemas.CustomerList.properties.items.items, {
      $ref: '#/components/schemas/Customer'
    })
    assert.equal(JSON.stringify(doc).includes('"$id"'), false)
    assert.equal(list.responses['200'].content['application/json'].schema.$ref, '#/components/schemas/CustomerList')
  })

  it('describes the list parameters as sent: filters with operators, $sort, page and size', async () => {
    const doc = (await fr.api.get('/v1/customers/spec')).body
    const parameters = new Map<string, Json>(
      doc.paths['/v1/customers'].get.parameters.map((p: Json) =>
        p.$ref ? [p.$ref.split('/').pop(), doc.components.parameters[p.$ref.split('/').pop()]] : [p.name, p]
      )
    )
    assert.deepEqual(parameters.get('size')!.schema, {
      type: 'integer',
      minimum: 1,
      maximum: 20,
      format: 'int32',
      default: 10
    })
    assert.deepEqual(parameters.get('page')!.schema, {
      type: 'integer',
      minimum: 0,
      maximum: 2147483647,
      format: 'int32',
      default: 0
    })
    assert.equal(parameters.get('createdAt[$gt]')!.schema.format, 'date-time')
    assert.equal(parameters.get('createdAt[$like]'), undefined)
    assert.deepEqual(parameters.get('id[$in]'), {
      name: 'id[$in]',
      in: 'query',
      description: parameters.get('id[$in]')!.description,
      style: 'form',
      explode: true,
      schema: {
        type: 'array',
        maxItems: 100,
        items: { type: 'integer', minimum: 1, maximum: 2147483647, format: 'int32' }
      }
    })
    assert.ok(parameters.get('companyName[$like]'))
    // `null` is sent as the text `null` (records without a value): the typed value or that marker.
    assert.deepEqual(parameters.get('companyName')!.schema, {
      anyOf: [
        { type: 'string', maxLength: 255 },
        { type: 'string', enum: ['null'], description: 'Records without a value.' }
      ]
    })
    assert.deepEqual(parameters.get('id')!.schema.anyOf, [
      { type: 'integer', minimum: 1, maximum: 2147483647, format: 'int32' },
      { type: 'string', enum: ['null'], description: 'Records without a value.' }
    ])
    assert.deepEqual(parameters.get('id[$ne]')!.schema, parameters.get('id')!.schema)
    assert.doesNotMatch(
      JSON.stringify(doc.paths['/v1/customers'].get.parameters),
      /,"null"\]/,
      'no type: [T, "null"] among the parameters'
    )
    assert.deepEqual(parameters.get('$sort[number]')!.schema.enum, [1, -1])
    for (const filter of customerResource.filters) assert.ok(parameters.get(filter), filter)
    assert.equal(parameters.get('title'), undefined)
  })

  it('serves /docs: an API reference page rendering /openapi.json from local assets', async () => {
    const page = await suite.server().http.get('/docs')
    assert.equal(page.status, 200)
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/)
    assert.doesNotMatch(page.text, /https?:\/\//, 'no CDN')
    const scripts = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])
    assert.ok(scripts.includes('/docs/swagger-ui-bundle.js'))
    for (const asset of scripts) {
      const res = await fetch(suite.server().url + asset)
      assert.equal(res.status, 200, asset)
      assert.ok((await res.arrayBuffer()).byteLength > 0, asset)
    }
    const init = await suite.server().http.get('/docs/init.js')
    assert.match(init.text, /url: '\/openapi\.json'/)
    assert.match(init.text, /validatorUrl: null/)
    assert.equal((await suite.server().http.get('/docs/package.json')).status, 404)
    assert.equal((await suite.server().http.get('/docs/constructor')).status, 404)
  })
})

describe('API description generator (pure)', () => {
  const uploadResource = defineResource({
    path: 'things/:thingId/parts',
    table: 'parts',
    entity: 'Part',
    idParam: 'partId',
    methods: ['find', 'get', 'create', 'remove'],
    fields: {
      id: output(Id()),
      label: writable(Str()),
      box: writable(Type.Object({ width: Type.Integer() }, { title: 'Box', additionalProperties: false })),
      createdAt: output(Timestamp()),
      updatedAt: output(Timestamp())
    },
    filters: ['id', 'createdAt']
  })
  const described = (resource: Resource): DescribedResource => ({
    resource,
    path: `v1/${resource.path}`,
    querySchema: buildQuerySchema(resource)
  })

  it('turns route placeholders into path parameters and groups nested paths under their collection', async () => {
    const doc = buildDescription({ resources: [described(uploadResource)], collection: 'things' })
    await assertValidOpenApi(doc, 'nested')
    const list = doc.paths['/v1/things/{thingId}/parts'].get
    assert.equal(list.parameters[0].name, 'thingId')
    assert.equal(list.parameters[0].in, 'path')
    assert.ok(list.responses['404'], 'a missing parent is 404')
    assert.deepEqual(
      doc.paths['/v1/things/{thingId}/parts/{partId}'].get.parameters.map((p: Json) => p.name),
      ['thingId', 'partId']
    )
    assert.equal(doc.paths['/v1/things/{thingId}/parts/{partId}'].patch, undefined)
    assert.ok(doc.paths['/v1/things/spec'])
    assert.deepEqual(doc.components.schemas.Part.properties.box, {
      anyOf: [{ $ref: '#/components/schemas/Box' }, { type: 'null' }]
    })
  })

  it('merges contributed operations (by-user look-ups, multipart uploads) into the collection', async () => {
    const doc = buildDescription({
      resources: [described(customerResource), described(uploadResource)],
      collection: 'customers',
      country: 'IT',
      contributions: [
        {
          collection: 'customers',
          paths: (tools) => ({
            '/v1/customers/by-number': {
              get: {
                tags: [tools.tag(customerResource)],
                summary: 'Find a Customer by number',
                operationId: 'getCustomerByNumber',
                parameters: tools.queryParameters(Type.Object({ number: Str() }, { required: ['number'] })),
                responses: { '200': tools.json(tools.resourceRef(customerResource)), ...tools.errors(400, 401, 404) }
              }
            },
            '/v1/customers': {
              post: {
                tags: [tools.tag(customerResource)],
                summary: 'Import a Customer from a vCard',
                operationId: 'importCustomer',
                requestBody: {
                  required: true,
                  content: {
                    'multipart/form-data': {
                      schema: tools.schema(Type.Object({ file: Type.String({ format: 'binary' }) }))
                    }
                  }
                },
                responses: {
                  '201': tools.json(tools.resourceRef(customerResource), 'Created.'),
                  ...tools.errors(400, 401, 413, 415)
                }
              }
            }
          })
        },
        { collection: 'things', paths: () => ({ '/v1/things/other': {} }) }
      ]
    })
    await assertValidOpenApi(doc, 'contributed')
    assert.equal(doc.info.title, 'crewclock API: Cliente')
    assert.deepEqual(doc.paths['/v1/customers/by-number'].get.parameters[0], {
      name: 'number',
      in: 'query',
      required: true,
      schema: { type: 'string', maxLength: 255 }
    })
    assert.equal(
      doc.paths['/v1/customers'].post.operationId,
      'importCustomer',
      'a contribution replaces the generated operation'
    )
    assert.equal(doc.paths['/v1/customers'].get.operationId, 'listCustomers', 'and keeps the others')
    assert.equal(doc.paths['/v1/things/other'], undefined, 'other collections stay out')
    assert.equal(doc.components.schemas.Part, undefined)
  })
})

describe('HTTP helper: responses are checked against the served description', () => {
  let server: http.Server
  let base: string
  const routes: Record<string, { status: number; body?: unknown; type?: string }> = {}
  const description = buildDescription({
    resources: [{ resource: customerResource, path: 'v1/customers', querySchema: buildQuerySchema(customerResource) }],
    contributions: [
      {
        collection: 'customers',
        paths: (tools) => ({
          '/v1/customers/touch': {
            post: { summary: 'Touch', responses: { '202': { description: 'Accepted, no body.' }, ...tools.errors() } }
          }
        })
      }
    ]
  })

  before(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/openapi.json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(description))
        return
      }
      const route = routes[`${req.method} ${req.url?.split('?')[0]}`] ?? {
        status: 404,
        body: { name: 'NotFound', message: 'no', code: 404, className: 'not-found' }
      }
      res.writeHead(route.status, route.body === undefined ? {} : { 'content-type': route.type ?? 'application/json' })
      res.end(
        route.body === undefined ? undefined : typeof route.body === 'string' ? route.body : JSON.stringify(route.body)
      )
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  })

  after(() => new Promise<void>((resolve) => server.close(() => resolve())))

  const customer = {
    id: 1,
    number: null,
    companyName: 'A',
    externalId: null,
    title: null,
    salutation: null,
    firstName: null,
    surname: null,
    telephones: [],
    emails: null,
    urls: null,
    billingAddress: null,
    createdAt: '2026-11-22T09:30:00.000Z',
    updatedAt: '2026-11-22T09:30:00.000Z'
  }
  const client = () => new HttpClient(base, 'ck_test')

  it('accepts responses that match, and 204 without a body', async () => {
    routes['GET /v1/customers/1'] = { status: 200, body: customer }
    routes['DELETE /v1/customers/1'] = { status: 204 }
    routes['GET /v1/customers'] = { status: 200, body: { page: 0, pages: 1, size: 10, total: 1, items: [customer] } }
    assert.equal((await client().get('/v1/customers/1')).status, 200)
    assert.equal((await client().delete('/v1/customers/1')).status, 204)
    assert.equal((await client().get('/v1/customers', { 'id[$in]': [1] })).status, 200)
  })

  it('rejects a body that differs from the declared schema, naming operation, status and field', async () => {
    routes['GET /v1/customers/2'] = { status: 200, body: { ...customer, companyId: 7 } }
    await assert.rejects(
      client().get('/v1/customers/2'),
      /GET \/v1\/customers\/\{customerId\} → 200: .*additional properties/
    )
    routes['GET /v1/customers'] = {
      status: 200,
      body: { page: 0, pages: 1, size: 10, total: 1, items: [{ ...customer, createdAt: 'yesterday' }] }
    }
    await assert.rejects(client().get('/v1/customers'), /body\/items\/0\/createdAt must match format "date-time"/)
  })

  it('rejects undeclared statuses, undescribed operations, a body where none is declared and malformed error bodies', async () => {
    routes['POST /v1/customers'] = { status: 200, body: customer }
    await assert.rejects(client().post('/v1/customers', {}), /POST \/v1\/customers → 200: status not declared/)
    routes['GET /v1/customers/1/notes'] = { status: 200, body: customer }
    await assert.rejects(
      client().get('/v1/customers/1/notes'),
      /GET \/v1\/customers\/1\/notes → 200: the operation is not in the API description/
    )
    routes['POST /v1/customers/touch'] = { status: 202, body: 'x', type: 'text/plain' }
    await assert.rejects(client().post('/v1/customers/touch'), /declares no body/)
    routes['GET /v1/customers/4'] = { status: 404, body: { error: 'not found' } }
    await assert.rejects(client().get('/v1/customers/4'), /→ 404 \(Error\): .*must have required property 'name'/)
    routes['GET /v1/customers/5'] = {
      status: 404,
      body: { name: 'BadRequest', message: 'x', code: 404, className: 'bad-request' }
    }
    await assert.rejects(client().get('/v1/customers/5'), /→ 404: .*must be equal to constant/)
  })

  it('checks error bodies of unknown routes too, and leaves paths outside /v1 alone', async () => {
    assert.equal((await client().get('/v1/nothing-here')).status, 404)
    routes['PUT /v1/customers/1'] = { status: 405, body: 'Method Not Allowed', type: 'text/plain' }
    await assert.rejects(client().put('/v1/customers/1', {}), /expected a JSON body/)
    routes['GET /health'] = { status: 200, body: { anything: true } }
    assert.equal((await client().get('/health')).status, 200)
  })
})
