import { createOnly, defineResource, patchOnly, writable } from '../../resources/define-resource'
import { Bool, Id, Int32, Str, Timestamp } from '../../resources/types'
import { defaultOrder } from '../../resources/ordering'

/** An `isUnassigned` type books time outside any assignment, so it has no event type. */
export const timeEntryTypeResource = defineResource({
  path: 'time-entry-types',
  entity: 'TimeEntryType',
  methods: ['find', 'get', 'create', 'patch'],
  fields: {
    name: writable(Str(255, { minLength: 1 }), { nullable: false }),
    isUnassigned: createOnly(Bool(), { nullable: false }),
    eventTypeId: createOnly(Id()),
    order: writable(Int32(), { nullable: false }),
    deactivatedAt: patchOnly(Timestamp()),
    externalId: writable(Str())
  },
  required: ['name'],
  references: { eventTypeId: { table: 'assignment_event_types', active: true } },
  filters: [
    'id',
    'eventTypeId',
    'name',
    'isUnassigned',
    'deactivatedAt',
    'order',
    'externalId',
    'createdAt',
    'updatedAt'
  ],
  async beforeWrite(write) {
    await defaultOrder(write, 'time_entry_types')
    const { isUnassigned, eventTypeId } = write.data
    if (isUnassigned && eventTypeId !== undefined && eventTypeId !== null) {
      return { eventTypeId: 'must be empty for an isUnassigned type' }
    }
  }
})
