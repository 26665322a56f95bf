import fs from 'node:fs'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import type { Knex } from 'knex'
import { getServiceOptions } from '@feathersjs/feathers'
import { registryOf, RegisteredResource } from '../../src/resources/registry'
import type { ReferenceSpec, Resource } from '../../src/resources/define-resource'
import type { TestCompany, TestServer } from './harness'
import type { HttpResponse } from './http'

/**
 * What the reliability sweeps (fuzzing, isolation, faults) know about the API, all taken from
 * the running app: the operations of its own description (/openapi.json, generated from the
 * registered services), the declarations behind them (`registryOf(app).resources`), and the tables
 * that carry a company. A service added later is swept without touching these files.
 */

export type Json = Record<string, any>
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE'
export type OperationKind = 'list' | 'create' | 'get' | 'patch' | 'remove' | 'other'

export interface Operation {
  method: HttpMethod
  /** `/v1/assignments/{assignmentId}/uploads/{uploadId}` */
  template: string
  pathParams: string[]
  /** Query parameter objects, `$ref`s resolved. */
  query: Json[]
  bodyType?: 'json' | 'multipart'
  /** The multipart form's schema (JSON bodies are validated against the declaration). */
  formSchema?: Json
  registered?: RegisteredResource
  kind: OperationKind
}

export const label = (op: Operation) => `${op.method} ${op.template}`

export const resourcesOf = (server: TestServer) => registryOf(server.app).resources

const collectionTemplate = (registered: RegisteredResource) => `/${registered.path.replace(/:(\w+)/g, '{$1}')}`
const itemTemplate = (registered: RegisteredResource) =>
  `${collectionTemplate(registered)}/{${registered.resource.idParam}}`

function kindOf(
  method: HttpMethod,
  template: string,
  registered: RegisteredResource[]
): [OperationKind, RegisteredResource?] {
  for (const r of registered) {
    if (template === collectionTemplate(r) && method === 'GET') return ['list', r]
    if (template === collectionTemplate(r) && method === 'POST') return ['create', r]
    if (template === itemTemplate(r))
      return [({ GET: 'get', PATCH: 'patch', DELETE: 'remove' } as const)[method as 'GET'] ?? 'other', r]
  }
  return ['other']
}

const resolveRef = (doc: Json, value: Json): Json =>
  value?.$ref
    ? (value.$ref as string)
        .split('/')
        .slice(1)
        .reduce((node: Json, key: string) => node[key], doc)
    : value

