import type { Application, NextFunction } from '../../declarations'
import { registerResource } from '../../resources/register'
import { uploadResource, UPLOAD_PARENTS } from './uploads.schema'
import { UploadService } from './uploads.class'
import { discardUploadOnFailure, resolveParent, validateUploadBody } from './uploads.hooks'
import { receiveMultipart } from './multipart'
import { deleteStoredFilesAfterCommit } from './stored-files'
import { serveDownloads } from './download'
import { removeIncompleteWrites } from '../../storage'
import { uploadOperations } from './uploads.openapi'

/**
 * Uploads under `/v1/assignments/:assignmentId/uploads` and
 * `/v1/assignment-events/:assignmentEventId/uploads`, and the signed download route.
 */
export const uploads = (app: Application) => {
  for (const parent of UPLOAD_PARENTS) {
    registerResource(app, uploadResource, {
      path: `${parent.collection}/:${parent.field}/uploads`,
      service: new UploadService(uploadResource, app.get('knex'), app.get('dialect'), parent),
      koa: { before: [receiveMultipart(app, parent.collection)] },
      // Uploads are part of their parent: its scope (`assignments:write` to upload) covers them, and
      // a create refused anywhere, the key check included, removes the file the multipart step stored.
      outer: [discardUploadOnFailure],
      around: [deleteStoredFilesAfterCommit],
      resolve: [resolveParent(parent)],
      validateData: validateUploadBody,
      // Described without create: the contribution describes the multipart POST instead.
      described: { ...uploadResource, methods: uploadResource.methods.filter((m) => m !== 'create') },
      operations: (tools, registered) => uploadOperations(tools, parent, registered.path)
    })
  }
  app.use(serveDownloads(app))
  // Files of uploads cut off by a crash are never referenced by a row: clear them at start.
  app.hooks({
    setup: [
      async (_context: unknown, next: NextFunction) => {
        await next()
        await removeIncompleteWrites(app)
      }
    ]
  })
}
