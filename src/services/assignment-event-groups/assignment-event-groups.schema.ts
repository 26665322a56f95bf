import { defineResource, writable, createOnly } from '../../resources/define-resource'
import type { ValidationErrors } from '../../resources/define-resource'
import { nextOrder } from '../../resources/ordering'
import { Id, Int32, Nullable, Str, Text } from '../../resources/types'
import { defaultFromCatalogue } from '../assignments/work-order-rules'
import { journalOf } from '../../events/journal'

export const assignmentEventGroupResource = defineResource({
  path: 'assignment-event-groups',
  entity: 'AssignmentEventGroup',
  displayNames: { DE: 'Arbeitsschrittgruppe', IT: 'Gruppo', EN: 'Assignment Event Group' },
  methods: ['find', 'get', 'create', 'patch', 'remove'],
  fields: {
    note: writable(Text()),
    // Absent or null on create: after the assignment's last group.
    order: writable(Int32(), { nullable: false, writeSchema: Nullable(Int32()), patchSchema: Int32() }),
    // Absent or null on create: the company's first active group type.
    typeId: writable(Id(), { nullable: false, writeSchema: Nullable(Id()), patchSchema: Id() }),
    assignmentId: createOnly(Id(), { nullable: false }),
    externalId: writable(Str())
  },
  required: ['assignmentId'],
  references: {
    assignmentId: { table: 'assignments' },
    typeId: { table: 'assignment_event_group_types', active: true }
  },
  filters: ['id', 'typeId', 'assignmentId', 'externalId', 'createdAt', 'updatedAt'],
  async beforeWrite(write) {
    const errors: ValidationErrors = {}
    await defaultFromCatalogue(write, 'typeId', 'assignment_event_group_types', errors)
    const { data, method, companyId, trx } = write
    // An invalid or missing assignmentId is the schema's 400: no order is looked up with it.
    if (method === 'create' && (data.order === undefined || data.order === null) && data.assignmentId !== undefined) {
      data.order = await nextOrder(trx, 'assignment_event_groups', { companyId, assignmentId: data.assignmentId })
    }
    return errors
  },
  /** Its events stay, ungrouped (the FK would null them too; this also marks them changed and logs them). */
  async beforeRemove({ trx, companyId, id: groupId, params }) {
    const events: { id: number }[] = await trx('assignmentEvents').where({ companyId, groupId }).select('id')
    await trx('assignmentEvents')
      .where({ companyId, groupId })
      .update({ groupId: null, updatedAt: new Date().toISOString() })
    journalOf(params).touch(
      'v1/assignment-events',
      'patched',
      events.map((event) => Number(event.id))
    )
  }
})
