import { NotFound } from '@feathersjs/errors'
import type { Knex } from 'knex'
import type { HookContext, NextFunction } from '../../declarations'
import type { Row } from '../../resources/define-resource'
import { filterKind } from '../../resources/query'
import { checkBody, pathId } from '../../resources/validation'
import type { BodyErrorsSlot } from '../../resources/validation'
import { validateData } from '../../resources/hooks'
import { storageOf } from '../../storage'
import { uploadResource, UploadParams, UploadParent } from './uploads.schema'

/**
 * The parent in the path (`:assignmentId` arrives as a string in `params.route`) must be an
 * int32 id (400) of a record of the caller's company (404).
 */
export const resolveParent = (parent: UploadParent) => async (context: HookContext) => {
  // The service re-reads a written record through its own hooked `get`, inside the write's transaction.
  if ((context.params as UploadParams).uploadParent) return
  const id = pathId(context.params.route?.[parent.field], parent.field)
  const db: Knex = context.params.transaction?.trx ?? context.app.get('knex')
  const found = await db(parent.table).where({ companyId: context.params.company!.id, id }).first('id')
  if (!found) throw new NotFound(`No ${parent.entity} with id ${id}`)
  ;(context.params as UploadParams).uploadParent = { field: parent.field, id }
}

/** Multipart text fields arrive as strings: integer fields are read as integers ('' = not set). */
function typedFields(fields: Row): Row {
  const data: Row = {}
  for (const [key, value] of Object.entries(fields ?? {})) {
    const spec = Object.hasOwn(uploadResource.fields, key) ? uploadResource.fields[key] : undefined
    const numeric = spec && filterKind(spec.schema) === 'number' && typeof value === 'string'
    if (numeric && value.trim() === '') data[key] = null
    else data[key] = numeric && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value
  }
  return data
}

/** Create: the stored file plus the multipart fields; PATCH: the JSON body. */
export const validateUploadBody = async (context: HookContext) => {
  if (context.method !== 'create') return validateData(uploadResource)(context)
  const { upload } = context.params as UploadParams
  const fields = typedFields(context.data as Row)
  // Like validateData: the fields that passed go on to the service, which adds the reference errors
  // to these (and the file's) and answers one 400 with all of them; nothing is stored then.
  const { data, errors } = checkBody(uploadResource, 'create', fields)
  const file =
    'file' in fields
      ? 'must be a file part, not a text field'
      : !upload
        ? 'is required: send multipart/form-data with the file in the part named "file"'
        : upload.size === 0
          ? 'must not be empty'
          : undefined
  if (file) errors.file = file
  context.data = data
  ;(context.params as BodyErrorsSlot).invalidFields = Object.keys(errors).length > 0 ? errors : undefined
}

/** A create that fails after the multipart step stored the file removes the file again. */
export const discardUploadOnFailure = async (context: HookContext, next: NextFunction) => {
  try {
    await next()
  } catch (error) {
    const key = (context.params as UploadParams).upload?.key
    if (context.method === 'create' && key) await storageOf(context.app).remove(key)
    throw error
  }
}
