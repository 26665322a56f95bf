import fs from 'node:fs'
import path from 'node:path'
import prettier from 'prettier'
import type { Resource } from '../src/resources/define-resource'
import { buildQuerySchema } from '../src/resources/query'
import { API_PREFIX } from '../src/resources/register'
import {
  CHANGES_PATH,
  declaredLookups,
  declaredMethods,
  declaredNested,
  declaredResources
} from '../src/services/declared'
import { byUserQuerySchema } from '../src/services/by-user'
import { uploadResource, UPLOAD_PARENTS } from '../src/services/uploads/uploads.schema'
import { changeEventSchema, changesQuerySchema } from '../src/services/changes/changes.openapi'
import { webhookSubscriptionCreatedSchema } from '../src/services/webhook-subscriptions/webhook-subscriptions.openapi'
import { webhookSubscriptionResource } from '../src/services/webhook-subscriptions/webhook-subscriptions.schema'
import { TypeWriter } from './client-types'
import { ROOT } from './import-graph'

/**
 * Writes client/src/api.generated.ts: the named types of @crewclock/client (`Assignment`,
 * `AssignmentData`, `AssignmentPatch`, `AssignmentQuery`, ...), the map of its services and their
 * method lists, from the same schemas that validate requests and answers on the server
 * (src/services/declared.ts, src/resources/query.ts). The package carries them as its own
 * source: it is installed without the server, whose declarations import the database layer.
 * `--check` (in npm run lint) fails when the file is not what the declarations say.
 */

type Schema = Record<string, any>

const FILE = path.join(ROOT, 'client', 'src', 'api.generated.ts')
const RELATIVE = path.relative(ROOT, FILE)

/** Resources whose create answers more than the record: the generated `<Entity>Created` type. */
const createdSchemas = new Map<Resource, Schema>([[webhookSubscriptionResource, webhookSubscriptionCreatedSchema]])

const writer = new TypeWriter(
  new Set([
    ...[...declaredResources, uploadResource].flatMap((r) => ['', 'Data', 'Patch', 'Query'].map((s) => r.entity + s)),
    ...[...createdSchemas.values(), changeEventSchema, changesQuerySchema].map((schema) => schema.$id)
  ])
)

/**
 * A filter's type: the value itself (plain equality, `null` where the API matches records without
 * a value), or one of the operator objects of client/src/definitions.ts, chosen by the operators
 * the query schema lists for it.
 */
function filterType(name: string, entity: string, schema: Schema): string {
  const at = `${entity}Query.${name}`
  const operators: Record<string, Schema> = schema.properties ?? {}
  const listed = Object.keys(operators).sort().join(' ')
  const value = writer.typeOf(operators.$in?.items ?? {}, `${at}.$in`)
  const type = (op: string) => (operators[op] ? writer.typeOf(operators[op], `${at}.${op}`) : undefined)
  const nullableEquality = type('$eq') === `${value} | null` && type('$ne') === `${value} | null`
  const comparisons = ['$lt', '$lte', '$gt', '$gte'].every((op) => type(op) === value)
  const shapes: Record<string, () => string | undefined> = {
    '$eq $in $ne $nin': () => (nullableEquality ? `${value} | null | EqualityFilter<${value}>` : undefined),
    '$eq $gt $gte $in $lt $lte $ne $nin': () =>
      nullableEquality && comparisons ? `${value} | null | RangeFilter<${value}>` : undefined,
    '$eq $gt $gte $in $like $lt $lte $ne $nin': () =>
      nullableEquality && comparisons && value === 'string' && type('$like') === 'string'
        ? 'string | null | TextFilter'
        : undefined,
    '$eq $in': () => (type('$eq') === value ? `${value} | OneOfFilter<${value}>` : undefined)
  }
  const shape = shapes[listed]?.()
  if (!shape)
    throw new Error(`${at}: no filter type in client/src/definitions.ts has the operators ${listed}; add one there`)
  return shape
}

