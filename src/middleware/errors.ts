import { BadRequest, FeathersError, NotFound } from '@feathersjs/errors'
import { PayloadTooLarge, UnsupportedMediaType } from '../errors'
import { toApiError } from '../resources/errors'
import { badRequest, isObject, notAnObject } from '../resources/validation'
import type { Context, Next } from 'koa'
import type { Logger } from 'pino'

/** What koa, its body parser and Node put on the errors they throw (any of it may be missing). */
interface RawError {
  status?: unknown
  statusCode?: unknown
  code?: unknown
  message?: string
  type?: unknown
}

/** Errors raised outside services (body parser, unknown routes) as the same JSON error body. */
function toFeathersError(raw: unknown): FeathersError {
  if (raw instanceof FeathersError) return raw
  const error = raw as RawError | null | undefined
  const status = Number(error?.status ?? error?.statusCode ?? 500)
  if (status === 413) return new PayloadTooLarge('Request body is larger than allowed (JSON: 1 MiB)')
  if (status === 415) return new UnsupportedMediaType(error?.message)
  // The static files' server refuses a path that resolves outside public/ (`/docs/..%2f..%2fpackage.json`)
  // with 403 "malicious path": no file has that path. It used to fall through to a 500.
  if (status === 403 || status === 404) return new NotFound('Not found')
  // zlib refusing a body whose bytes are not what its Content-Encoding says (gzip/deflate:
  // Z_DATA_ERROR, ...; brotli: ERR__ERROR_FORMAT_..., "Decompression failed").
  if (/^(Z_|ERR__ERROR_)/.test(String(error?.code ?? '')))
    return new BadRequest('The body could not be decoded as its Content-Encoding says')
  if (status === 400) {
    // The JSON parser refuses `__proto__` keys anywhere in a body (prototype poisoning).
    if (/forbidden prototype property/.test(String(error?.message)))
      return badRequest('Invalid body', { '': 'must not contain a "__proto__" key' })
    // co-body in strict mode refuses a well-formed JSON value that is not an object or array
    // (`null`, `5`, `"text"`): the JSON is fine, its shape is not.
    if (/only supports object and array/.test(String(error?.message))) return notAnObject()
    const malformed =
      error?.type === 'entity.parse.failed' || /JSON|Unexpected token|invalid/i.test(String(error?.message))
    return new BadRequest(malformed ? 'Malformed JSON body' : 'Bad request')
  }
  // Database errors outside a service (/ready, authentication in middleware): 503 when the
  // database is unreachable, like inside a service.
  return toApiError(raw)
}

export const errorHandler = (logger: Logger) => async (ctx: Context, next: Next) => {
  try {
    await next()
    if (ctx.body === undefined && ctx.status === 404) {
      throw new NotFound(`Path ${ctx.path} not found`)
    }
  } catch (raw) {
    const error = toFeathersError(raw)
    if (error.code >= 500) logger.error({ err: raw, path: ctx.path, method: ctx.method }, 'request failed')
    ctx.status = error.code
    if (error.code === 401) ctx.set('WWW-Authenticate', 'Bearer')
    const allow = (error.data as { allow?: unknown } | undefined)?.allow
    if (error.code === 405 && Array.isArray(allow)) ctx.set('Allow', allow.join(', '))
    const retryAfter = (error.data as { retryAfter?: unknown } | undefined)?.retryAfter
    if (error.code === 429 && retryAfter) ctx.set('Retry-After', String(retryAfter))
    const { name, message, code, className, data } = error.toJSON()
    ctx.body = data === undefined ? { name, message, code, className } : { name, message, code, className, data }
  }
}

const JSON_TYPE = /^application\/(.+\+)?json\b/i

/** Write bodies are JSON (uploads: multipart); anything else is 415 before it reaches a service. */
export const requireJsonBody = async (ctx: Context, next: Next) => {
  const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== ''
  const type = ctx.get('content-type')
  const multipartAllowed = /\/uploads(\/|$)/.test(ctx.path)
  if (
    ['POST', 'PATCH', 'PUT'].includes(ctx.method) &&
    hasBody &&
    !JSON_TYPE.test(type) &&
    !(multipartAllowed && /^multipart\/form-data/i.test(type))
  ) {
    throw new UnsupportedMediaType(
      'Send the body as application/json' + (multipartAllowed ? ' (uploads: multipart/form-data)' : '')
    )
  }
  await next()
}

