import { defineResource, output } from '../../resources/define-resource'
import { Int32, Str, Timestamp } from '../../resources/types'

/** Read-only lookup, seeded per company (CONTRACT §9). */
export const assignmentEventGroupTypeResource = defineResource({
  path: 'assignment-event-group-types',
  entity: 'AssignmentEventGroupType',
  methods: ['find', 'get'],
  fields: {
    name: output(Str(), { nullable: false }),
    order: output(Int32(), { nullable: false }),
    deactivatedAt: output(Timestamp())
  },
  filters: ['id', 'deactivatedAt', 'createdAt', 'updatedAt']
})
