import { isDeepStrictEqual } from 'node:util'
import type { TObject, TSchema } from '@feathersjs/typebox'
import type { Resource } from './define-resource'
import { INT32_MAX } from './types'
import { DEFAULT_PAGE_SIZE } from './query'
import { CONFLICT_REASONS } from '../errors'

/**
 * The API description (OpenAPI 3.1.0), generated from the declarations that validate requests:
 * every registered resource contributes its collection and item paths, its list parameters
 * (taken from the strict query schema), its create/PATCH bodies and its output schema. A resource
 * registered under a nested path (`v1/assignments/:assignmentId/uploads`) gets the placeholders
 * as path parameters and belongs to the collection of its first segment.
 *
 * Operations that are not plain declarations (multipart uploads, by-user look-ups, signed
 * downloads) are added with an `OpenApiContribution`, through
 * `registerResource(app, resource, { operations: (tools, registered) => ({...}) })`, which keeps it
 * in the app's registry (registry.ts) next to the declaration. `paths`
 * returns path items keyed by OpenAPI template (`/v1/time-sheet-days/by-user`); a contributed
 * operation replaces a generated one of the same path and method. `tools` (an `OpenApiTools`)
 * turns TypeBox schemas into JSON Schema with shared components and builds the common pieces:
 * `json()`, `list()`, `resourceRef()`, `errors(401, 400, 404)` (named error responses plus
 * `default`), `pathParameter()`, `queryParameters(querySchema)`, `tag(resource)`. A public operation
 * says `security: []`. Example:
 *
 *   registerResource(app, dayResource, { operations: (tools) => ({
 *     '/v1/time-sheet-days/by-user': { get: {
 *       tags: [tools.tag(dayResource)], summary: 'Get the day of a user', operationId: 'getTimeSheetDayByUser',
 *       parameters: tools.queryParameters(byUserQuerySchema),
 *       responses: { '200': tools.json(tools.resourceRef(dayResource)), ...tools.errors(401, 400, 404) } } }
 *   }) })
 *
 * The tests validate every /v1 response against this description, so every /v1 operation needs
 * one: generated or contributed. This module only builds documents; it does not touch the app.
 */

export const OPENAPI_VERSION = '3.1.0'
export const API_VERSION = '1.0.0'
export const API_TITLE = 'crewclock API'

/**
 * A node of the OpenAPI document: built and walked keyword by keyword (hoisting, nullability), as
 * TypeBox's own schemas are (its TSchema is open the same way).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- library seam: JSON Schema/OpenAPI trees of TypeBox schemas, walked by keyword
export type Json = Record<string, any>
/** Path items keyed by OpenAPI path template. */
export type PathItems = Record<string, Json>

/** A registered resource as the generator needs it (see register.ts). */
export interface DescribedResource {
  resource: Resource
  /** Feathers path, e.g. `v1/customers` or `v1/assignments/:assignmentId/uploads`. */
  path: string
  querySchema: TObject
}

export interface OpenApiContribution {
  /** The collection (first path segment under /v1) whose /spec document includes these paths. */
  collection: string
  paths: (tools: OpenApiTools) => PathItems
}

export interface DescriptionInput {
  resources: DescribedResource[]
  contributions?: OpenApiContribution[]
  /** Company country for the display names (DE, IT; anything else is English). */
  country?: string
  /** One collection's document; all collections when absent. */
  collection?: string
  /** Base URL of the API; relative (`/`) resolves against the document's own URL. */
  serverUrl?: string
}

const JSON_TYPE = 'application/json'

interface ErrorStatus {
  name: string
  description: string
}

