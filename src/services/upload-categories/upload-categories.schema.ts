import { defineResource, patchOnly, writable } from '../../resources/define-resource'
import { Color, IdList, Int32, Nullable, Str, Text, Timestamp } from '../../resources/types'
import { defaultOrder } from '../../resources/ordering'

/**
 * `roleIds` are roles of the company, stored as a JSON list (null or [] clears it);
 * `additionalProperties` is an opaque client string. createdAt/updatedAt are documented extras.
 */
export const uploadCategoryResource = defineResource({
  path: 'upload-categories',
  entity: 'UploadCategory',
  methods: ['find', 'get', 'create', 'patch'],
  fields: {
    name: writable(Str(255, { minLength: 1 }), { nullable: false }),
    color: writable(Color()),
    order: writable(Int32(), { nullable: false }),
    deactivatedAt: patchOnly(Timestamp()),
    roleIds: writable(IdList(), { json: true, nullable: false, writeSchema: Nullable(IdList()) }),
    additionalProperties: writable(Text())
  },
  required: ['name'],
  references: { roleIds: { table: 'roles', many: true } },
  filters: ['id', 'deactivatedAt'],
  beforeWrite: (write) => defaultOrder(write, 'upload_categories'),
  toRow(row, { method }) {
    if (row.roleIds === null || (method === 'create' && row.roleIds === undefined)) row.roleIds = JSON.stringify([])
  }
})
