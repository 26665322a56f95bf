import { Type } from '@feathersjs/typebox'
import type { Knex } from 'knex'
import { defineResource, writable, createOnly } from '../../resources/define-resource'
import type { Row, ValidationErrors, WriteContext } from '../../resources/define-resource'
import { nextOrder } from '../../resources/ordering'
import { Bool, Id, IdList, Int32, Nullable, Num, Str, Text, Timestamp } from '../../resources/types'
import { refuseWhenBooked, scheduleUploadFiles } from '../assignments/work-order-rules'
import { AddressLine, EventAddress, resolveAddress, UnresolvedAddress } from './addresses'

/** `true` (keeps an existing timestamp, else now), `false`/null (clears), or an ISO timestamp. */
const CompletionWrite = Type.Unsafe<boolean | string>({
  type: ['boolean', 'string'],
  format: 'date-time',
  description: 'true sets it to now (an existing timestamp is kept), false or null clears it, a timestamp sets it'
})

const ADDRESS_FIELDS = ['addressStartFrom', 'addressDestination', 'addressReturnTo'] as const
const COMPLETION_FIELDS = ['completedAt', 'confirmedAt'] as const

function resolveCompletion(value: unknown, existing: unknown): string | null {
  if (value === true) return typeof existing === 'string' ? existing : new Date().toISOString()
  if (value === false || value === null) return null
  return new Date(value as string).toISOString()
}

/** Whether an address line names the assignment's (or its customer's) address. */
const namesAssignment = (value: unknown) =>
  typeof value === 'string' && ['assignment', 'customer'].includes(value.trim().toLowerCase())

async function resolveAddresses(write: WriteContext, assignmentId: number | undefined, errors: ValidationErrors) {
  for (const field of ADDRESS_FIELDS) {
    if (write.data[field] === undefined) continue
    // Without a valid assignmentId (the schema's 400) there is no assignment to take the address from.
    if (assignmentId === undefined && namesAssignment(write.data[field])) continue
    try {
      write.data[field] = await resolveAddress(write.data[field], {
        trx: write.trx,
        companyId: write.companyId,
        assignmentId
      })
    } catch (error) {
      // Only a keyword without an address is the field's fault; a failing look-up is not.
      if (!(error instanceof UnresolvedAddress)) throw error
      errors[field] = error.message
    }
  }
}

/** Defaults of a new event: the type's name, and after the assignment's last event. */
async function applyDefaults({ data, companyId, trx }: WriteContext) {
  // An invalid or missing typeId or assignmentId is the schema's 400: no default is looked up with it.
  if ((data.name === undefined || data.name === null) && data.typeId !== undefined) {
    data.name = (await trx('assignmentEventTypes').where({ companyId, id: data.typeId }).first('name'))?.name
  }
  if ((data.order === undefined || data.order === null) && data.assignmentId !== undefined) {
    data.order = await nextOrder(trx, 'assignment_events', { companyId, assignmentId: data.assignmentId })
  }
}

async function checkGroup(write: WriteContext, assignmentId: number | undefined, errors: ValidationErrors) {
  const groupId = write.data.groupId
  if (groupId === undefined || groupId === null || assignmentId === undefined) return
  const group = await write
    .trx('assignmentEventGroups')
    .where({ companyId: write.companyId, id: groupId })
    .first('assignmentId')
  if (group && Number(group.assignmentId) !== assignmentId)
    errors.groupId = `must be a group of the event's assignment (${assignmentId})`
}

const JOINS = {
  assignedUsers: { table: 'assignmentEventUsers', column: 'userId' },
  assignedGangs: { table: 'assignmentEventGangs', column: 'gangId' }
} as const

/** Events the user is assigned to, directly or as a member of an assigned gang. */
function whereAssignedTo(builder: Knex.QueryBuilder, userIds: unknown[], companyId: number) {
  builder.where((q) =>
    q
      .whereIn('assignment_events.id', (direct) =>
        direct
          .select('eventId')
          .from('assignmentEventUsers')
          .where({ companyId })
          .whereIn('userId', userIds as number[])
      )
      .orWhereIn('assignment_events.id', (viaGang) =>
        viaGang
          .select('eg.eventId')
          .from('assignmentEventGangs as eg')
          .join('gangUsers as gu', (on) => on.on('gu.gangId', 'eg.gangId').andOn('gu.companyId', 'eg.companyId'))
          .where('eg.companyId', companyId)
          .whereIn('gu.userId', userIds as number[])
      )
  )
}

