import type { Application } from '../../declarations'
import { API_PREFIX } from '../../resources/register'
import { RegisteredResource, registryOf } from '../../resources/registry'
import { registerSpecRoute } from '../../resources/describe'
import { buildQuerySchema } from '../../resources/query'
import { mapDatabaseErrors } from '../../resources/errors'
import { noContentOnRemove, parsePathId, requireApiKey, requireScope, validateQuery } from '../../resources/hooks'
import { uploadResource, UPLOAD_PARENTS } from './uploads.schema'
import { UploadService } from './uploads.class'
import { discardUploadOnFailure, resolveParent, validateUploadBody } from './uploads.hooks'
import { receiveMultipart } from './multipart'
import { deleteStoredFilesAfterCommit } from './stored-files'
import { serveDownloads } from './download'
import { removeIncompleteWrites } from '../../storage'
import { uploadOperations } from './uploads.openapi'
import { collectionOf } from '../../resources/openapi'

/**
 * Uploads under `/v1/assignments/:assignmentId/uploads` and
 * `/v1/assignment-events/:assignmentEventId/uploads`, and the signed download route.
 */
export const uploads = (app: Application) => {
  const querySchema = buildQuerySchema(uploadResource)
  for (const parent of UPLOAD_PARENTS) {
    const path = `${API_PREFIX}/${parent.collection}/:${parent.field}/uploads`
    const service = new UploadService(uploadResource, app.get('knex' as any), app.get('dbClient'), parent)
    app.use(path, service, { methods: uploadResource.methods, events: [], koa: { before: [receiveMultipart(app, parent.collection)] } })
    app.service(path).hooks({
      // Uploads are part of their parent: its scope (`assignments:write` to upload) covers them.
      around: { all: [discardUploadOnFailure, mapDatabaseErrors, requireApiKey, requireScope(parent.collection), deleteStoredFilesAfterCommit] },
      before: { all: [parsePathId(uploadResource), resolveParent(parent), validateQuery(uploadResource, querySchema), validateUploadBody] },
      after: { remove: [noContentOnRemove] }
    })
    // Described without create: the contribution describes the multipart POST instead.
    const described = { ...uploadResource, methods: uploadResource.methods.filter((m) => m !== 'create') }
    const registered: RegisteredResource = { resource: described, path, querySchema }
    const registry = registryOf(app)
    registry.resources.push(registered)
    registry.contributions.push({ collection: collectionOf(path), paths: (tools) => uploadOperations(tools, parent, path) })
    registerSpecRoute(app, collectionOf(path))
  }
  app.use(serveDownloads(app))
  // Files of uploads cut off by a crash are never referenced by a row: clear them at start.
  app.hooks({
    setup: [
      async (_context: any, next: any) => {
        await next()
        await removeIncompleteWrites(app)
      }
    ]
  })
}
