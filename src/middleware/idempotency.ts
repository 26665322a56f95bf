import crypto from 'node:crypto'
import type { Context, Next } from 'koa'
import { http } from '@feathersjs/transport-commons'
import type { Application, HookContext, NextFunction } from '../declarations'
import { conflict, UnprocessableEntity } from '../errors'
import { badRequest } from '../resources/validation'
import { toApiError } from '../resources/errors'
import { API_PREFIX } from '../resources/register'
import { storageOf } from '../storage'
import { EventJournal } from '../events/journal'
import { IdempotencyStore, KeyScope, RequestFingerprint, StoredRequest, StoredResponse } from './idempotency-store'

/**
 * Idempotent writes (CONTRACT §13.4, §13.6): `Idempotency-Key` on POST, PATCH and DELETE under
 * /v1. The HTTP layer notes the key and the request line; a hook on every /v1 write, inside the
 * key and scope checks, claims the key, runs the write in one transaction with the stored
 * response, and replays a stored response to a repeat. Why it is built so: docs/decisions.md,
 * "Idempotent retries"; for integrators: docs/integrations.md.
 */

export const IDEMPOTENCY_HEADER = 'Idempotency-Key'
export const REPLAYED_HEADER = 'Idempotent-Replayed'

/** What the HTTP layer hands to the hook: the key as sent (every copy of the header) and the request line. */
export interface IdempotentRequest {
  sent: string[]
  method: string
  /** Path and query string, as sent. */
  path: string
}

declare module '../declarations' {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- the augmentation must repeat the interface's type parameter
  interface Params<Q> {
    /** REST writes under /v1 that carry `Idempotency-Key` (set by `noteIdempotencyKey`). */
    idempotency?: IdempotentRequest
  }
}

const WRITES = new Set(['POST', 'PATCH', 'DELETE'])
const PRINTABLE_ASCII = /^[\x20-\x7e]{1,255}$/
const HOUR_MS = 3600_000

/**
 * Koa: notes the key and the request line of a write under /v1 for the hook. A request without
 * the header pays this one header look-up.
 */
export const noteIdempotencyKey = async (ctx: Context, next: Next) => {
  if (
    ctx.req.headers['idempotency-key'] !== undefined &&
    WRITES.has(ctx.method) &&
    ctx.path.startsWith(`/${API_PREFIX}/`)
  ) {
    const idempotency: IdempotentRequest = {
      sent: ctx.req.headersDistinct['idempotency-key'] ?? [],
      method: ctx.method,
      path: ctx.originalUrl
    }
    const feathers = { ...ctx.feathers, idempotency }
    ctx.feathers = feathers
  }
  await next()
}

/** 400 naming the header: sent once, 1 to 255 printable ASCII characters. */
function keyOf(request: IdempotentRequest): string {
  const [key, ...more] = request.sent
  if (more.length > 0) throw badRequest('Invalid header', { [IDEMPOTENCY_HEADER]: 'must be sent once' })
  if (key === undefined || !PRINTABLE_ASCII.test(key))
    throw badRequest('Invalid header', { [IDEMPOTENCY_HEADER]: 'must be 1 to 255 printable ASCII characters' })
  return key
}

