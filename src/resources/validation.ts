import Ajv, { ErrorObject, ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import { BadRequest } from '@feathersjs/errors'
import type { TSchema } from '@feathersjs/typebox'
import { fullFormats } from 'ajv-formats/dist/formats'
import type { Resource, Row, ValidationErrors } from './define-resource'
import { EARLIEST_DATE, EARLIEST_INSTANT, INT32_MAX, LATEST_DATE, LATEST_INSTANT } from './types'

const EARLIEST_MS = Date.parse(EARLIEST_INSTANT)
const LATEST_MS = Date.parse(LATEST_INSTANT)
const formatCheck = (format: unknown) => (format as { validate: (value: string) => boolean }).validate
const isRfc3339DateTime = formatCheck(fullFormats['date-time'])
const isRfc3339Date = formatCheck(fullFormats.date)

/** A date-time as RFC 3339 writes it, whatever its year. */
const wellFormedDateTime = (value: string) => isRfc3339DateTime(value) && Number.isFinite(Date.parse(value))

/** The `date-time` and `date` formats of every body and query: well formed and within the bounds of CONTRACT §10.3. */
export const inTimestampRange = (value: string) => {
  if (!wellFormedDateTime(value)) return false
  const ms = Date.parse(value)
  return ms >= EARLIEST_MS && ms <= LATEST_MS
}
export const inDateRange = (value: string) => isRfc3339Date(value) && value >= EARLIEST_DATE && value <= LATEST_DATE

/**
 * Formats plus the range checks. `verbose` keeps the value in each error, so that a well-formed
 * timestamp outside the range is told so instead of being called malformed.
 */
function withFormats(ajv: Ajv): Ajv {
  addFormats(ajv, ['email', 'uri'])
  ajv.addFormat('date-time', { type: 'string', validate: inTimestampRange })
  ajv.addFormat('date', { type: 'string', validate: inDateRange })
  return ajv
}

/** Bodies are validated as sent: no coercion, so `"5"` is not an id. */
export const bodyAjv = withFormats(new Ajv({ allErrors: true, strict: false, allowUnionTypes: true, verbose: true }))
/** Query strings arrive as text: coerce scalars, and single values into arrays for $in/$nin. */
export const queryAjv = withFormats(
  new Ajv({ allErrors: true, strict: false, allowUnionTypes: true, coerceTypes: 'array', verbose: true })
)

// RFC 3339 as ajv-formats checks it, plus a real calendar check (2026-02-30 is not a date).
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i
export const isIsoDateTime = (value: unknown) =>
  typeof value === 'string' && ISO_DATE_TIME.test(value) && !Number.isNaN(Date.parse(value))

const FORMAT_MESSAGES: Record<string, string> = {
  'date-time': 'must be an ISO 8601 date-time with Z or an offset, e.g. 2026-11-22T09:30:00Z',
  date: 'must be a date in the form YYYY-MM-DD',
  email: 'must be an email address',
  uri: 'must be a URL'
}

const TYPE_NAMES: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null'
}

/** `/emails/0/emailAddress` → `emails.0.emailAddress` */
export const fieldPath = (instancePath: string, extra?: string) =>
  [...instancePath.split('/').slice(1), ...(extra === undefined ? [] : [extra])]
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.')

