import { Type, TSchema, TObject } from '@feathersjs/typebox'
import type { Resource, Row } from './define-resource'
import { badRequest, collectErrors, compile, isObject, unstorableTextErrors, queryAjv } from './validation'
import { INT32_MAX, Nullable } from './types'
import { likeTokens } from '../db/like-pattern'

export const MAX_PAGE_SIZE = 20
export const DEFAULT_PAGE_SIZE = 10

type FilterKind = 'number' | 'string' | 'timestamp' | 'date' | 'boolean' | 'enum'

const COMPARISONS = ['$lt', '$lte', '$gt', '$gte']

export function filterKind(schema: TSchema): FilterKind {
  // TypeBox's TSchema is open (any keyword): the keywords read here are JSON Schema's.
  const s = schema
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type
  if (type === 'integer' || type === 'number') return 'number'
  if (type === 'boolean') return 'boolean'
  if (s.format === 'date-time') return 'timestamp'
  if (s.format === 'date') return 'date'
  if (s.enum) return 'enum'
  return 'string'
}

export function operatorsOf(kind: FilterKind) {
  return [
    '$eq',
    '$ne',
    '$in',
    '$nin',
    ...(kind === 'boolean' || kind === 'enum' ? [] : COMPARISONS),
    ...(kind === 'string' ? ['$like'] : [])
  ]
}

/** A filter value in a query string: the field's type without its write bounds, or null. */
const valueSchema = (schema: TSchema): TSchema => {
  // TypeBox's TSchema is open (any keyword): the keywords read here are JSON Schema's.
  const s = schema
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type
  const { format, enum: values, minimum, maximum } = s
  if (type === 'integer') return Type.Integer({ minimum: minimum ?? -INT32_MAX - 1, maximum: maximum ?? INT32_MAX })
  if (type === 'number') return Type.Number()
  if (type === 'boolean') return Type.Boolean()
  return Type.Unsafe({
    type: 'string',
    maxLength: 255,
    ...(format ? { format } : {}),
    ...(values ? { enum: values } : {})
  })
}

/**
 * The strict query schema of a list: `page`, `size`, `$sort` and one operator object per
 * filter. Plain `field=value` is normalised to `{ $eq: value }` before validation so that each
 * filter has exactly one shape and every error has one path.
 */
export function buildQuerySchema(resource: Resource): TObject {
  const properties: Record<string, TSchema> = {
    page: Type.Optional(Type.Integer({ minimum: 0, maximum: INT32_MAX })),
    size: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE })),
    $sort: Type.Optional(
      Type.Object(
        Object.fromEntries(resource.filters.map((f) => [f, Type.Optional(Type.Integer({ enum: [1, -1] }))])),
        { additionalProperties: false }
      )
    )
  }
  for (const name of resource.filters) {
    const spec = resource.fields[name]
    if (!spec) throw new Error(`${resource.entity}: filter ${name} is not a field`)
    const kind = filterKind(spec.schema)
    const value = valueSchema(spec.schema)
    // `null` matches records without a value (CONTRACT §3.1), on every filter: an enum lists it too.
    const nullable = Nullable(value)
    const operators: Record<string, TSchema> = {}
    for (const op of operatorsOf(kind)) {
      if (op === '$in' || op === '$nin') operators[op] = Type.Optional(Type.Array(value, { maxItems: 100 }))
      else if (op === '$eq' || op === '$ne') operators[op] = Type.Optional(nullable)
      else if (op === '$like') operators[op] = Type.Optional(Type.String({ maxLength: 255 }))
      else operators[op] = Type.Optional(value)
    }
    properties[name] = Type.Optional(Type.Object(operators, { additionalProperties: false }))
  }
  for (const [name, extra] of Object.entries(resource.extraFilters ?? {})) {
    const value = valueSchema(extra.schema)
    const operators = { $eq: Type.Optional(value), $in: Type.Optional(Type.Array(value, { maxItems: 100 })) }
    properties[name] = Type.Optional(Type.Object(operators, { additionalProperties: false }))
  }
  return Type.Object(properties, { $id: `${resource.entity}Query`, additionalProperties: false })
}