/** The error statuses of CONTRACT §3.2 that operations declare by name. */
export const ERROR_STATUSES: Record<number, ErrorStatus> = {
  400: {
    name: 'BadRequest',
    description: 'Invalid body, query or path parameter; `data.validationErrors` names each field.'
  },
  401: { name: 'NotAuthenticated', description: 'API key missing, invalid or revoked.' },
  403: {
    name: 'Forbidden',
    description:
      'Not allowed: the API key lacks the scope the operation needs (`data.scope` names it, e.g. `time-entries:write`), or the change needs the settings page; for a download, the link expired or was tampered with.'
  },
  404: { name: 'NotFound', description: 'No such record in the company of the API key.' },
  405: { name: 'MethodNotAllowed', description: 'The method is not offered here; `Allow` lists the ones that are.' },
  409: {
    name: 'Conflict',
    description:
      'State conflict: duplicate, still referenced, locked or illegal workflow move, or a request with the same `Idempotency-Key` still running; `data.reason` says which, `data.ids` names the records where there are.'
  },
  410: {
    name: 'Gone',
    description:
      'The change feed cursor is older than the retained events (`events.retentionDays`): sync again from a full listing.'
  },
  413: { name: 'PayloadTooLarge', description: 'Request body too large.' },
  415: { name: 'UnsupportedMediaType', description: 'Body is not `application/json`.' },
  422: {
    name: 'UnprocessableEntity',
    description:
      'The `Idempotency-Key` was first used for another request (method, path with query string, or body); `data.validationErrors` names the header.'
  },
  429: {
    name: 'TooManyRequests',
    description:
      'Rate limit reached, or (a list filtered with `$like`) too many searches of the company at once; retry after `Retry-After` seconds.'
  },
  500: { name: 'GeneralError', description: 'Unexpected error (never with internals).' },
  503: {
    name: 'Unavailable',
    description:
      'The database is not reachable or too busy (no connection, or no turn for a search, within the acquire timeout); retry shortly.'
  }
}

/** The 409 reasons (src/errors.ts), as the Error schema lists them. */
const CONFLICT_REASON_LIST = Object.keys(CONFLICT_REASONS)
  .map((reason) => `\`${reason}\``)
  .join(', ')

const errorSchema: Json = {
  type: 'object',
  description: 'Every error response (CONTRACT §3.2).',
  required: ['name', 'message', 'code', 'className'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', description: 'Error name, e.g. `BadRequest`.' },
    message: { type: 'string' },
    code: { type: 'integer', minimum: 400, maximum: 599, description: 'The HTTP status code.' },
    className: { type: 'string', description: 'Kebab-case error name, e.g. `bad-request`.' },
    data: {
      type: 'object',
      properties: {
        validationErrors: {
          type: 'object',
          description: 'Field path (`address.zip`, `emails.0.emailAddress`, `page`) → message.',
          additionalProperties: { type: 'string' }
        },
        scope: {
          type: 'string',
          pattern: '^[a-z*][a-z0-9-]*:(read|write)$',
          description: 'With 403 for a scoped API key: the scope the operation needs, e.g. `time-entries:write`.'
        },
        retryAfter: { type: 'integer', minimum: 1, description: 'With 429: seconds to wait, as in `Retry-After`.' },
        reason: {
          type: 'string',
          description: `With 403 and 409: a stable word for why, e.g. \`admin-account\` (403). Every 409 has one: ${CONFLICT_REASON_LIST}.`
        },
        ids: {
          type: 'array',
          items: { type: 'integer', minimum: 1 },
          description:
            'With 403 and 409: the records the refusal names (the overlapping entry, the running entry, the deactivated user, …).'
        },
        days: {
          type: 'array',
          items: { type: 'string', format: 'date' },
          description:
            'With 409: the days that refuse the change (`future-days`, `day-approved`, `days-not-submitted`).'
        },
        months: {
          type: 'array',
          items: { type: 'string', format: 'date' },
          description:
            'With 409 `month-locked`: the first days of the locked months (a working-time change adds `userIds`, whose).'
        },
        references: {
          type: 'object',
          description:
            'With 409 `still-referenced`: the collections that still reference the record → how many of their records do.',
          additionalProperties: { type: 'integer', minimum: 1 }
        },
        method: { type: 'string', description: 'With 405: the HTTP method that is not offered.' },
        allow: {
          type: 'array',
          items: { type: 'string' },
          description: 'With 405: the methods offered, as in the `Allow` header.'
        }
      }
    }
  }
}

/**
 * One page of a list (CONTRACT §3.1), self-contained per resource rather than an `allOf` around
 * a shared envelope: generated clients (openapi-typescript and the like) then type `items` as an
 * array of the resource instead of `unknown[]`.
 */
const listSchema = (entity: string, item: Json): Json => ({
  type: 'object',
  description: `One page of ${entity} records (CONTRACT §3.1).`,
  required: ['page', 'pages', 'size', 'total', 'items'],
  additionalProperties: false,
  properties: {
    page: { type: 'integer', minimum: 0, format: 'int32' },
    pages: { type: 'integer', minimum: 0, format: 'int32', description: '`ceil(total / size)`' },
    size: { type: 'integer', minimum: 1, format: 'int32' },
    total: { type: 'integer', minimum: 0, format: 'int32' },
    items: { type: 'array', items: item, description: 'The records of this page, empty past the end.' }
  }
})