/** `<Entity>Query`: page, size, the sortable fields and each filter with its operators. */
function queryInterface(resource: Resource): string {
  const schema: Schema = buildQuerySchema(resource)
  const { page, size, $sort, ...filters } = schema.properties as Record<string, Schema>
  const sortable = Object.keys($sort.properties).map((field) => `'${field}'`)
  const members = [
    `  /** The page, from 0 (default 0). */\n  page?: ${writer.typeOf(page, 'page')}\n`,
    `  /** Items a page, 1..20 (default 10). */\n  size?: ${writer.typeOf(size, 'size')}\n`,
    `  /** Sort by filterable fields, in the order given (ties broken by id). */\n  $sort?: SortOf<${sortable.join(' | ')}>\n`,
    ...Object.entries(filters).map(([name, filter]) => `  ${name}?: ${filterType(name, resource.entity, filter)}\n`)
  ]
  return (
    `/** The list query of \`GET ${urlOf(resource)}\`: exactly its filters, operators and sort keys. */\n` +
    `export interface ${resource.entity}Query {\n${members.join('')}}\n`
  )
}

/**
 * `<Entity>Data`: the create body. A rule over several fields (`companyName` or `surname`) is an
 * intersection with the union of its required sets.
 */
function dataType(resource: Resource): string {
  const name = `${resource.entity}Data`
  const doc =
    resource === uploadResource
      ? `/** The text fields of \`POST ${urlOf(resource)}\` (multipart), besides the file (UploadFile). */\n`
      : `/** The body of \`POST ${urlOf(resource)}\`. */\n`
  if (!resource.createRule) return writer.interfaceOf(name, resource.createSchema, doc)
  const fields = writer.membersOf(resource.createSchema, name, '  ') ?? ''
  const alternatives = resource.createRule.anyOf.map((rule, i) =>
    writer.typeOf({ type: 'object', additionalProperties: false, ...rule }, `${name}.anyOf.${i}`)
  )
  const ruleDoc = `/**\n * The body of \`POST ${urlOf(resource)}\`.\n * ${resource.createRule.description}\n */\n`
  return `${ruleDoc}export type ${name} = {\n${fields}} & (${alternatives.join(' | ')})\n`
}

function resourceTypes(resource: Resource): string {
  const { entity, methods } = resource
  return [
    `// ${entity}: ${urlOf(resource)}`,
    '',
    writer.interfaceOf(entity, resource.schema, `/** A ${resource.displayName()} as the API answers it. */\n`),
    methods.includes('create') ? dataType(resource) : '',
    createdSchemas.has(resource)
      ? writer.interfaceOf(
          `${entity}Created`,
          createdSchemas.get(resource)!,
          `/** The answer of \`POST ${urlOf(resource)}\`: the record and what only the create reveals. */\n`
        )
      : '',
    methods.includes('patch')
      ? writer.interfaceOf(
          `${entity}Patch`,
          resource.patchSchema,
          `/** The body of \`PATCH ${urlOf(resource)}/{id}\`: fields left out keep their value. */\n`
        )
      : '',
    methods.includes('find') ? queryInterface(resource) : ''
  ]
    .filter(Boolean)
    .join('\n')
}

/** Nested services with a declared resource (a subscription's deliveries), and the actions (its replay). */
const nestedResources = declaredNested.flatMap((nested) => ('resource' in nested ? [nested] : []))
const nestedActions = declaredNested.flatMap((nested) => ('action' in nested ? [nested] : []))
const template = (path: string) => `/${path.replace(/:(\w+)/g, '{$1}')}`

/** The collection's URL path in doc comments; uploads live under their parents, nested lists under their record. */
const urlOf = (resource: Resource) =>
  resource === uploadResource
    ? `/${API_PREFIX}/{assignments|assignment-events}/{parentId}/uploads`
    : template(nestedResources.find((nested) => nested.resource === resource)?.path ?? `${API_PREFIX}/${resource.path}`)

const methodUnion = (methods: readonly string[]) => methods.map((m) => `'${m}'`).join(' | ')

