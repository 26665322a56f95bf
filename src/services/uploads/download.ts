import { Forbidden, MethodNotAllowed, NotFound } from '@feathersjs/errors'
import type { Next } from 'koa'
import type { FeathersKoaContext } from '@feathersjs/koa'
import type { Application } from '../../declarations'
import { API_PREFIX } from '../../resources/register'
import { FileMissingError, storageOf } from '../../storage'
import { checkDownload } from './download-url'
import { attachmentHeader } from './file-name'
import { UPLOAD_PARENTS } from './uploads.schema'

const DOWNLOAD_ROUTE = new RegExp(
  `^/${API_PREFIX}/(${UPLOAD_PARENTS.map((p) => p.collection).join('|')})/(\\d{1,10})/uploads/(\\d{1,10})/download$`
)

/**
 * `GET <uploads>/{uploadId}/download?expires=...&signature=...`: the signed link of an upload's
 * `downloadUrl`, valid without an API key until it expires (403 when tampered with or expired).
 * The file is served as an attachment with the sniffed type; browsers are told not to sniff
 * again and not to run it.
 */
export const serveDownloads = (app: Application) => async (ctx: FeathersKoaContext, next: Next) => {
  const match = DOWNLOAD_ROUTE.exec(ctx.path)
  if (!match) return next()
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD')
    throw new MethodNotAllowed(`${ctx.method} is not allowed on a download; use GET`, {
      method: ctx.method,
      allow: ['GET']
    })
  const check = checkDownload(app.get('appSecret'), ctx.path, ctx.query.expires, ctx.query.signature)
  if (check !== 'valid')
    throw new Forbidden(check === 'expired' ? 'The download link has expired' : 'The download link is not valid')
  const parent = UPLOAD_PARENTS.find((p) => p.collection === match[1])!
  const row = await app
    .get('knex')('uploads')
    .where({ id: Number(match[3]), [parent.field]: Number(match[2]) })
    .first()
  if (!row) throw new NotFound('The upload no longer exists')
  const content = await storageOf(app)
    .read(row.storageKey)
    .catch((error) => {
      throw error instanceof FileMissingError ? new NotFound('The file of this upload is gone') : error
    })
  ctx.status = 200
  ctx.set({
    'Content-Disposition': attachmentHeader(row.fileName),
    'Cache-Control': 'private, no-store',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; sandbox"
  })
  ctx.body = content
  ctx.type = row.mimeType
  ctx.length = Number(row.fileSize)
}