/** Decodes UTF-8 and throws on any byte sequence that is not UTF-8 (instead of writing U+FFFD). */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true })

/**
 * The body parser reads JSON bodies as latin1 (src/app.ts, `encoding: 'latin1'`: one character per
 * byte, so the bytes survive) and keeps that text as `rawBody`. Here the bytes are decoded as UTF-8,
 * strictly: a body that is not UTF-8 (RFC 8259: JSON is exchanged in UTF-8, whatever charset the
 * Content-Type names) is a 400. Before, invalid bytes became U+FFFD and were stored so, without a
 * word (a Latin-1 "Müller" became "M\uFFFDller"). A body of ASCII only is already parsed right;
 * any other is parsed again from its UTF-8 text (the first parse has refused `__proto__` keys and
 * bodies that are not an object or array, which the decoding cannot change: those are ASCII).
 */
export const decodeJsonAsUtf8 = async (ctx: Context, next: Next) => {
  const request = ctx.request as Context['request'] & { rawBody?: unknown; body?: unknown }
  const raw = request.rawBody
  if (typeof raw === 'string') {
    delete request.rawBody
    if (/[^\x00-\x7f]/.test(raw)) {
      let text: string
      try {
        text = STRICT_UTF8.decode(Buffer.from(raw, 'latin1'))
      } catch {
        throw new BadRequest(
          'The body is not valid UTF-8 (JSON is sent in UTF-8, whatever charset the Content-Type names)'
        )
      }
      request.body = JSON.parse(text)
    }
  }
  await next()
}

const MERGE_PATCH_TYPE = /^application\/merge-patch\+json\b/i

/**
 * A PATCH replaces a nested object (an address, a week's targets) whole; RFC 7396, which
 * `application/merge-patch+json` names, would merge it. A merge patch whose fields are plain values
 * means the same either way and is taken; one with a nested object is a 400 naming each such field,
 * instead of clearing the members the client left out (a review found `{"billingAddress":{"city":…}}`
 * nulling the street and zip).
 */
export const refuseNestedMergePatch = async (ctx: Context, next: Next) => {
  const body = (ctx.request as { body?: unknown }).body
  if (ctx.method === 'PATCH' && MERGE_PATCH_TYPE.test(ctx.get('content-type')) && isObject(body)) {
    const nested = Object.keys(body).filter((key) => isObject(body[key]))
    if (nested.length > 0)
      throw badRequest(
        'Nested objects are replaced whole, not merged',
        Object.fromEntries(
          nested.map((key) => [
            key,
            'is an object, which application/merge-patch+json would merge; this API replaces it whole: send all of it as application/json'
          ])
        )
      )
  }
  await next()
}

/** What the JSON body parser (co-body, through `inflation`) decodes; node's zlib has brotli. */
const JSON_ENCODINGS = new Set(['identity', 'gzip', 'deflate', 'br'])

/**
 * A `Content-Encoding` the body parser cannot decode is 415 naming it, before the parser reads
 * the body. Content codings are case-insensitive (RFC 9110), so the header is normalised for the
 * parser. Uploads are streamed to the multipart parser as sent, so they take `identity` only.
 */
export const acceptContentEncoding = async (ctx: Context, next: Next) => {
  const header = ctx.get('content-encoding')
  const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== ''
  if (header !== '' && hasBody) {
    const encoding = header.trim().toLowerCase()
    const multipart = /^multipart\//i.test(ctx.get('content-type'))
    if (!(multipart ? encoding === 'identity' : JSON_ENCODINGS.has(encoding))) {
      const accepted = multipart ? 'identity' : [...JSON_ENCODINGS].join(', ')
      throw new UnsupportedMediaType(
        `Content-Encoding "${header.slice(0, 100)}" is not supported (accepted: ${accepted})`,
        { accepted: accepted.split(', ') }
      )
    }
    ctx.req.headers['content-encoding'] = encoding
  }
  await next()
}
