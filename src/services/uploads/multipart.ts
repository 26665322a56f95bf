import { randomUUID } from 'node:crypto'
import { Transform, TransformCallback } from 'node:stream'
import koaMulter from '@koa/multer'
import { BadRequest, FeathersError, MethodNotAllowed, NotAuthenticated } from '@feathersjs/errors'
import type { Next } from 'koa'
import type { FeathersKoaContext } from '@feathersjs/koa'
import type { AuthenticationRequest } from '@feathersjs/authentication'
import type { Application } from '../../declarations'
import type { FileStorage } from '../../storage'
import { PayloadTooLarge, UnsupportedMediaType } from '../../errors'
import { badRequest } from '../../resources/validation'
import { storageOf } from '../../storage'
import { assertScope } from '../../resources/hooks'
import { sanitizeFileName } from './file-name'

/** What the multipart step hands to the service: the file is already stored under `key`. */
export interface ReceivedFile {
  key: string
  size: number
  fileName: string
  mimeType: string
}

const SNIFF_BYTES = 4100 // file-type's reasonableDetectionSizeInBytes
const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/

// file-type is ESM-only: loaded once, on first use, by a real dynamic import.
let fileTypeModule: Promise<typeof import('file-type', { with: { 'resolution-mode': 'import' } })> | undefined
const fileType = () => (fileTypeModule ??= import('file-type'))

const tooLarge = (maxBytes: number) =>
  new PayloadTooLarge(`The file is larger than the allowed ${maxBytes} bytes`, { maxBytes })

/** Counts the bytes going through, keeps the first ones for sniffing, and stops past the limit. */
class Measure extends Transform {
  size = 0
  private head: Buffer[] = []
  private headLength = 0

  constructor(readonly maxBytes: number) {
    super()
  }

  _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
    this.size += chunk.length
    if (this.size > this.maxBytes) return done(tooLarge(this.maxBytes))
    if (this.headLength < SNIFF_BYTES) {
      this.head.push(chunk.subarray(0, SNIFF_BYTES - this.headLength))
      this.headLength += Math.min(chunk.length, SNIFF_BYTES - this.headLength)
    }
    done(null, chunk)
  }

  get firstBytes() {
    return Buffer.concat(this.head)
  }
}

/** The sniffed type, else the part's declared type (type/subtype only), else octet-stream. */
async function mimeTypeOf(firstBytes: Buffer, declared: string) {
  const sniffed = await (await fileType()).fileTypeFromBuffer(firstBytes)
  const fallback = declared.split(';')[0].trim().toLowerCase()
  return sniffed?.mime ?? (MIME.test(fallback) ? fallback : 'application/octet-stream')
}

/**
 * A multer storage engine that streams the part straight into the file storage, measuring it.
 * `settled()` waits for its writes: multer may give up on a broken request before a write has
 * cleaned up after itself, and the response must not overtake that.
 */
function storageEngine(storage: FileStorage, keyPrefix: string, maxBytes: number) {
  const writes: Promise<unknown>[] = []
  const engine: koaMulter.StorageEngine = {
    _handleFile(_req, file, callback) {
      const key = `${keyPrefix}/${randomUUID()}`
      const measure = new Measure(maxBytes)
      // A driver may start reading late (after creating directories); an error before that
      // reaches it through the stream's errored state instead of going unhandled.
      measure.on('error', () => undefined)
      file.stream.once('limit', () => measure.destroy(tooLarge(maxBytes)))
      // A broken request destroys the part's stream: pass that on, or the write would wait forever.
      file.stream.once('error', (error) => measure.destroy(error))
      const write = storage.write(key, file.stream.pipe(measure))
      writes.push(write.catch(() => undefined))
      write.then(
        async () =>
          callback(null, { key, size: measure.size, mimeType: await mimeTypeOf(measure.firstBytes, file.mimetype) }),
        callback
      )
    },
    _removeFile(_req, file, callback) {
      storage.remove(String(file.key)).then(() => callback(null), callback)
    }
  }
  return { engine, settled: () => Promise.allSettled(writes) }
}

