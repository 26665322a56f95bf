import { defineResource, output } from '../../resources/define-resource'
import { Id, Int32, Str, Timestamp } from '../../resources/types'

/** Read-only lookup, seeded per company (CONTRACT §9). */
export const assignmentEventGroupTypeResource = defineResource({
  path: 'assignment-event-group-types',
  table: 'assignment_event_group_types',
  entity: 'AssignmentEventGroupType',
  idParam: 'assignmentEventGroupTypeId',
  methods: ['find', 'get'],
  fields: {
    id: output(Id()),
    name: output(Str(), { nullable: false }),
    order: output(Int32(), { nullable: false }),
    deactivatedAt: output(Timestamp()),
    createdAt: output(Timestamp()),
    updatedAt: output(Timestamp())
  },
  filters: ['id', 'deactivatedAt', 'createdAt', 'updatedAt']
})
