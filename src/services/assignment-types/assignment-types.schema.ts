import { defineResource, output } from '../../resources/define-resource'
import { Color, Id, Int32, Str, Timestamp } from '../../resources/types'

/** Read-only lookup, seeded per company (CONTRACT §9). */
export const assignmentTypeResource = defineResource({
  path: 'assignment-types',
  table: 'assignment_types',
  entity: 'AssignmentType',
  idParam: 'assignmentTypeId',
  displayNames: { DE: 'Auftragstyp', IT: 'Tipo ordine' },
  methods: ['find', 'get'],
  fields: {
    id: output(Id()),
    name: output(Str(), { nullable: false }),
    color: output(Color()),
    order: output(Int32(), { nullable: false }),
    deactivatedAt: output(Timestamp()),
    createdAt: output(Timestamp()),
    updatedAt: output(Timestamp())
  },
  filters: ['id', 'deactivatedAt', 'createdAt', 'updatedAt']
})