const OPERATOR_DESCRIPTIONS: Record<string, string> = {
  $eq: 'equals (`null` matches records without a value)',
  $ne: 'differs from (records without a value differ from every value; `null`: has a value)',
  $in: 'is one of (repeat the parameter)',
  $nin: 'is none of (repeat the parameter; records without a value match)',
  $lt: 'is less than',
  $lte: 'is less than or equal to',
  $gt: 'is greater than',
  $gte: 'is greater than or equal to',
  $like:
    'matches the pattern, case-insensitive (`%` any text, `_` one character; `\\%`, `\\_` and `\\\\` match those characters literally, any other backslash is a 400)'
}

const pascal = (text: string) =>
  text.replace(/(^|[-_/\s])(\w)/g, (_m, _s, c: string) => c.toUpperCase()).replace(/[^A-Za-z0-9]/g, '')
const componentName = (text: string) => text.replace(/[^A-Za-z0-9._-]/g, '')
const asArray = (type: unknown): string[] => (Array.isArray(type) ? type : type === undefined ? [] : [type as string])

/** Schema keywords whose values are schemas, lists of schemas or maps of schemas. */
const SUBSCHEMA = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems'
]
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems']
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas']

/**
 * A query string has no JSON null: a filter's `null` is sent as the text `null`. Described as
 * such (`anyOf` of the typed value and the `null` marker) rather than as `type: [T, 'null']`,
 * which mock servers reject and generated clients drop.
 */
function nullAsText(schema: Json): Json {
  const types = asArray(schema.type)
  if (!types.includes('null')) return schema
  const rest = types.filter((t) => t !== 'null')
  const { enum: values, ...value } = schema
  const typed = {
    ...value,
    type: rest.length === 1 ? rest[0] : rest,
    ...(values ? { enum: values.filter((v: unknown) => v !== null) } : {})
  }
  return { anyOf: [typed, { type: 'string', enum: ['null'], description: 'Records without a value.' }] }
}

/** Integers whose bounds fit 32 bits (ids, `order`, durations): `format: int32` for generated clients. */
const INT32_MIN = -INT32_MAX - 1
const isInt32 = (schema: Json) =>
  asArray(schema.type).includes('integer') &&
  schema.format === undefined &&
  typeof schema.minimum === 'number' &&
  typeof schema.maximum === 'number' &&
  schema.minimum >= INT32_MIN &&
  schema.maximum <= INT32_MAX

/** `/v1/assignments/{assignmentId}/uploads` from the Feathers path `v1/assignments/:assignmentId/uploads`. */
export const pathTemplate = (feathersPath: string) => `/${feathersPath.replace(/:(\w+)/g, '{$1}')}`

/** The collection of a Feathers path: its first segment under the API prefix. */
export const collectionOf = (feathersPath: string) => feathersPath.split('/')[1]

/**
 * Builds one document: collects components as schemas are referenced, so that a collection's
 * document holds only what it uses.
 */
export class OpenApiTools {
  readonly schemas: Json = {}
  readonly responses: Json = {}
  readonly parameters: Json = {}
  readonly tags = new Map<string, string>()

  constructor(readonly country?: string) {}

  /** A TypeBox schema as plain JSON Schema: no `$id`, titled objects moved to components. */
  schema(schema: TSchema | Json): Json {
    return this.hoist(JSON.parse(JSON.stringify(schema)))
  }

  /** Registers a named component (a suffix when the name is taken by a different schema). */
  component(name: string, schema: TSchema | Json): Json {
    return this.register(componentName(name), this.schema(schema))
  }

  /** The output schema of a resource as a component named after its entity. */
  resourceRef(resource: Resource): Json {
    return this.component(resource.entity, resource.schema)
  }

  /** The list envelope around a resource's items. */
  list(resource: Resource): Json {
    return this.register(
      `${componentName(resource.entity)}List`,
      listSchema(resource.displayName(), this.resourceRef(resource))
    )
  }

  /** A response with a JSON body. */
  json(schema: TSchema | Json, description = 'OK'): Json {
    return { description, content: { [JSON_TYPE]: { schema: this.schema(schema) } } }
  }

