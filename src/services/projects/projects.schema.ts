import { defineResource, writable } from '../../resources/define-resource'
import { Str } from '../../resources/types'

/** `number` is unique in the company: the unique index answers 409 naming it (CONTRACT §6). */
export const projectResource = defineResource({
  path: 'projects',
  entity: 'Project',
  methods: ['find', 'get', 'create', 'patch', 'remove'],
  fields: {
    number: writable(Str(255, { minLength: 1 }), { nullable: false }),
    externalId: writable(Str())
  },
  required: ['number'],
  filters: ['id', 'number', 'externalId', 'createdAt', 'updatedAt']
})
