import { defineResource, output } from '../../resources/define-resource'
import { Color, Int32, Str, Timestamp } from '../../resources/types'

/** Read-only lookup, seeded per company (CONTRACT §9). */
export const assignmentTypeResource = defineResource({
  path: 'assignment-types',
  entity: 'AssignmentType',
  displayNames: { DE: 'Auftragstyp', IT: 'Tipo ordine' },
  methods: ['find', 'get'],
  fields: {
    name: output(Str(), { nullable: false }),
    color: output(Color()),
    order: output(Int32(), { nullable: false }),
    deactivatedAt: output(Timestamp())
  },
  filters: ['id', 'deactivatedAt', 'createdAt', 'updatedAt']
})