  /**
   * Responses for the given error statuses, plus `default` (405, 500, 503). An operation that
   * needs the key (401) also spends its budget, so it declares 429 (CONTRACT §10.2) as well.
   */
  errors(...statuses: number[]): Json {
    const responses: Json = {}
    const all = statuses.includes(401) ? [...statuses, 429] : statuses
    for (const status of [...new Set(all)].sort((a, b) => a - b)) {
      const known = ERROR_STATUSES[status]
      if (!known) throw new Error(`OpenAPI: no error response for status ${status}`)
      this.responses[known.name] ??= this.errorResponse(known.name, status, known.description)
      responses[String(status)] = { $ref: `#/components/responses/${known.name}` }
    }
    this.responses.Error ??= {
      description: 'Any other error: 405 MethodNotAllowed, 500 GeneralError, 503 Unavailable.',
      content: { [JSON_TYPE]: { schema: this.register('Error', errorSchema) } }
    }
    responses.default = { $ref: '#/components/responses/Error' }
    return responses
  }

  private errorResponse(name: string, status: number, description: string): Json {
    const body = {
      allOf: [this.register('Error', errorSchema), { properties: { name: { const: name }, code: { const: status } } }]
    }
    const headers =
      status === 401
        ? { 'WWW-Authenticate': { description: 'Always `Bearer`.', schema: { type: 'string', const: 'Bearer' } } }
        : undefined
    return { description, ...(headers ? { headers } : {}), content: { [JSON_TYPE]: { schema: body } } }
  }

  /** An integer id in the path (CONTRACT §3: int32, else 400). */
  pathParameter(name: string, description?: string): Json {
    return {
      name,
      in: 'path',
      required: true,
      ...(description ? { description } : {}),
      schema: { type: 'integer', format: 'int32', minimum: 1, maximum: INT32_MAX }
    }
  }

  /**
   * Query parameters as a client sends them, from a strict query schema: scalars by name, each
   * key of an object property as `name[key]` (`startsAt[$gt]`, `$sort[number]`), with `$eq` as
   * the plain name. Arrays repeat the parameter (`id[$in]=1&id[$in]=2`).
   */
  queryParameters(querySchema: TObject | Json): Json[] {
    const query = this.schema(querySchema)
    const required = new Set<string>(query.required ?? [])
    const result: Json[] = []
    // Sorting last: filters are what a reader looks for first.
    const entries = Object.entries<Json>(query.properties ?? {}).sort(
      ([a], [b]) => Number(a === '$sort') - Number(b === '$sort')
    )
    for (const [name, schema] of entries) {
      if (name === 'page' || name === 'size') {
        result.push(this.sharedParameter(name, schema))
      } else if (schema.properties) {
        for (const [key, sub] of Object.entries<Json>(schema.properties)) {
          result.push(this.queryParameter(key === '$eq' ? name : `${name}[${key}]`, sub, this.describeKey(name, key)))
        }
      } else {
        result.push(this.queryParameter(name, schema, undefined, required.has(name)))
      }
    }
    return result
  }

  private describeKey(name: string, key: string) {
    if (name === '$sort') return `Sort by ${key}: 1 ascending, -1 descending (ties by id).`
    return `Filter: ${name} ${OPERATOR_DESCRIPTIONS[key] ?? key}.`
  }

  private queryParameter(name: string, schema: Json, description?: string, required = false): Json {
    const array = asArray(schema.type).includes('array')
    return {
      name,
      in: 'query',
      ...(required ? { required } : {}),
      ...(description ? { description } : {}),
      ...(array ? { style: 'form', explode: true } : {}),
      schema: nullAsText(schema)
    }
  }

  private sharedParameter(name: 'page' | 'size', schema: Json): Json {
    const description = name === 'page' ? 'Page number, from 0.' : 'Items per page.'
    const parameter = this.queryParameter(
      name,
      { ...schema, default: name === 'page' ? 0 : DEFAULT_PAGE_SIZE },
      description
    )
    return this.registerIn(this.parameters, name, parameter, 'parameters')
  }

  /** The localized tag of a resource, declared once per document. */
  tag(resource: Resource, feathersPath = `v1/${resource.path}`): string {
    const name = resource.displayName(this.country)
    if (!this.tags.has(name)) this.tags.set(name, `\`${pathTemplate(feathersPath)}\``)
    return name
  }