function definitions() {
  const entries: string[] = []
  for (const resource of declaredResources) {
    const { entity, methods } = resource
    const has = (m: string, type: string) => (methods.includes(m as never) ? type : 'never')
    const created = createdSchemas.has(resource) ? `, never, ${entity}Created` : ''
    entries.push(
      `  '${API_PREFIX}/${resource.path}': Collection<${entity}, ${has('create', `${entity}Data`)}, ${has('patch', `${entity}Patch`)}, ${has('find', `${entity}Query`)}, ${methodUnion(methods)}${created}>`
    )
  }
  entries.push(`  '${CHANGES_PATH}': Feed<${changeEventSchema.$id}, ${changesQuerySchema.$id}>`)
  for (const lookup of declaredLookups) {
    const entity = lookup.resource.entity
    entries.push(`  '${API_PREFIX}/${lookup.resource.path}/by-user': Lookup<${entity}, ${entity}ByUserQuery>`)
  }
  for (const parent of UPLOAD_PARENTS) {
    entries.push(
      `  '${uploadPath(parent.collection, parent.field)}': Collection<Upload, UploadData & UploadFile, UploadPatch, UploadQuery, ${methodUnion(uploadResource.methods)}, { ${parent.field}: number }>`
    )
  }
  for (const { path, route, resource } of nestedResources) {
    const { entity, methods } = resource
    entries.push(
      `  '${path}': Collection<${entity}, never, never, ${methods.includes('find') ? `${entity}Query` : 'never'}, ${methodUnion(methods)}, { ${route}: number }>`
    )
  }
  // An action is a create-only service: its body is the data, its answer the result.
  for (const { path, route, action } of nestedActions)
    entries.push(
      `  '${path}': Collection<${action.result.$id}, ${action.data.$id}, never, never, '${action.method}', { ${route}: number }>`
    )
  return entries
}

const uploadPath = (collection: string, field: string) => `${API_PREFIX}/${collection}/:${field}/uploads`

function actionTypes(): string[] {
  return nestedActions.flatMap(({ path, action }) => [
    writer.interfaceOf(action.data.$id!, action.data, `/** The body of \`POST ${template(path)}\`. */\n`),
    writer.interfaceOf(action.result.$id!, action.result, `/** The answer of \`POST ${template(path)}\`. */\n`)
  ])
}

/** The change feed's event and query (src/services/changes/changes.openapi.ts); a page is a `FeedPage` (services.ts). */
function feedTypes(): string[] {
  const doc = (what: string) => `/** ${what} of \`GET /${CHANGES_PATH}\` (the change feed). */\n`
  return [
    writer.interfaceOf(changeEventSchema.$id, changeEventSchema, doc('An event')),
    writer.interfaceOf(changesQuerySchema.$id, changesQuerySchema, doc('The query'))
  ]
}

function lookupQueries(): string[] {
  return declaredLookups.map((lookup) =>
    writer.interfaceOf(
      `${lookup.resource.entity}ByUserQuery`,
      byUserQuerySchema(lookup),
      `/** The query of \`GET /${API_PREFIX}/${lookup.resource.path}/by-user\`: the user's row of that period, created on demand. */\n`
    )
  )
}

async function main() {
  const resources = [...declaredResources, uploadResource, ...nestedResources.map((nested) => nested.resource)]
  const body = [...resources.map(resourceTypes), ...actionTypes(), '// The change feed', '', ...feedTypes()]
  const lookups = lookupQueries()
  const methods = {
    ...declaredMethods,
    ...Object.fromEntries(UPLOAD_PARENTS.map((p) => [uploadPath(p.collection, p.field), [...uploadResource.methods]])),
    ...Object.fromEntries(
      declaredNested.map((nested) => [
        nested.path,
        'resource' in nested ? [...nested.resource.methods] : [nested.action.method]
      ])
    )
  }
  const source = [
    '// Generated from the resource declarations by `npm run generate:client`; do not edit.',
    '',
    "import type { Collection, EqualityFilter, Feed, Lookup, OneOfFilter, RangeFilter, SortOf, TextFilter, UploadFile } from './definitions'",
    '',
    ...body,
    '// By-user look-ups',
    '',
    ...lookups,
    '// Parts shared by several types',
    '',
    ...writer.declarations(),
    '/** Every service of the API by path: its record, create, patch and query types and its methods. */',
    'export interface ServiceDefinitions {',
    ...definitions(),
    '}',
    '',
    '/** Every service of the API with the methods it offers (checked against the server by the tests). */',
    `export const SERVICE_METHODS = ${JSON.stringify(methods)} as const`,
    ''
  ].join('\n')
  const options = await prettier.resolveConfig(FILE)
  const formatted = await prettier.format(source, { ...options, filepath: FILE })
  if (!process.argv.includes('--check')) {
    fs.writeFileSync(FILE, formatted)
    console.log(`client types: wrote ${RELATIVE}`)
    return
  }
  if (!fs.existsSync(FILE) || fs.readFileSync(FILE, 'utf8') !== formatted) {
    console.error(`${RELATIVE} is out of date: run npm run generate:client`)
    process.exit(1)
  }
  console.log(`client types: ${RELATIVE} matches the declarations`)
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
