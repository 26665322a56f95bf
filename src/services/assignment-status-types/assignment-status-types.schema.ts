import { defineResource, output } from '../../resources/define-resource'
import { Enum, Int32, Str, Timestamp } from '../../resources/types'
import { STATUS_CATEGORIES } from '../../companies/catalogues'

/** Read-only lookup, seeded per company (CONTRACT §9); `category` tells what a status means. */
export const assignmentStatusTypeResource = defineResource({
  path: 'assignment-status-types',
  entity: 'AssignmentStatusType',
  displayNames: { DE: 'Auftragsstatus', IT: 'Stato ordine' },
  methods: ['find', 'get'],
  fields: {
    name: output(Str(), { nullable: false }),
    order: output(Int32(), { nullable: false }),
    category: output(Enum(STATUS_CATEGORIES), { nullable: false }),
    deactivatedAt: output(Timestamp())
  },
  filters: ['id', 'deactivatedAt', 'createdAt', 'updatedAt']
})
