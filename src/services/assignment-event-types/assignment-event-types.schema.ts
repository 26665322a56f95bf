import { defineResource, output } from '../../resources/define-resource'
import { Color, Int32, Str, Timestamp } from '../../resources/types'

/** Read-only lookup, seeded per company (CONTRACT §9: work and travel). */
export const assignmentEventTypeResource = defineResource({
  path: 'assignment-event-types',
  entity: 'AssignmentEventType',
  methods: ['find', 'get'],
  fields: {
    name: output(Str(), { nullable: false }),
    shortName: output(Str()),
    color: output(Color()),
    order: output(Int32(), { nullable: false }),
    deactivatedAt: output(Timestamp())
  },
  filters: ['id', 'name', 'deactivatedAt', 'createdAt', 'updatedAt']
})