  private register(name: string, schema: Json): Json {
    return this.registerIn(this.schemas, name, schema, 'schemas')
  }

  private registerIn(store: Json, base: string, value: Json, kind: string): Json {
    for (let i = 1; ; i++) {
      const name = i === 1 ? base : `${base}${i}`
      if (store[name] === undefined) store[name] = value
      if (isDeepStrictEqual(store[name], value)) return { $ref: `#/components/${kind}/${name}` }
    }
  }

  /** Drops `$id` (it would rebase the references inside) and moves titled objects to components. */
  private hoist(node: Json): Json {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return node
    const { $id: _id, ...schema } = node
    for (const key of SUBSCHEMA)
      if (schema[key] && typeof schema[key] === 'object') schema[key] = this.hoist(schema[key])
    for (const key of SUBSCHEMA_LISTS)
      if (Array.isArray(schema[key])) schema[key] = schema[key].map((s: Json) => this.hoist(s))
    for (const key of SUBSCHEMA_MAPS) {
      if (schema[key])
        schema[key] = Object.fromEntries(Object.entries<Json>(schema[key]).map(([k, s]) => [k, this.hoist(s)]))
    }
    if (isInt32(schema)) schema.format = 'int32'
    const types = asArray(schema.type)
    if (typeof schema.title !== 'string' || !types.includes('object')) return schema
    if (types.includes('null')) {
      const rest = types.filter((t) => t !== 'null')
      const ref = this.register(componentName(schema.title), { ...schema, type: rest.length === 1 ? rest[0] : rest })
      return { anyOf: [ref, { type: 'null' }] }
    }
    return this.register(componentName(schema.title), schema)
  }

  document(paths: PathItems, info: { title: string; description: string }, serverUrl: string): Json {
    const components: Json = {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            'The company API key: `Authorization: Bearer ck_...`. Missing, invalid or revoked → 401. A key has scopes: ' +
            'reads (list, get, by-user look-ups) need `<collection>:read`, writes `<collection>:write` (which implies read), ' +
            '`*` stands for every collection, uploads count as their parent collection; a missing scope → 403 naming it. ' +
            '`/v1/<collection>/spec` needs only a valid key.'
        }
      }
    }
    const idempotent = withIdempotencyKeys(paths, this)
    if (Object.keys(this.schemas).length) components.schemas = this.schemas
    withRateLimitHeaders(paths, this.responses)
    components.headers = idempotent ? { ...RATE_LIMIT_HEADERS, ...IDEMPOTENCY_HEADERS } : RATE_LIMIT_HEADERS
    if (Object.keys(this.responses).length) components.responses = this.responses
    if (Object.keys(this.parameters).length) components.parameters = this.parameters
    return {
      openapi: OPENAPI_VERSION,
      info: { title: info.title, version: API_VERSION, description: info.description },
      servers: [{ url: serverUrl }],
      security: [{ apiKey: [] }],
      tags: [...this.tags].map(([name, description]) => ({ name, description })),
      paths,
      components
    }
  }
}

/** CONTRACT §10.2: the per-key budget (IETF RateLimit header fields) on every authenticated /v1 response. */
const RATE_LIMIT_HEADERS: Json = {
  'RateLimit-Limit': {
    description: "Requests per window of this API key's budget.",
    schema: { type: 'integer', minimum: 0 }
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the current window.',
    schema: { type: 'integer', minimum: 0 }
  },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer', minimum: 0 } },
  'Retry-After': { description: 'Seconds to wait before retrying (with 429).', schema: { type: 'integer', minimum: 1 } }
}
const budgetHeaders = () =>
  Object.fromEntries(
    ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'].map((name) => [
      name,
      { $ref: `#/components/headers/${name}` }
    ])
  )

/**
 * Every response of an operation that spends the key's budget names the RateLimit headers (the
 * 401 does not: there is no key to describe); 429 also `Retry-After`.
 */
