import { createOnly, defineResource, patchOnly, writable } from '../../resources/define-resource'
import { Bool, Color, Int32, Str, Timestamp } from '../../resources/types'
import { planAbsenceTypeWrite, recomputeAbsencesOfType } from './user-absence-types.rules'

/**
 * How an absence counts is fixed at creation (countAsWorkingTime, isAbsenceHourly): absences
 * already booked depend on it. `needCompensation` may change: the days of the type's approved
 * absences are recomputed with it (user-absence-types.rules.ts).
 */
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
  beforeWrite: planAbsenceTypeWrite,
  afterWrite: recomputeAbsencesOfType
})