/** The query-string name of a path: `startsAt.$gt` → `startsAt[$gt]`, `startsAt.$eq` → `startsAt`. */
const queryPath = (path: string) => {
  const [head, ...rest] = path.split('.')
  return (
    head +
    rest
      .filter((p) => p !== '$eq')
      .map((p) => `[${p}]`)
      .join('')
  )
}

/**
 * The query-string parser turns a list of more than 20 values (`id[$in]=1&id[$in]=2...`) into an
 * object keyed `0`, `1`, ...; such an object is the list it was (up to the 100 values allowed).
 */
const indexedArray = (value: unknown) => {
  if (!isObject(value)) return value
  const keys = Object.keys(value)
  return keys.length > 0 && keys.every((k, i) => k === String(i)) ? keys.map((k) => value[k]) : value
}

export interface ListQuery {
  page: number
  size: number
  sort: [string, 1 | -1][]
  where: Row
  /** Values of the declaration's extra filters, one entry per operator (all must match). */
  extra?: [string, unknown[]][]
}

declare module '../declarations' {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- the augmentation must repeat the interface's type parameter
  interface Params<Q> {
    /** The validated list query of a find (set by the validateQuery hook). */
    list?: ListQuery
  }
}

const normaliseValue = (kind: FilterKind, value: unknown) =>
  kind === 'timestamp' && typeof value === 'string' ? new Date(value).toISOString() : value

/**
 * Malformed `$like` patterns (a lone trailing backslash, a backslash before another character:
 * src/db/like-pattern.ts), refused before a database sees them. Keys are query paths (`name.$like`).
 */
function likePatternErrors(resource: Resource, query: Row): Record<string, string> {
  const errors: Record<string, string> = {}
  for (const name of resource.filters) {
    const pattern = (query[name] as Row | undefined)?.$like
    if (typeof pattern !== 'string') continue
    const parsed = likeTokens(pattern)
    if ('error' in parsed) errors[`${name}.$like`] = parsed.error
  }
  return errors
}

/**
 * Values the coercing validator would read loosely: an empty text (`?customerId=` → null or 0) and
 * numbers written otherwise than in plain decimal (`0x10`, `1e3`, `+1`, ` 5` would all pass as
 * numbers). Both are the client's mistake, never a filter. Keys are query paths (`customerId.$eq`).
 * Only where `null` is a meaningful value does the message say how to send it.
 */
function looseValueErrors(resource: Resource, query: Row): Record<string, string> {
  const errors: Record<string, string> = {}
  const numeric = (key: string) =>
    key === 'page' ||
    key === 'size' ||
    (Object.hasOwn(resource.fields, key) &&
      resource.filters.includes(key) &&
      filterKind(resource.fields[key].schema) === 'number')
  const visit = (value: unknown, path: string, key: string, op?: string) => {
    if (value === '') {
      const nullable = op !== undefined && ['$eq', '$ne', '$in', '$nin'].includes(op) && resource.fields[key]?.nullable
      errors[path] = nullable ? 'must not be empty (send `null` for records without a value)' : 'must not be empty'
    } else if (Array.isArray(value)) value.forEach((item, index) => visit(item, `${path}.${index}`, key, op))
    else if (isObject(value))
      for (const [inner, item] of Object.entries(value)) visit(item, `${path}.${inner}`, key, op ?? inner)
    else if (typeof value === 'string' && value !== 'null' && numeric(key) && !/^-?\d+(\.\d+)?$/.test(value))
      errors[path] = 'must be a decimal number'
  }
  for (const [key, value] of Object.entries(query)) {
    if (key === '$sort') {
      if (isObject(value)) for (const [field, order] of Object.entries(value)) visit(order, `$sort.${field}`, '$sort')
    } else visit(value, key, key)
  }
  return errors
}

/**
 * `field[$ne]=v` and `field[$nin]=…` on a field that may be null match the records without a value
 * too: null differs from every value (docs/decisions.md, "Exclusions match records without a
 * value"). SQL's `<>` and `NOT IN` leave them out, so each becomes `(… or field is null)`;
 * `$ne=null` stays "has a value".
 */