function withRateLimitHeaders(paths: PathItems, responses: Json) {
  const decorate = (response: Json, status: string) => {
    if (!response || response.$ref || status === '401') return
    response.headers = {
      ...response.headers,
      ...budgetHeaders(),
      ...(status === '429' ? { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } : {})
    }
  }
  for (const item of Object.values(paths)) {
    for (const operation of Object.values<Json>(item)) {
      // Key-less operations (signed downloads) spend no budget.
      if (Array.isArray(operation?.security) && operation.security.length === 0) continue
      for (const [status, response] of Object.entries<Json>(operation?.responses ?? {})) decorate(response, status)
    }
  }
  for (const [name, response] of Object.entries<Json>(responses)) {
    const status = Object.entries(ERROR_STATUSES).find(([, known]) => known.name === name)?.[0] ?? 'default'
    decorate(response, status)
  }
}

/** CONTRACT §13.4, §13.6: retries of writes (docs/integrations.md, "Idempotent retries"). */
const IDEMPOTENCY_KEY: Json = {
  name: 'Idempotency-Key',
  in: 'header',
  description:
    'Makes a retry safe: the first completed response (2xx or 4xx) is stored for 24 hours per API key, and a repeat with the ' +
    'same key, method, path (with query string) and body (compared as JSON) gets it again with `Idempotent-Replayed: true`, ' +
    'nothing written again. The same key with another request → 422; while the first still runs → 409 ' +
    '(`idempotency-in-flight`); a 5xx is not stored (a retry runs again). 1 to 255 printable ASCII characters, else 400.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' }
}
const IDEMPOTENCY_HEADERS: Json = {
  'Idempotent-Replayed': {
    description: 'Present (`true`) on a response replayed for a repeated `Idempotency-Key`.',
    schema: { type: 'string', const: 'true' }
  }
}

/**
 * Every write under /v1 that needs the key takes `Idempotency-Key`: the parameter, the 409 and 422
 * it can cause, and the replay header on its successes (a replayed refusal carries it too). Whether
 * any operation took it.
 */
function withIdempotencyKeys(paths: PathItems, tools: OpenApiTools): boolean {
  let found = false
  for (const [template, item] of Object.entries(paths)) {
    if (!template.startsWith('/v1/')) continue
    for (const method of ['post', 'patch', 'delete']) {
      const operation = item[method]
      if (!operation || (Array.isArray(operation.security) && operation.security.length === 0)) continue
      found = true
      tools.parameters.IdempotencyKey ??= IDEMPOTENCY_KEY
      operation.parameters = [...(operation.parameters ?? []), { $ref: '#/components/parameters/IdempotencyKey' }]
      const refusals = tools.errors(409, 422)
      operation.responses['409'] ??= refusals['409']
      operation.responses['422'] ??= refusals['422']
      for (const [status, response] of Object.entries<Json>(operation.responses))
        if (status.startsWith('2') && !response.$ref)
          response.headers = {
            ...response.headers,
            'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' }
          }
    }
  }
  return found
}

/** The standard operations of a declared resource: collection and item paths for its methods. */
export function resourcePaths(tools: OpenApiTools, { resource, path, querySchema }: DescribedResource): PathItems {
  const base = pathTemplate(path)
  const routeParameters = [...path.matchAll(/:(\w+)/g)].map((m) => tools.pathParameter(m[1]))
  const nested = routeParameters.length > 0
  const scope = pascal(
    path
      .split('/')
      .slice(1, -1)
      .filter((s) => !s.startsWith(':'))
      .join('-')
  )
  const tags = [tools.tag(resource, path)]
  const entity = resource.entity
  const name = resource.displayName()
  const parentErrors = nested ? [404] : []
  const op = (verb: string, summary: string, rest: Json) => ({
    tags,
    summary,
    operationId: `${verb}${scope}${pascal(entity)}`,
    ...rest
  })
  const body = (schema: TObject | Json) => ({
    required: true,
    content: { [JSON_TYPE]: { schema: tools.component(schema.$id ?? entity, schema) } }
  })
  const itemParameters = [...routeParameters, tools.pathParameter(resource.idParam)]

  const collection: Json = {}
  const item: Json = {}
  if (resource.methods.includes('find')) {
    collection.get = {
      ...op('list', `List ${name} records`, {}),
      operationId: `list${scope}${pascal(path.split('/').pop() as string)}`,
      description: `Filters: ${resource.filters.join(', ')}. Sortable by the same fields.`,
      parameters: [...routeParameters, ...tools.queryParameters(querySchema)],
      responses: {
        '200': tools.json(tools.list(resource), 'One page of records.'),
        ...tools.errors(401, 403, 400, ...parentErrors)
      }
    }
  }
  if (resource.methods.includes('create')) {
    collection.post = op('create', `Create ${name}`, {
      ...(nested ? { parameters: routeParameters } : {}),
      requestBody: body(
        resource.createRule ? { ...resource.createSchema, ...resource.createRule } : resource.createSchema
      ),
      responses: {
        '201': tools.json(tools.resourceRef(resource), 'Created.'),
        ...tools.errors(401, 403, 400, 409, 413, 415, ...parentErrors)
      }
    })
  }
  if (resource.methods.includes('get')) {
    item.get = op('get', `Get ${name}`, {
      parameters: itemParameters,
      responses: { '200': tools.json(tools.resourceRef(resource)), ...tools.errors(401, 403, 400, 404) }
    })
  }
  if (resource.methods.includes('patch')) {
    item.patch = op('update', `Change ${name}`, {
      description: 'Only the fields sent are changed; `null` clears an optional field.',
      parameters: itemParameters,
      requestBody: body(resource.patchSchema),
      responses: { '200': tools.json(tools.resourceRef(resource)), ...tools.errors(401, 403, 400, 404, 409, 413, 415) }
    })
  }
  if (resource.methods.includes('remove')) {
    item.delete = op('delete', `Delete ${name}`, {
      parameters: itemParameters,
      responses: { '204': { description: 'Deleted; no body.' }, ...tools.errors(401, 403, 400, 404, 409) }
    })
  }
  const paths: PathItems = {}
  if (Object.keys(collection).length) paths[base] = collection
  if (Object.keys(item).length) paths[`${base}/{${resource.idParam}}`] = item
  return paths
}

