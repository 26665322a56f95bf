import { createOnly, defineResource, output, patchOnly, writable } from '../../resources/define-resource'
import { Id, Num, Str, Text, Timestamp } from '../../resources/types'
import { roundMinutes, toMinutes } from '../../timesheets/durations'
import { afterTimeEntryRemove, afterTimeEntryWrite, beforeTimeEntryRemove, checkTimeEntry, timeEntryRow } from './time-entries.rules'

const Latitude = () => Num({ minimum: -90, maximum: 90 })
const Longitude = () => Num({ minimum: -180, maximum: 180 })

/**
 * Worked time of a user (CONTRACT §7.2). `duration` is computed from the span minus all pauses
 * and stored exactly as `worked_ms`; `pausedAt` is the start of the current pause.
 */
export const timeEntryResource = defineResource({
  path: 'time-entries',
  table: 'time_entries',
  entity: 'TimeEntry',
  idParam: 'timeEntryId',
  methods: ['find', 'get', 'create', 'patch', 'remove'],
  fields: {
    id: output(Id()),
    typeId: createOnly(Id(), { nullable: false }),
    startsAt: writable(Timestamp(), { nullable: false }),
    endsAt: writable(Timestamp()),
    duration: output(Num({ minimum: 0 }), { stored: false }),
    pausedAt: patchOnly(Timestamp()),
    note: writable(Text()),
    userId: createOnly(Id(), { nullable: false }),
    assignmentId: createOnly(Id()),
    eventId: createOnly(Id()),
    eventTypeId: createOnly(Id()),
    startLatitude: createOnly(Latitude()),
    startLongitude: createOnly(Longitude()),
    startTrackingError: createOnly(Str()),
    endLatitude: writable(Latitude()),
    endLongitude: writable(Longitude()),
    endTrackingError: writable(Str()),
    externalId: writable(Str()),
    createdAt: output(Timestamp()),
    updatedAt: output(Timestamp())
  },
  required: ['userId', 'typeId', 'startsAt'],
  references: {
    userId: { table: 'users', active: true },
    typeId: { table: 'time_entry_types', active: true },
    assignmentId: { table: 'assignments' },
    eventId: { table: 'assignment_events' },
    eventTypeId: { table: 'assignment_event_types', active: true }
  },
  filters: ['id', 'typeId', 'assignmentId', 'eventId', 'eventTypeId', 'userId', 'startsAt', 'endsAt', 'externalId', 'createdAt', 'updatedAt'],
  beforeWrite: checkTimeEntry,
  toRow: timeEntryRow,
  afterWrite: afterTimeEntryWrite,
  async loadVirtual(items) {
    for (const item of items) {
      const ms = item.__row.workedMs
      item.duration = ms === null || ms === undefined ? null : roundMinutes(toMinutes(Number(ms)))
    }
  },
  beforeRemove: beforeTimeEntryRemove,
  afterRemove: afterTimeEntryRemove
})