function includeNullsInExclusions(where: Row, name: string) {
  const { $ne, $nin, ...rest } = where[name] as Row
  const exclusions: Row[] = []
  if ($ne !== undefined && $ne !== null) exclusions.push({ $ne })
  else if ($ne === null) rest.$ne = null
  if ($nin !== undefined) exclusions.push({ $nin })
  if (exclusions.length === 0) return
  where.$and = [
    ...(where.$and ?? []),
    ...exclusions.map((exclusion) => ({ $or: [{ [name]: exclusion }, { [name]: null }] }))
  ]
  if (Object.keys(rest).length > 0) where[name] = rest
  else delete where[name]
}

/**
 * Validates and normalises a raw (qs-parsed) query into page, size, sort and a where object in
 * Feathers adapter syntax. Throws 400 naming each offending parameter.
 */
export function parseListQuery(resource: Resource, schema: TObject, raw: Row): ListQuery {
  const query: Row = {}
  for (const [key, value] of Object.entries(raw ?? {})) {
    const isFilter = resource.filters.includes(key) || Object.hasOwn(resource.extraFilters ?? {}, key)
    if (key === 'page' || key === 'size' || key === '$sort' || !isFilter) {
      query[key] = value
    } else {
      const ops: Row = isObject(value) ? { ...value } : { $eq: value }
      for (const op of ['$eq', '$ne']) if (ops[op] === 'null') ops[op] = null
      for (const op of ['$in', '$nin']) if (op in ops) ops[op] = indexedArray(ops[op])
      query[key] = ops
    }
  }
  // Before validation: the validator coerces in place ('' → null or 0).
  const loose = looseValueErrors(resource, query)
  const validate = compile(queryAjv, schema)
  const valid = validate(query)
  const nul = { ...unstorableTextErrors(query), ...(valid ? likePatternErrors(resource, query) : {}), ...loose }
  if (!valid || Object.keys(nul).length > 0) {
    const errors = collectErrors(valid ? [] : validate.errors, (path) => {
      const parts = path.split('.')
      const filters = [...resource.filters, ...Object.keys(resource.extraFilters ?? {})]
      if (parts.length === 1) return `is not a filter of ${resource.path} (filters: ${filters.join(', ')})`
      if (parts[0] === '$sort') return `is not a sortable field of ${resource.path}`
      return `is not a supported operator for ${parts[0]}`
    })
    // The loose value is the client's mistake; what the validator made of it (below it) is not.
    const reported = Object.keys(loose)
    const own = Object.entries(errors).filter(
      ([path]) => !reported.some((e) => path === e || path.startsWith(`${e}.`) || e.startsWith(`${path}.`))
    )
    throw badRequest(
      'Invalid query',
      Object.fromEntries(
        Object.entries({ ...nul, ...Object.fromEntries(own), ...loose }).map(([k, v]) => [queryPath(k), v])
      )
    )
  }
  const where: Row = {}
  for (const name of resource.filters) {
    const ops = query[name] as Row | undefined
    if (!ops) continue
    const kind = filterKind(resource.fields[name].schema)
    const condition: Row = {}
    for (const [op, value] of Object.entries(ops)) {
      condition[op] = Array.isArray(value) ? value.map((v) => normaliseValue(kind, v)) : normaliseValue(kind, value)
    }
    // `$eq` alone becomes plain equality (the adapter's `null` → IS NULL).
    where[name] = Object.keys(condition).length === 1 && '$eq' in condition ? condition.$eq : condition
    if (isObject(where[name]) && '$eq' in where[name]) {
      const { $eq, ...rest } = where[name]
      where[name] = rest
      where.$and = [...(where.$and ?? []), { [name]: $eq }]
    }
    if (resource.fields[name].nullable && isObject(where[name])) includeNullsInExclusions(where, name)
  }
  const extra: [string, unknown[]][] = []
  for (const name of Object.keys(resource.extraFilters ?? {})) {
    const ops = (query[name] ?? {}) as { $eq?: unknown; $in?: unknown[] }
    if (ops.$eq !== undefined) extra.push([name, [ops.$eq]])
    if (ops.$in !== undefined) extra.push([name, ops.$in])
  }
  const sort = Object.entries((query.$sort ?? {}) as Record<string, 1 | -1>)
  if (!sort.some(([field]) => field === 'id')) sort.push(['id', 1])
  return { page: query.page ?? 0, size: query.size ?? DEFAULT_PAGE_SIZE, sort, where, extra }
}