/** Every /v1 operation of the served description, matched to the declaration behind it. */
export async function loadOperations(server: TestServer): Promise<Operation[]> {
  const res = await server.http.get('/openapi.json')
  if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`)
  const doc = res.body as Json
  const registered = resourcesOf(server)
  const operations: Operation[] = []
  for (const [template, item] of Object.entries<Json>(doc.paths)) {
    if (!template.startsWith('/v1/')) continue
    for (const method of ['get', 'post', 'patch', 'delete'] as const) {
      const op = item[method]
      if (!op) continue
      const parameters: Json[] = (op.parameters ?? []).map((p: Json) => resolveRef(doc, p))
      const content = op.requestBody?.content ?? {}
      const upper = method.toUpperCase() as HttpMethod
      const [kind, resource] = kindOf(upper, template, registered)
      operations.push({
        method: upper,
        template,
        pathParams: [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]),
        query: parameters.filter((p) => p.in === 'query'),
        bodyType: content['multipart/form-data'] ? 'multipart' : content['application/json'] ? 'json' : undefined,
        formSchema: content['multipart/form-data'] ? resolveRef(doc, content['multipart/form-data'].schema) : undefined,
        registered: resource,
        kind
      })
    }
  }
  return operations
}

const HTTP_OF: Record<string, [HttpMethod, boolean]> = {
  find: ['GET', false],
  get: ['GET', true],
  create: ['POST', false],
  patch: ['PATCH', true],
  update: ['PUT' as HttpMethod, true],
  remove: ['DELETE', true]
}

/**
 * `path method` of every registered Feathers service method that no described operation
 * reaches: the sweeps only see described operations, so this must stay empty.
 */
export function uncoveredServiceMethods(server: TestServer, operations: Operation[]): string[] {
  const shape = (template: string) => template.replace(/\{\w+\}|:\w+/g, '*')
  const described = new Set(operations.map((op) => `${op.method} ${shape(op.template)}`))
  const missing: string[] = []
  for (const [servicePath, service] of Object.entries(server.app.services)) {
    if (!servicePath.startsWith('v1/')) continue
    for (const method of getServiceOptions(service)?.methods ?? []) {
      const [http, item] = HTTP_OF[method] ?? ['GET', false]
      const template = shape(`/${servicePath}${item ? '/*' : ''}`)
      if (!described.has(`${http} ${template}`)) missing.push(`${servicePath} ${method}`)
    }
  }
  return missing
}

// ---------------------------------------------------------------------------------------------
// Valid values from schemas

/** The schema without its `null` alternative. */
export function nonNull(schema: Json): Json {
  if (Array.isArray(schema.anyOf)) return nonNull(schema.anyOf.find((s: Json) => s.type !== 'null') ?? schema.anyOf[0])
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t: string) => t !== 'null')
    return { ...schema, type: types.length === 1 ? types[0] : types }
  }
  return schema
}

/** A string field without format, pattern or enum: any text within its length fits. */
export const isPlainString = (schema: Json) => {
  const s = nonNull(schema)
  return s.type === 'string' && !s.format && !s.pattern && !s.enum
}

const COLOR_PATTERN = '^#[0-9A-Fa-f]{6}$'
const HOUR = 3600 * 1000

export interface ValueContext {
  /** A short random token put into every text a seed writes, so a leak of it can be found in any response. */
  marker: string
  /** An active id of a company table for a reference. */
  idOf: (table: string) => number
  /** The instant every generated timestamp uses (fixtures add to it). */
  time: number
}

let counter = 0
const text = (ctx: ValueContext, schema: Json) => {
  const s = nonNull(schema)
  const value = `${ctx.marker}-${++counter}-text`.slice(0, s.maxLength ?? 255)
  return value.padEnd(s.minLength ?? 0, 'x')
}

/** A value that the schema (one field) accepts; references get an id of the company. */
export function validValue(schema: Json, ctx: ValueContext, ref?: ReferenceSpec): unknown {
  const s = nonNull(schema)
  if (ref) return ref.many ? [ctx.idOf(ref.table)] : ctx.idOf(ref.table)
  const type = Array.isArray(s.type) ? s.type[0] : s.type
  if (s.enum) return s.enum[0]
  switch (type) {
    case 'integer':
    case 'number':
      return Math.min(Math.max(1, s.minimum ?? 1), s.maximum ?? 1)
    case 'boolean':
      return false
    case 'array':
      return []
    case 'object':
      return Object.fromEntries((s.required ?? []).map((name: string) => [name, validValue(s.properties[name], ctx)]))
  }
  if (s.format === 'date-time') return new Date(ctx.time).toISOString()
  if (s.format === 'date') return new Date(ctx.time).toISOString().slice(0, 10)
  if (s.format === 'email') return `${ctx.marker}-${++counter}-${randomBytes(4).toString('hex')}@example.test`
  if (s.format === 'uri') return `https://example.test/${ctx.marker}`
  if (s.pattern === COLOR_PATTERN) return '#336699'
  return text(ctx, s)
}

let versionDays = 0

/**
 * What a schema cannot tell about a valid record, per collection: spans that must have a
 * length, days that must be unique. Everything else of a seed comes from the declarations.
 */
const FIXTURES: Record<string, (ctx: ValueContext) => Json> = {
  'user-absences': (ctx) => ({ endsAt: new Date(ctx.time + 2 * HOUR).toISOString() }),
  // Finished, so that several entries of one user can exist.
  'time-entries': (ctx) => ({ endsAt: new Date(ctx.time + HOUR).toISOString() }),
  // One version per user and day: each body takes a day of its own, earlier than the last.
  'user-working-times': (ctx) => ({
    validFrom: new Date(ctx.time - ++versionDays * 24 * HOUR).toISOString().slice(0, 10)
  })
}

/**
 * A valid create body: the required fields (references to records of the company), every
 * optional plain text field with the marker, and the collection's fixture.
 */
export function validCreateBody(resource: Resource, ctx: ValueContext): Json {
  const schema = resource.createSchema as Json
  const required = new Set<string>(schema.required ?? [])
  const body: Json = {}
  for (const [name, prop] of Object.entries<Json>(schema.properties)) {
    if (required.has(name)) body[name] = validValue(prop, ctx, resource.references?.[name])
    else if (isPlainString(prop) && !resource.references?.[name]) body[name] = text(ctx, prop)
  }
  return { ...body, ...FIXTURES[resource.path]?.(ctx) }
}

/**
 * A valid write body that touches several rows: every list of references (join tables) gets an
 * id, and a PATCH also rewrites every plain text field.
 */