/** `GET /v1/<collection>/spec`, described in the document it returns. */
export function specPath(tools: OpenApiTools, collection: string, tag?: string): PathItems {
  return {
    [`/v1/${collection}/spec`]: {
      get: {
        ...(tag ? { tags: [tag] } : {}),
        summary: `OpenAPI description of /v1/${collection}`,
        description: 'This document, with the display names of the company of the API key.',
        operationId: `get${pascal(collection)}Spec`,
        responses: {
          '200': tools.json(
            {
              type: 'object',
              required: ['openapi', 'info', 'paths'],
              properties: { openapi: { const: OPENAPI_VERSION }, info: { type: 'object' }, paths: { type: 'object' } }
            },
            'An OpenAPI 3.1.0 document.'
          ),
          ...tools.errors(401, 400)
        }
      }
    }
  }
}

const mergePaths = (target: PathItems, source: PathItems) => {
  for (const [path, item] of Object.entries(source)) target[path] = { ...target[path], ...item }
}

/** The collections (first path segments under /v1) that have a document. */
export function collectionsOf(resources: DescribedResource[], contributions: OpenApiContribution[] = []): string[] {
  return [...new Set([...resources.map((r) => collectionOf(r.path)), ...contributions.map((c) => c.collection)])]
}

/** The OpenAPI document of one collection, or of the whole API. */
export function buildDescription(input: DescriptionInput): Json {
  const { collection, country, serverUrl = '/' } = input
  const contributions = input.contributions ?? []
  const tools = new OpenApiTools(country)
  const collections = collectionsOf(input.resources, contributions).filter(
    (c) => collection === undefined || c === collection
  )
  if (collection !== undefined && collections.length === 0) throw new Error(`OpenAPI: no collection ${collection}`)
  const paths: PathItems = {}
  for (const name of collections) {
    const owned = input.resources.filter((r) => collectionOf(r.path) === name)
    const main = owned.find((r) => r.path.split('/').length === 2) ?? owned[0]
    for (const registered of owned) mergePaths(paths, resourcePaths(tools, registered))
    for (const contribution of contributions.filter((c) => c.collection === name))
      mergePaths(paths, contribution.paths(tools))
    mergePaths(paths, specPath(tools, name, main ? tools.tag(main.resource, main.path) : undefined))
  }
  const main = collection === undefined ? undefined : input.resources.find((r) => r.path === `v1/${collection}`)
  const title =
    collection === undefined ? API_TITLE : `${API_TITLE}: ${main ? main.resource.displayName(country) : collection}`
  const description =
    collection === undefined
      ? 'Work orders and time tracking. Every operation is scoped to the company of the API key.'
      : `The operations of \`/v1/${collection}\`. Every operation is scoped to the company of the API key.`
  return tools.document(paths, { title, description }, serverUrl)
}
