import { createOnly, defineResource, output, writable } from '../../resources/define-resource'
import { Enum, Id, Num, Str, Text, Timestamp } from '../../resources/types'
import { ABSENCE_STATUSES } from '../../timesheets/absences'
import {
  afterAbsenceRemove,
  afterAbsenceWrite,
  beforeAbsenceRemove,
  checkAbsence,
  loadWorkDays
} from './user-absences.rules'

/**
 * Absences of a user (CONTRACT §7.3). `status` is derived from the decision timestamps on every
 * write and stored so that lists can filter it; `workDays` follows the company's working-time model.
 */
export const userAbsenceResource = defineResource({
  path: 'user-absences',
  entity: 'UserAbsence',
  methods: ['find', 'get', 'create', 'patch', 'remove'],
  fields: {
    typeId: createOnly(Id(), { nullable: false }),
    userId: createOnly(Id(), { nullable: false }),
    startsAt: writable(Timestamp(), { nullable: false }),
    endsAt: writable(Timestamp(), { nullable: false }),
    requestedAt: writable(Timestamp()),
    approvedAt: writable(Timestamp()),
    noteForApproval: writable(Text()),
    needApprovalById: writable(Id()),
    declinedAt: writable(Timestamp()),
    declinedNote: writable(Text()),
    declinedById: writable(Id()),
    compensationApprovedAt: writable(Timestamp()),
    compensationDeclinedAt: writable(Timestamp()),
    compensatedById: writable(Id()),
    workDays: output(Num({ minimum: 0 }), { stored: false, nullable: false }),
    status: output(Enum(ABSENCE_STATUSES), { nullable: false }),
    externalId: writable(Str())
  },
  required: ['typeId', 'userId', 'startsAt', 'endsAt'],
  references: {
    userId: { table: 'users', active: true, lock: true },
    typeId: { table: 'user_absence_types', active: true },
    needApprovalById: { table: 'users' },
    declinedById: { table: 'users' },
    compensatedById: { table: 'users' }
  },
  filters: [
    'id',
    'userId',
    'typeId',
    'needApprovalById',
    'declinedById',
    'compensatedById',
    'startsAt',
    'endsAt',
    'requestedAt',
    'approvedAt',
    'declinedAt',
    'status',
    'externalId',
    'createdAt',
    'updatedAt'
  ],
  beforeWrite: checkAbsence,
  afterWrite: afterAbsenceWrite,
  loadVirtual: loadWorkDays,
  beforeRemove: beforeAbsenceRemove,
  afterRemove: afterAbsenceRemove
})