export function multiRowBody(resource: Resource, method: 'create' | 'patch', ctx: ValueContext): Json {
  const schema = (method === 'create' ? resource.createSchema : resource.patchSchema) as Json
  const body: Json = method === 'create' ? validCreateBody(resource, ctx) : {}
  for (const [name, prop] of Object.entries<Json>(schema.properties)) {
    const ref = resource.references?.[name]
    if (ref?.many) body[name] = [ctx.idOf(ref.table)]
    else if (method === 'patch' && !ref && isPlainString(prop)) body[name] = text(ctx, prop)
  }
  return body
}

// ---------------------------------------------------------------------------------------------
// Seeding a company through the API

export interface SeededRecord {
  registered: RegisteredResource
  id: number
  /** The ids of the path (parents and own), by parameter name. */
  params: Record<string, number>
  /** Created by the seed (false: a catalogue record the company was created with). */
  created: boolean
}

export interface Seed {
  company: TestCompany
  marker: string
  ctx: ValueContext
  records: SeededRecord[]
  /** Active ids of every declared table of the company, ascending. */
  idsByTable: Map<string, number[]>
}

export const newMarker = () => `mk${randomBytes(5).toString('hex')}`

const columns = new WeakMap<Knex, Map<string, Promise<Json>>>()
async function hasColumn(knex: Knex, table: string, column: string) {
  const cache = columns.get(knex) ?? new Map<string, Promise<Json>>()
  columns.set(knex, cache)
  if (!cache.has(table)) cache.set(table, knex(table).columnInfo())
  const info = await cache.get(table)!
  // Whether knex's key mapping reached columnInfo or not.
  return (
    Object.hasOwn(info, column) ||
    Object.hasOwn(
      info,
      column.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase())
    )
  )
}

async function activeIds(knex: Knex, table: string, companyId: number): Promise<number[]> {
  const query = knex(table).where({ companyId }).orderBy('id').select('id')
  if (await hasColumn(knex, table, 'deactivated_at')) query.whereNull('deactivatedAt')
  return (await query).map((row: Json) => Number(row.id))
}

/**
 * The ids a path's placeholders take for a seed: those of the record of the deepest declared
 * collection in the path (with its parents), else the first record whose id parameter has the name.
 */
export function paramsFor(template: string, seed: Seed): Record<string, number> {
  const record = seed.records
    .filter((r) => template.startsWith(itemTemplate(r.registered)) || template === collectionTemplate(r.registered))
    .sort((a, b) => collectionTemplate(b.registered).length - collectionTemplate(a.registered).length)[0]
  const params: Record<string, number> = {}
  for (const [, param] of template.matchAll(/\{(\w+)\}/g)) {
    const value =
      record?.params[param] ??
      seed.records.find((r) => !r.registered.path.includes(':') && r.registered.resource.idParam === param)?.id
    if (value === undefined) throw new Error(`${template}: no seeded record for {${param}}`)
    params[param] = value
  }
  return params
}

export const fillTemplate = (template: string, params: Record<string, number | string>) =>
  template.replace(/\{(\w+)\}/g, (_m, param: string) => encodeURIComponent(String(params[param])))

/** The path of `template` for a seed, some placeholders replaced by `override`. */
export const urlOf = (template: string, seed: Seed, override: Record<string, number | string> = {}) =>
  fillTemplate(template, { ...paramsFor(template, seed), ...override })

/** Parent parameters of a declared path (`:assignmentId`) and the declared collection each names. */
const parentsOf = (registered: RegisteredResource, all: RegisteredResource[]) =>
  [...registered.path.matchAll(/:(\w+)/g)].map((m) =>
    all.find((r) => r.resource.idParam === m[1] && !r.path.includes(':'))!
  )

/** POSTs a valid new record of `op`'s collection (multipart: a small text file). */
export async function postRecord(seed: Seed, op: Operation, body?: Json): Promise<HttpResponse> {
  const url = urlOf(op.template, seed)
  if (op.bodyType === 'multipart') {
    const form = new FormData()
    form.append('file', new Blob([`content of ${seed.marker}\n`], { type: 'text/plain' }), `${seed.marker}.txt`)
    for (const [name, prop] of Object.entries<Json>(op.formSchema?.properties ?? {}))
      if (name !== 'file' && isPlainString(prop)) form.append(name, text(seed.ctx, prop))
    return seed.company.api.post(url, undefined, { raw: form })
  }
  return seed.company.api.post(url, body ?? validCreateBody(op.registered!.resource, seed.ctx))
}

/**
 * Gives a company one record of every collection that can be created, through the API, in the
 * order their references and parents require; collections that cannot be created (catalogues)
 * contribute their first seeded record. Fails naming the collection when a create is refused.
 */