export function messageOf(error: ErrorObject): string {
  const p = error.params
  switch (error.keyword) {
    case 'type': {
      const types = (Array.isArray(p.type) ? p.type : String(p.type).split(',')) as string[]
      return `must be ${types.map((t) => TYPE_NAMES[t] ?? t).join(' or ')}`
    }
    case 'format':
      if (p.format === 'date-time' && typeof error.data === 'string' && wellFormedDateTime(error.data)) {
        return `must lie between ${EARLIEST_INSTANT} and ${LATEST_INSTANT}`
      }
      if (p.format === 'date' && typeof error.data === 'string' && isRfc3339Date(error.data)) {
        return `must lie between ${EARLIEST_DATE} and ${LATEST_DATE}`
      }
      return FORMAT_MESSAGES[p.format] ?? `must be a valid ${p.format}`
    case 'pattern':
      return p.pattern === '^#[0-9A-Fa-f]{6}$' ? 'must be a hex colour in the form #RRGGBB' : `must match ${p.pattern}`
    case 'maxLength':
      return `must be at most ${p.limit} characters long`
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${p.limit} characters long`
    case 'minimum':
      return `must be ≥ ${p.limit}`
    case 'maximum':
      return `must be ≤ ${p.limit}`
    case 'maxItems':
      return `must have at most ${p.limit} items`
    case 'uniqueItems':
      return 'must not contain duplicates'
    case 'enum':
      return `must be one of: ${(p.allowedValues as unknown[]).map(String).join(', ')}`
    case 'required':
      return 'is required'
    default:
      return error.message ?? 'is invalid'
  }
}

/** Ajv errors → `{ path: message }`, the first message per path. */
export function collectErrors(errors: ErrorObject[] | null | undefined, unknownMessage: (path: string) => string) {
  const result: ValidationErrors = {}
  for (const error of errors ?? []) {
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'if') continue
    const p = error.params
    let path: string
    let message: string
    if (error.keyword === 'additionalProperties') {
      path = fieldPath(error.instancePath, p.additionalProperty)
      message = unknownMessage(path)
    } else if (error.keyword === 'required') {
      path = fieldPath(error.instancePath, p.missingProperty)
      message = 'is required'
    } else {
      path = fieldPath(error.instancePath)
      message = messageOf(error)
    }
    // Own keys only: a body key such as `constructor` must not be mistaken for a reported one.
    if (!Object.hasOwn(result, path)) result[path] = message
  }
  return result
}

/** A write body that is valid JSON but not one object (`null`, an array, a number, a string). */
export const notAnObject = () =>
  new BadRequest('The body must be a JSON object', { validationErrors: { '': 'must be a JSON object' } })

export function badRequest(message: string, validationErrors: ValidationErrors): BadRequest {
  const entries = Object.entries(validationErrors)
  const more = entries.length > 5 ? `; and ${entries.length - 5} more (see data.validationErrors)` : ''
  const summary = entries
    .slice(0, 5)
    .map(([k, v]) => `${k} ${v}`)
    .join('; ')
  return new BadRequest(`${message}: ${summary}${more}`, { validationErrors })
}

/** A path id (CONTRACT §3): an integer in int32 range, else 400 naming the parameter. */
export function pathId(raw: unknown, name: string): number {
  const text = String(raw ?? '')
  const id = /^\d{1,10}$/.test(text) ? Number(text) : NaN
  if (!(id >= 1 && id <= INT32_MAX)) throw invalidPathId(name)
  return id
}

export const invalidPathId = (name: string) =>
  badRequest('Invalid path parameter', { [name]: 'must be an integer id (1..2147483647)' })

/**
 * Compiles once per schema `$id` (every app instance in a process declares the same
 * resources), or per schema object when it has none.
 */
const compiled = new Map<Ajv, Map<unknown, ValidateFunction>>()
export function compile(ajv: Ajv, schema: TSchema): ValidateFunction {
  const cache = compiled.get(ajv) ?? new Map<unknown, ValidateFunction>()
  compiled.set(ajv, cache)
  const key = schema.$id ?? schema
  let validate = cache.get(key)
  if (!validate) {
    validate = ajv.compile(schema)
    cache.set(key, validate)
  }
  return validate
}

/** A JSON object: not null, not an array. */
export const isObject = (value: unknown): value is Row =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

/** A UTF-16 surrogate without its pair: JSON's `\ud800` escapes allow it, UTF-8 cannot encode it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * The paths of strings that no database stores as sent: U+0000 (PostgreSQL cannot store it in
 * text or jsonb) and unpaired surrogates (both databases wrote U+FFFD in their place, so the record
 * changed without a word). Refused on every database alike. Call it on values of a validated shape
 * (bounded depth).
 */
export function unstorableTextErrors(value: unknown): ValidationErrors {
  const errors: ValidationErrors = {}
  const pending: [unknown, string[]][] = [[value, []]]
  while (pending.length > 0) {
    const [current, path] = pending.pop()!
    if (typeof current === 'string' && current.includes('\u0000'))
      errors[path.join('.')] = 'must not contain the NUL character (U+0000)'
    else if (typeof current === 'string' && LONE_SURROGATE.test(current))
      errors[path.join('.')] = 'must be valid Unicode text (it has an unpaired surrogate, such as \\ud800 alone)'
    else if (current !== null && typeof current === 'object')
      for (const [key, child] of Object.entries(current)) pending.push([child, [...path, key]])
  }
  return errors
}

/** A write body split into the fields that passed the schema and the errors of the others. */
export interface BodyCheck {
  /** The body without its offending top-level fields: what reference checks and rules may read. */
  data: Row
  errors: ValidationErrors
}

/**
 * The slot in which `validateData` hands the body's schema errors to the service, which adds the
 * reference and rule errors of the fields that passed, so that one 400 names every offending field.
 */
export interface BodyErrorsSlot {
  invalidFields?: ValidationErrors
}

export const bodyTitle = (resource: Resource, method: 'create' | 'patch') =>
  `Invalid ${resource.entity} ${method === 'create' ? 'create' : 'PATCH'} body`

/**
 * Checks a create or PATCH body against the resource's write rules and schema, reporting every
 * offending field. The write rules are checked by name first, so that a client learns *why* a
 * field is refused. A body that is not one object is refused at once.
 */
export function checkBody(resource: Resource, method: 'create' | 'patch', body: unknown): BodyCheck {
  if (!isObject(body)) throw notAnObject()
  const errors: ValidationErrors = {}
  for (const key of Object.keys(body)) {
    const spec = Object.hasOwn(resource.fields, key) ? resource.fields[key] : undefined
    if (!spec || (!spec.create && !spec.patch && !spec.output)) {
      errors[key] = `is not a field of ${resource.entity}`
    } else if (!spec.create && !spec.patch) {
      errors[key] = 'is read-only'
    } else if (method === 'patch' && !spec.patch) {
      errors[key] = 'can only be set on create'
    } else if (method === 'create' && !spec.create) {
      errors[key] = 'can only be changed by PATCH'
    }
  }
  const schema = method === 'create' ? resource.createSchema : resource.patchSchema
  const validate = compile(bodyAjv, schema)
  if (!validate(body)) {
    const found = collectErrors(validate.errors, (path) => {
      // A nested unknown key: say read-only where the response schema has it (address latitude).
      const leaf = path.split('.').pop() as string
      return leaf === 'latitude' || leaf === 'longitude' || leaf === 'link'
        ? 'is read-only'
        : 'is not a field of this object'
    })
    for (const [path, message] of Object.entries(found)) if (!Object.hasOwn(errors, path)) errors[path] = message
  }
  const offending = (errors: ValidationErrors) => new Set(Object.keys(errors).map((path) => path.split('.')[0]))
  const failed = offending(errors)
  const passed: Row = Object.fromEntries(Object.entries(body).filter(([key]) => !failed.has(key)))
  // Only fields of the declared shape are walked: their depth is then bounded by the schema.
  const nul = unstorableTextErrors(passed)
  Object.assign(errors, nul)
  const nulFields = offending(nul)
  const data: Row = Object.fromEntries(Object.entries(passed).filter(([key]) => !nulFields.has(key)))
  return { data, errors }
}

/** `checkBody` for callers that have no further checks to add: the body, or a 400 naming every offending field. */
export function validateBody(resource: Resource, method: 'create' | 'patch', body: unknown): Row {
  const { data, errors } = checkBody(resource, method, body)
  if (Object.keys(errors).length > 0) throw badRequest(bodyTitle(resource, method), errors)
  return data
}
