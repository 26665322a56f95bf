import { defineResource, output } from '../../resources/define-resource'
import { Enum, Int32, Str } from '../../resources/types'
import { ROLE_TYPES } from '../../companies/catalogues'

/** The company's user roles: seeded at company creation, read-only (CONTRACT §6). */
export const roleResource = defineResource({
  path: 'roles',
  entity: 'Role',
  displayNames: { DE: 'Benutzerrolle', IT: 'Ruolo utente', EN: 'User role' },
  methods: ['find', 'get'],
  fields: {
    name: output(Str(), { nullable: false }),
    type: output(Enum(ROLE_TYPES), { nullable: false }),
    order: output(Int32(), { nullable: false })
  },
  filters: ['id', 'type']
})
