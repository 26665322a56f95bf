import { defineResource, output, writable } from '../../resources/define-resource'
import { Id, Str, Timestamp } from '../../resources/types'

/** `number` is unique in the company: the unique index answers 409 naming it (CONTRACT §6). */
export const projectResource = defineResource({
  path: 'projects',
  table: 'projects',
  entity: 'Project',
  idParam: 'projectId',
  methods: ['find', 'get', 'create', 'patch', 'remove'],
  fields: {
    id: output(Id()),
    number: writable(Str(255, { minLength: 1 }), { nullable: false }),
    externalId: writable(Str()),
    createdAt: output(Timestamp()),
    updatedAt: output(Timestamp())
  },
  required: ['number'],
  filters: ['id', 'number', 'externalId', 'createdAt', 'updatedAt']
})
