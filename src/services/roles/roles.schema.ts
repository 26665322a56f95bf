import { defineResource, output } from '../../resources/define-resource'
import { Enum, Id, Int32, Str, Timestamp } from '../../resources/types'
import { ROLE_TYPES } from '../../companies/catalogues'

/** The company's user roles: seeded at company creation, read-only (CONTRACT §6). */
export const roleResource = defineResource({
  path: 'roles',
  table: 'roles',
  entity: 'Role',
  idParam: 'roleId',
  displayNames: { DE: 'Benutzerrolle', IT: 'Ruolo utente', EN: 'User role' },
  methods: ['find', 'get'],
  fields: {
    id: output(Id()),
    name: output(Str(), { nullable: false }),
    type: output(Enum(ROLE_TYPES), { nullable: false }),
    order: output(Int32(), { nullable: false }),
    createdAt: output(Timestamp()),
    updatedAt: output(Timestamp())
  },
  filters: ['id', 'type']
})
