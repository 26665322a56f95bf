import { createOnly, defineResource, patchOnly, writable } from '../../resources/define-resource'
import { Bool, Color, Int32, Str, Timestamp } from '../../resources/types'
import { defaultOrder } from '../../resources/ordering'

/** How an absence counts is fixed at creation (countAsWorkingTime, isAbsenceHourly): absences already booked depend on it. */
export const userAbsenceTypeResource = defineResource({
  path: 'user-absence-types',
  entity: 'UserAbsenceType',
  methods: ['find', 'get', 'create', 'patch'],
  fields: {
    name: writable(Str(255, { minLength: 1 }), { nullable: false }),
    color: writable(Color()),
    needApproval: writable(Bool(), { nullable: false }),
    needCompensation: writable(Bool(), { nullable: false }),
    countAsWorkingTime: createOnly(Bool(), { nullable: false }),
    isAbsenceHourly: createOnly(Bool(), { nullable: false }),
    order: writable(Int32(), { nullable: false }),
    deactivatedAt: patchOnly(Timestamp())
  },
  required: ['name'],
  filters: ['id', 'deactivatedAt'],
  beforeWrite: (write) => defaultOrder(write, 'user_absence_types')
})