export async function seedCompany(
  server: TestServer,
  company: TestCompany,
  operations: Operation[],
  marker = newMarker()
): Promise<Seed> {
  const all = resourcesOf(server)
  const idsByTable = new Map<string, number[]>()
  const refresh = async () => {
    for (const table of new Set(all.map((r) => r.resource.table)))
      idsByTable.set(table, await activeIds(server.knex, table, company.id))
  }
  await refresh()
  const ctx: ValueContext = {
    marker,
    time: Date.parse(new Date(Date.now() - 24 * HOUR).toISOString().slice(0, 10) + 'T08:00:00Z'),
    idOf: (table) => {
      const id = idsByTable.get(table)?.[0]
      if (id === undefined) throw new Error(`no active ${table} record to reference`)
      return id
    }
  }
  const seed: Seed = { company, marker, ctx, records: [], idsByTable }
  const creates = new Map(operations.filter((op) => op.kind === 'create').map((op) => [op.registered!, op]))
  let pending = all.filter((r) => creates.has(r))
  while (pending.length > 0) {
    const ready = pending.filter((r) => {
      const required = new Set<string>((r.resource.createSchema as Json).required ?? [])
      const tables = Object.entries(r.resource.references ?? {})
        .filter(([field]) => required.has(field))
        .map(([, ref]) => ref.table)
      const parents = parentsOf(r, all)
      return (
        tables.every((t) => (idsByTable.get(t)?.length ?? 0) > 0) &&
        parents.every((p) => seed.records.some((rec) => rec.registered === p))
      )
    })
    if (ready.length === 0)
      throw new Error(`cannot seed ${pending.map((r) => r.path).join(', ')}: their references have no records`)
    for (const registered of ready) {
      const res = await postRecord(seed, creates.get(registered)!)
      if (res.status !== 201)
        throw new Error(`seeding ${registered.path} answered ${res.status}: ${res.text.slice(0, 500)}`)
      const params = Object.fromEntries(
        parentsOf(registered, all).map((p) => [
          p.resource.idParam,
          seed.records.find((rec) => rec.registered === p)!.id
        ])
      )
      seed.records.push({
        registered,
        id: res.body.id,
        params: { ...params, [registered.resource.idParam]: res.body.id },
        created: true
      })
      await refresh()
    }
    pending = pending.filter((r) => !ready.includes(r))
  }
  for (const registered of all.filter((r) => !creates.has(r))) {
    const id = idsByTable.get(registered.resource.table)?.[0]
    if (id !== undefined)
      seed.records.push({ registered, id, params: { [registered.resource.idParam]: id }, created: false })
  }
  return seed
}

export const recordOf = (seed: Seed, registered: RegisteredResource) =>
  seed.records.find((r) => r.registered === registered)

// ---------------------------------------------------------------------------------------------
// Snapshots

/** Per-request counters that every authenticated request changes by design. */
const VOLATILE_TABLES = new Set(['api_usage'])

/** Every table with a company_id column. */
export async function tenantTables(knex: Knex): Promise<string[]> {
  if (knex.client.config.client === 'pg') {
    const rows = await knex.raw(
      `select table_name as name from information_schema.columns where column_name = 'company_id' and table_schema = current_schema() order by 1`
    )
    return rows.rows.map((r: Json) => r.name).filter((t: string) => !VOLATILE_TABLES.has(t))
  }
  const tables: Json[] = await knex.raw(
    `select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'knex_%' order by name`
  )
  const result: string[] = []
  for (const { name } of tables)
    if (!VOLATILE_TABLES.has(name) && (await hasColumn(knex, name, 'company_id'))) result.push(name)
  return result
}

const filesUnder = (dir: string): string[] =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .filter((f) => fs.statSync(path.join(dir, f)).isFile())
        .sort()
    : []

/** Everything a company owns: its row, its rows in every tenant table, its stored files. */
export async function snapshotCompany(server: TestServer, companyId: number): Promise<Json> {
  const { knex } = server
  const snapshot: Json = { companies: await knex('companies').where({ id: companyId }) }
  for (const table of await tenantTables(knex)) {
    const rows = await knex(table).where({ companyId })
    snapshot[table] = rows.map((row: Json) => JSON.stringify(row)).sort()
  }
  snapshot.files = filesUnder(path.resolve(server.app.get('uploads').dir, String(companyId)))
  return JSON.parse(JSON.stringify(snapshot))
}

/** The tables whose rows differ between two snapshots (empty when nothing changed). */
export function changedTables(before: Json, after: Json): string[] {
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
    (k) => JSON.stringify(before[k]) !== JSON.stringify(after[k])
  )
}