/** JSON text with the keys of every object sorted: equal JSON values give equal text (key order is irrelevant, §13.6). */
const canonicalJson = (value: unknown): string =>
  JSON.stringify(value ?? null, (_key, node: unknown) =>
    node !== null && typeof node === 'object' && !Array.isArray(node)
      ? Object.fromEntries(Object.entries(node).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : node
  )

/** The file the multipart step stored for an upload create (src/services/uploads/multipart.ts). */
interface ReceivedUpload {
  key: string
  fileName: string
  size: number
  mimeType: string
}
const uploadOf = (context: HookContext) => (context.params as { upload?: ReceivedUpload }).upload

/**
 * The body as the request sent it. An upload's file is stored before the hooks run: it counts by
 * name, size and type (its bytes are not read again).
 */
function bodyDigest(context: HookContext): string {
  const upload = uploadOf(context)
  const body = upload
    ? { fields: context.data, file: { fileName: upload.fileName, size: upload.size, mimeType: upload.mimeType } }
    : context.data
  return crypto.createHash('sha256').update(canonicalJson(body)).digest('hex')
}

const inFlight = () =>
  conflict(`A request with this ${IDEMPOTENCY_HEADER} is still running; retry once it has answered`, {
    reason: 'idempotency-in-flight',
    validationErrors: { [IDEMPOTENCY_HEADER]: 'is in use by a request that is still running' }
  })

function reused(stored: StoredRequest, request: RequestFingerprint) {
  const differs = stored.method !== request.method ? 'method' : stored.path !== request.path ? 'path' : 'body'
  return new UnprocessableEntity(
    `This ${IDEMPOTENCY_HEADER} was first used for another request (its ${differs} differs); send a new key with a new request`,
    {
      validationErrors: {
        [IDEMPOTENCY_HEADER]: `was first used for ${stored.method} ${stored.path}${differs === 'body' ? ' with another body' : ''}`
      }
    }
  )
}

const JSON_CONTENT = { 'Content-Type': 'application/json; charset=utf-8' }

/** The response the REST transport sends for this context, as it will go out. */
function responseOf(context: HookContext): StoredResponse {
  const { status, headers, body } = http.getResponse(context)
  const text = body === undefined || body === null ? null : JSON.stringify(body)
  return { status, headers: { ...headers, ...(text === null ? {} : JSON_CONTENT) }, body: text }
}

/** A refusal as the error handler renders it (src/middleware/errors.ts). */
function refusalOf(error: ReturnType<typeof toApiError>): StoredResponse {
  const { name, message, code, className, data } = error.toJSON()
  const body = data === undefined ? { name, message, code, className } : { name, message, code, className, data }
  return { status: code, headers: JSON_CONTENT, body: JSON.stringify(body) }
}

/** Answers the stored response (or 422 for another request); nothing runs, nothing is announced. */
async function replay(context: HookContext, stored: StoredRequest, request: RequestFingerprint) {
  if (stored.method !== request.method || stored.path !== request.path || stored.bodyDigest !== request.bodyDigest)
    throw reused(stored, request)
  // A refused upload create loses the file the multipart step stored in the upload hooks; a replayed one here.
  const upload = uploadOf(context)
  if (upload && context.method === 'create')
    await storageOf(context.app)
      .remove(upload.key)
      .catch((error) => context.app.get('logger').warn({ err: error }, 'idempotency: replayed upload file not removed'))
  const body: unknown = stored.body === null ? null : JSON.parse(stored.body)
  context.http = { status: stored.status, headers: { ...stored.headers, [REPLAYED_HEADER]: 'true' } }
  context.result = body
  context.dispatch = body
  context.event = null
}

/**
 * The around hook of every /v1 write, inside the key and scope checks (so the key is known and
 * a refusal there is not stored), around the path, query and body checks and the service (so a
 * 400 of the body is stored like any refusal).
 */
export const idempotentWrite = (app: Application, store: IdempotencyStore) => {
  const knex = app.get('knex')
  return async (context: HookContext, next: NextFunction) => {
    const { idempotency, apiKey, company, provider } = context.params
    if (!idempotency || provider !== 'rest' || !apiKey || !company || context.params.transaction) return next()
    const scope: KeyScope = { companyId: company.id, apiKeyId: apiKey.id, idempotencyKey: keyOf(idempotency) }
    const request: RequestFingerprint = {
      method: idempotency.method,
      path: idempotency.path,
      bodyDigest: bodyDigest(context)
    }
    const now = new Date()
    const cutoff = new Date(now.getTime() - app.get('idempotency').retentionHours * HOUR_MS).toISOString()
    // A committed row is a completed request: answered without a transaction.
    const stored = await store.find(scope, cutoff)
    if (stored) return replay(context, stored, request)

    const trx = await knex.transaction()
    const rollback = () => trx.rollback().catch(() => undefined)
    const claim = await store.claim(trx, scope, request, now.toISOString(), cutoff).catch(async (error) => {
      await rollback()
      throw error
    })
    if (typeof claim !== 'object') {
      await rollback()
      // Completed since the look-up above (or, rarely, pruned in between: then it is as good as running).
      const completed = claim === 'stored' && (await store.find(scope, cutoff))
      if (completed) return replay(context, completed, request)
      throw inFlight()
    }

    // The write runs in this transaction (the service joins `params.transaction` and notes its
    // events in this journal), and its response is stored in it before it commits: both or
    // neither. The events are appended last, after the stored response: the append takes the
    // company's log lock (src/events/event-log.ts), held until the commit, and readers of the log
    // wait for it, so nothing else runs under it.
    const params = context.params
    const journal = new EventJournal(company, params)
    context.params = { ...params, transaction: { trx, starting: false }, eventJournal: journal }
    try {
      await next()
      await store.complete(trx, claim.id, responseOf(context))
      await journal.commit(app, trx)
      await trx.commit()
      // knex's `commit()` resolves even when the COMMIT failed (a deferred constraint, a full disk):
      // only the transaction's own promise tells, and a write that did not commit must not answer 2xx.
      await trx.executionPromise
    } catch (error) {
      if (!trx.isCompleted()) await rollback()
      const refusal = toApiError(error, context.method, context.params.query)
      // A 5xx leaves no row: the key is free and a retry runs again.
      if (refusal.code < 500)
        await store
          .storeRefusal(scope, request, refusalOf(refusal), now.toISOString(), cutoff)
          .catch((failure) => app.get('logger').warn({ err: failure }, 'idempotency: refusal not stored'))
      throw error
    } finally {
      context.params = params
    }
  }
}

/** A service after Feathers' hook mixin (the first mixin) has run on it. */
interface HookedService {
  hooks(map: { around: Record<string, ((context: HookContext, next: NextFunction) => Promise<void>)[]> }): unknown
}

/**
 * Wires it: the koa step before the REST transport, the hook on the POST, PATCH and DELETE of every
 * service mounted under /v1 later (a mixin, so that routes other modules add are covered too),
 * and the scheduled pruning of this instance.
 */
export const idempotency = (app: Application) => {
  const store = new IdempotencyStore(app.get('knex'), app.get('dialect').client === 'pg')
  const hook = idempotentWrite(app, store)
  app.use(noteIdempotencyKey)
  app.mixins.push((service, path, options) => {
    if (!path.startsWith(`${API_PREFIX}/`)) return
    const methods = ['create', 'patch', 'remove'].filter((method) => options.methods?.includes(method))
    if (methods.length > 0)
      (service as HookedService).hooks({ around: Object.fromEntries(methods.map((method) => [method, [hook]])) })
  })

  let timer: NodeJS.Timeout | undefined
  // One pruning at a time per instance; instances prune side by side (a DELETE by age is idempotent).
  let pruning: Promise<void> = Promise.resolve()
  const prune = () =>
    (pruning = pruning.then(async () => {
      const cutoff = new Date(Date.now() - app.get('idempotency').retentionHours * HOUR_MS).toISOString()
      try {
        const removed = await store.prune(cutoff)
        if (removed > 0) app.get('logger').debug({ removed }, 'idempotency: pruned stored responses')
      } catch (error) {
        app.get('logger').warn({ err: error }, 'idempotency: stored responses not pruned')
      }
    }))
  app.hooks({
    setup: [
      async (_context: unknown, next: NextFunction) => {
        await next()
        void prune()
        timer = setInterval(() => void prune(), app.get('idempotency').pruneIntervalSeconds * 1000)
        timer.unref()
      }
    ],
    teardown: [
      async (_context: unknown, next: NextFunction) => {
        clearInterval(timer)
        await pruning
        await next()
      }
    ]
  })
}
