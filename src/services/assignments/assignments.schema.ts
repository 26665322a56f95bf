import type { Knex } from 'knex'
import { defineResource, writable } from '../../resources/define-resource'
import type { ValidationErrors } from '../../resources/define-resource'
import { Address, AddressWrite, Color, Id, Nullable, Str, Text } from '../../resources/types'
import { defaultFromCatalogue, logCascade, refuseWhenBooked, scheduleUploadFiles } from './work-order-rules'

/**
 * The next free number of the company's sequence. The upsert locks the counter row until the
 * transaction ends, so concurrent creates draw distinct numbers; numbers a client already gave
 * an assignment by hand are skipped.
 */
export async function nextAssignmentNumber(trx: Knex, companyId: number): Promise<string> {
  for (;;) {
    const [row] = await trx('assignmentNumberSequences')
      .insert({ companyId, lastNumber: 1 })
      .onConflict('companyId')
      .merge({ lastNumber: trx.raw('?? + 1', ['assignment_number_sequences.last_number']) })
      .returning('lastNumber')
    const number = String(row.lastNumber)
    if (!(await trx('assignments').where({ companyId, number }).first('id'))) return number
  }
}

export const assignmentResource = defineResource({
  path: 'assignments',
  entity: 'Assignment',
  displayNames: { DE: 'Auftrag', IT: 'Ordine', EN: 'Assignment' },
  methods: ['find', 'get', 'create', 'patch', 'remove'],
  fields: {
    number: writable(Str()),
    name: writable(Str(255, { minLength: 1 }), { nullable: false }),
    comment: writable(Text()),
    notesBackOffice: writable(Text()),
    color: writable(Color()),
    address: writable(Address, { json: true, writeSchema: AddressWrite }),
    customerId: writable(Id(), { nullable: false }),
    projectId: writable(Id()),
    // Absent or null on create: the company's first active type/status (CONTRACT §5).
    typeId: writable(Id(), { nullable: false, writeSchema: Nullable(Id()), patchSchema: Id() }),
    responsibleUserId: writable(Id()),
    statusId: writable(Id(), { nullable: false, writeSchema: Nullable(Id()), patchSchema: Id() }),
    externalId: writable(Str())
  },
  required: ['name', 'customerId'],
  references: {
    customerId: { table: 'customers' },
    projectId: { table: 'projects' },
    typeId: { table: 'assignment_types', active: true },
    statusId: { table: 'assignment_status_types', active: true },
    responsibleUserId: { table: 'users', active: true }
  },
  filters: [
    'id',
    'customerId',
    'projectId',
    'typeId',
    'responsibleUserId',
    'statusId',
    'name',
    'number',
    'externalId',
    'createdAt',
    'updatedAt'
  ],
  async beforeWrite(write) {
    const errors: ValidationErrors = {}
    await defaultFromCatalogue(write, 'typeId', 'assignment_types', errors)
    await defaultFromCatalogue(write, 'statusId', 'assignment_status_types', errors)
    if (write.method === 'create' && (write.data.number === undefined || write.data.number === null)) {
      write.data.number = await nextAssignmentNumber(write.trx, write.companyId)
    }
    return errors
  },
  /**
   * Events, groups and uploads go with the assignment (FK cascade): each is logged as removed, as it
   * was before (uploads, events, groups, then the assignment); their files after commit.
   */
  async beforeRemove(remove) {
    const assignmentId = remove.id
    const events = remove.trx('assignmentEvents').where({ assignmentId }).select('id')
    await refuseWhenBooked(remove, (q) => q.where({ assignmentId }).orWhereIn('eventId', events.clone()), 'assignment')
    await scheduleUploadFiles(remove, (q) => q.where({ assignmentId }).orWhereIn('assignmentEventId', events.clone()))
    await logCascade(remove, 'v1/assignment-events', 'assignment_events', { assignmentId })
    await logCascade(remove, 'v1/assignment-event-groups', 'assignment_event_groups', { assignmentId })
  }
})