export const assignmentEventResource = defineResource({
  path: 'assignment-events',
  entity: 'AssignmentEvent',
  displayNames: { DE: 'Arbeitsschritt', IT: 'Fase di lavoro', EN: 'Assignment Event' },
  methods: ['find', 'get', 'create', 'patch', 'remove'],
  fields: {
    // Absent or null on create: the type's name.
    name: writable(Str(255, { minLength: 1 }), {
      nullable: false,
      writeSchema: Nullable(Str(255, { minLength: 1 })),
      patchSchema: Str(255, { minLength: 1 })
    }),
    startsAt: writable(Timestamp()),
    endsAt: writable(Timestamp()),
    plannedEmployeeCount: writable(Type.Integer({ minimum: 0, maximum: 10000 })),
    workDays: writable(Num({ minimum: 0, maximum: 100000 })),
    workingTimePerDay: writable(Num({ minimum: 0, maximum: 24 })),
    manPower: writable(Num({ minimum: 0, maximum: 100000000 })),
    completedAt: writable(Timestamp(), { writeSchema: CompletionWrite }),
    confirmedAt: writable(Timestamp(), { writeSchema: CompletionWrite }),
    note: writable(Text()),
    // Absent or null on create: after the assignment's last event.
    order: writable(Int32(), { nullable: false, writeSchema: Nullable(Int32()), patchSchema: Int32() }),
    // null means false.
    isAllDay: writable(Bool(), { nullable: false, writeSchema: Nullable(Bool()) }),
    isOutward: writable(Bool(), { nullable: false, writeSchema: Nullable(Bool()) }),
    externalId: writable(Str()),
    assignmentId: createOnly(Id(), { nullable: false }),
    typeId: createOnly(Id(), { nullable: false }),
    groupId: writable(Id()),
    // The whole list on each write (null or [] clears it); responses list ids ascending.
    assignedUsers: writable(IdList(), { stored: false, nullable: false, writeSchema: Nullable(IdList()) }),
    assignedGangs: writable(IdList(), { stored: false, nullable: false, writeSchema: Nullable(IdList()) }),
    addressStartFrom: writable(EventAddress, { json: true, writeSchema: AddressLine }),
    addressDestination: writable(EventAddress, { json: true, writeSchema: AddressLine }),
    addressReturnTo: writable(EventAddress, { json: true, writeSchema: AddressLine })
  },
  required: ['assignmentId', 'typeId'],
  references: {
    assignmentId: { table: 'assignments' },
    typeId: { table: 'assignment_event_types', active: true },
    groupId: { table: 'assignment_event_groups' },
    assignedUsers: { table: 'users', many: true, active: true },
    assignedGangs: { table: 'gangs', many: true, active: true }
  },
  filters: [
    'id',
    'assignmentId',
    'typeId',
    'groupId',
    'name',
    'startsAt',
    'endsAt',
    'completedAt',
    'confirmedAt',
    'isAllDay',
    'isOutward',
    'externalId',
    'createdAt',
    'updatedAt'
  ],
  extraFilters: {
    assignedUserId: {
      schema: Id(),
      apply: (builder, userIds, params) => whereAssignedTo(builder, userIds, params.company!.id)
    }
  },
  async beforeWrite(write) {
    const { data, existing, method } = write
    const errors: ValidationErrors = {}
    // Undefined when the body's assignmentId is invalid or missing (the schema reports it).
    const stored = existing?.assignmentId ?? data.assignmentId
    const assignmentId = stored === undefined ? undefined : Number(stored)
    if (method === 'create') await applyDefaults(write)
    for (const flag of ['isAllDay', 'isOutward'])
      if (data[flag] === null || (method === 'create' && data[flag] === undefined)) data[flag] = false
    for (const field of COMPLETION_FIELDS)
      if (data[field] !== undefined) data[field] = resolveCompletion(data[field], existing?.[field])
    const startsAt = data.startsAt !== undefined ? data.startsAt : existing?.startsAt
    const endsAt = data.endsAt !== undefined ? data.endsAt : existing?.endsAt
    if (startsAt && endsAt && Date.parse(endsAt) < Date.parse(startsAt))
      Object.assign(
        errors,
        data.endsAt !== undefined ? { endsAt: 'must not be before startsAt' } : { startsAt: 'must not be after endsAt' }
      )
    await checkGroup(write, assignmentId, errors)
    await resolveAddresses(write, assignmentId, errors)
    return errors
  },
  async afterWrite(eventId, { data, companyId, trx }) {
    for (const [field, join] of Object.entries(JOINS)) {
      if (data[field] === undefined) continue
      await trx(join.table).where({ companyId, eventId }).delete()
      const ids: number[] = data[field] ?? []
      if (ids.length > 0) await trx(join.table).insert(ids.map((id) => ({ companyId, eventId, [join.column]: id })))
    }
  },
  /** Both join tables for the whole page in one query. */
  async loadVirtual(items, { db: trx, companyId }) {
    const eventIds = items.map((item) => item.id)
    const rows: Row[] = await trx('assignmentEventUsers')
      .select('eventId', trx.raw("'assignedUsers' as field"), 'userId as refId')
      .where({ companyId })
      .whereIn('eventId', eventIds)
      .unionAll((q) =>
        q
          .select('eventId', trx.raw("'assignedGangs' as field"), 'gangId as refId')
          .from('assignmentEventGangs')
          .where({ companyId })
          .whereIn('eventId', eventIds)
      )
    const byEvent = new Map<number, Row>(items.map((item) => [item.id, item]))
    for (const item of items) Object.assign(item, { assignedUsers: [], assignedGangs: [] })
    for (const row of rows) byEvent.get(Number(row.eventId))?.[row.field].push(Number(row.refId))
    for (const item of items) for (const field of Object.keys(JOINS)) item[field].sort((a: number, b: number) => a - b)
  },
  /** Its uploads go with it (FK cascade; logged as removed); files after commit. Booked time → 409. */
  async beforeRemove(remove) {
    const eventId = remove.id
    await refuseWhenBooked(remove, (q) => q.where({ eventId }), 'assignment event')
    await scheduleUploadFiles(remove, (q) => q.where({ assignmentEventId: eventId }))
  }
})