/** Multer's refusals as API errors naming the field; storage failures stay server errors (500). */
/** What multer, busboy and the file system put on their errors (any of it may be missing). */
interface UploadError {
  code?: unknown
  field?: string
  name?: unknown
  message?: unknown
  syscall?: unknown
  errno?: unknown
}

function toApiError(raw: unknown, maxBytes: number) {
  if (raw instanceof FeathersError) return raw
  const error = raw as UploadError | null | undefined
  if (error?.code === 'LIMIT_FILE_SIZE') return tooLarge(maxBytes)
  if (error?.code === 'LIMIT_UNEXPECTED_FILE' || error?.code === 'LIMIT_FILE_COUNT') {
    const field = error.field ?? 'file'
    return badRequest('Invalid upload', {
      [field]:
        field === 'file' ? 'must be exactly one file' : 'is not a file field (send the file in the part named "file")'
    })
  }
  if (error?.name === 'MulterError')
    return badRequest('Invalid upload', { [error.field ?? 'body']: String(error.message) })
  if (error?.syscall || error?.errno) return raw
  // busboy: a body that is not well-formed multipart (no boundary, cut off, broken part headers).
  return new BadRequest('Malformed multipart/form-data body')
}

/**
 * Koa middleware in front of the upload services. POST bodies are multipart/form-data: the
 * caller is authenticated first (nothing is streamed for an invalid key or one without the parent
 * `collection`'s write scope), then the `file` part
 * is streamed to storage with the size limit enforced on the way (413, nothing kept). Other
 * methods take JSON. The request's origin is kept for download links.
 */
export const receiveMultipart =
  (app: Application, collection: string) => async (ctx: FeathersKoaContext, next: Next) => {
    ctx.feathers = { ...ctx.feathers, origin: ctx.origin } as typeof ctx.feathers
    const multipart = ctx.is('multipart') === 'multipart'
    if (ctx.method !== 'POST') {
      if (multipart) throw new UnsupportedMediaType('Only POST takes multipart/form-data here; send JSON')
      return next()
    }
    if (ctx.lookup?.params?.__id !== undefined)
      throw new MethodNotAllowed('POST is only offered on the uploads collection')
    if (!multipart)
      throw new UnsupportedMediaType('Send uploads as multipart/form-data with the file in the part named "file"')
    const auth = await app
      .service('authentication')
      .authenticate(ctx.feathers!.authentication as AuthenticationRequest, { provider: 'rest' }, 'apiKey', 'jwt')
    if (auth.settingsLogin || !auth.company) throw new NotAuthenticated('Use an API key for /v1')
    // Refused before a byte is stored; the service's scope hook checks again.
    assertScope(auth.apiKey, collection, 'write')
    // A key over its budget is refused before the file is streamed; the service's hook spends the request.
    const overBudget = await app.get('keyBudget')?.refusal(auth.apiKey.id)
    if (overBudget) throw overBudget
    const { maxBytes } = app.get('uploads')
    const storage = storageEngine(storageOf(app), String(auth.company.id), maxBytes)
    const multer = koaMulter({
      storage: storage.engine,
      // Text fields: a 10 000-character description is up to 40 000 bytes of UTF-8.
      limits: { fileSize: maxBytes, files: 1, fields: 20, fieldSize: 64 * 1024, parts: 21 },
      defParamCharset: 'utf8'
    })
    try {
      await multer.single('file')(ctx, async () => undefined)
    } catch (error) {
      await storage.settled()
      throw toApiError(error, maxBytes)
    }
    const file = (ctx as { file?: unknown }).file as (koaMulter.File & Omit<ReceivedFile, 'fileName'>) | undefined
    if (file) {
      const received: ReceivedFile = {
        key: file.key,
        size: file.size,
        mimeType: file.mimeType,
        fileName: sanitizeFileName(file.originalname)
      }
      ctx.feathers = { ...ctx.feathers, upload: received } as typeof ctx.feathers
    }
    await next()
  }
