import { createOnly, defineResource, output, patchOnly, writable } from '../../resources/define-resource'
import { Bool, Color, Id, Int32, Str, Timestamp } from '../../resources/types'
import { defaultOrder } from '../../resources/ordering'

/** How an absence counts is fixed at creation (countAsWorkingTime, isAbsenceHourly): absences already booked depend on it. */
export const userAbsenceTypeResource = defineResource({
  path: 'user-absence-types',
  table: 'user_absence_types',
  entity: 'UserAbsenceType',
  idParam: 'userAbsenceTypeId',
  methods: ['find', 'get', 'create', 'patch'],
  fields: {
    id: output(Id()),
    name: writable(Str(255, { minLength: 1 }), { nullable: false }),
    color: writable(Color()),
    needApproval: writable(Bool(), { nullable: false }),
    needCompensation: writable(Bool(), { nullable: false }),
    countAsWorkingTime: createOnly(Bool(), { nullable: false }),
    isAbsenceHourly: createOnly(Bool(), { nullable: false }),
    order: writable(Int32(), { nullable: false }),
    deactivatedAt: patchOnly(Timestamp()),
    createdAt: output(Timestamp()),
    updatedAt: output(Timestamp())
  },
  required: ['name'],
  filters: ['id', 'deactivatedAt'],
  beforeWrite: (write) => defaultOrder(write, 'user_absence_types')
})
