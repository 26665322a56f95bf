import { Type } from '@feathersjs/typebox'
import { defineResource, output, patchOnly, writable } from '../../resources/define-resource'
import type { ValidationErrors } from '../../resources/define-resource'
import type { Params } from '../../declarations'
import { Id, Str, Text } from '../../resources/types'
import { sanitizeFileName } from './file-name'
import { downloadPath, downloadUrl } from './download-url'
import { API_PREFIX } from '../../resources/register'
import type { ReceivedFile } from './multipart'
import type { StoredFilesParams } from './stored-files'

/** The record an upload hangs under: its path names it (`/v1/assignments/7/uploads`). */
export interface UploadParent {
  /** Collection of the parent, e.g. `assignments`. */
  collection: string
  table: string
  entity: string
  /** Route parameter and upload column naming the parent. */
  field: 'assignmentId' | 'assignmentEventId'
}

export const UPLOAD_PARENTS: UploadParent[] = [
  { collection: 'assignments', table: 'assignments', entity: 'Assignment', field: 'assignmentId' },
  { collection: 'assignment-events', table: 'assignment_events', entity: 'AssignmentEvent', field: 'assignmentEventId' }
]

/** The service path of a parent's uploads, `v1/assignments/:assignmentId/uploads` (their socket events go on it). */
export const uploadsPath = (parent: UploadParent) => `${API_PREFIX}/${parent.collection}/:${parent.field}/uploads`

export interface UploadParams extends Params, StoredFilesParams {
  /** The file the multipart step stored (create only). */
  upload?: ReceivedFile
  /** The parent the path names, checked to be of the company. */
  uploadParent?: { field: UploadParent['field']; id: number }
  /** Origin of the request, the base of download links when PUBLIC_URL is not set. */
  origin?: string
}

/**
 * An upload's metadata; the bytes live in the file storage under `storage_key`. Create is
 * multipart (file, categoryId, description, additionalProperties); PATCH is JSON. The parent
 * comes from the path, never from the body.
 */
export const uploadResource = defineResource({
  path: 'uploads',
  entity: 'Upload',
  methods: ['find', 'get', 'create', 'patch', 'remove'],
  fields: {
    mimeType: output(Str(), { nullable: false }),
    fileSize: output(Type.Integer({ minimum: 1 }), { nullable: false }),
    fileName: patchOnly(Str(255, { minLength: 1 }), { nullable: false }),
    description: writable(Text()),
    downloadUrl: output(Str(4096, { format: 'uri' }), { stored: false, nullable: false }),
    categoryId: writable(Id()),
    assignmentId: output(Id()),
    assignmentEventId: output(Id()),
    additionalProperties: writable(Text())
  },
  references: { categoryId: { table: 'upload_categories', active: true } },
  filters: ['id', 'categoryId'],
  async beforeWrite({ data }) {
    const errors: ValidationErrors = {}
    if (typeof data.fileName === 'string') {
      data.fileName = sanitizeFileName(data.fileName)
      if (!data.fileName) errors.fileName = 'has no usable characters'
    }
    return errors
  },
  toRow(row, { method, params }) {
    if (method !== 'create') return
    const { upload, uploadParent } = params as UploadParams
    Object.assign(row, {
      fileName: upload!.fileName || 'upload',
      mimeType: upload!.mimeType,
      fileSize: upload!.size,
      storageKey: upload!.key,
      [uploadParent!.field]: uploadParent!.id
    })
  },
  async loadVirtual(items, { app, params }) {
    const { origin, uploadParent } = params as UploadParams
    const parent = UPLOAD_PARENTS.find((p) => p.field === uploadParent!.field)!
    const uploads = `/${API_PREFIX}/${parent.collection}/${uploadParent!.id}/uploads`
    for (const item of items) item.downloadUrl = downloadUrl(app, downloadPath(uploads, item.id), origin)
  },
  /** The stored file goes once the delete has committed. */
  async beforeRemove({ trx, companyId, id, params }) {
    const row = await trx('uploads').where({ companyId, id }).first('storageKey')
    if (row) (params as UploadParams).storedFilesToDelete?.push(String(row.storageKey))
  }
})
