import { Type } from '@feathersjs/typebox'
import { createOnly, defineResource, output, patchOnly, writable, writeOnly } from '../../resources/define-resource'
import { Id, Nullable, Num, Str, Text, Timestamp } from '../../resources/types'
import { minutesOf } from '../../timesheets/durations'
import {
  afterTimeEntryRemove,
  afterTimeEntryWrite,
  beforeTimeEntryRemove,
  checkTimeEntry,
  loadPauses,
  pausesColumn,
  timeEntryRow
} from './time-entries.rules'

const Latitude = () => Num({ minimum: -90, maximum: 90 })
const Longitude = () => Num({ minimum: -180, maximum: 180 })

/** A pause of an entry (CONTRACT §11.4); `endsAt` null is the open pause. */
const Pause = Type.Object(
  { startsAt: Timestamp(), endsAt: Nullable(Timestamp()) },
  { additionalProperties: false, title: 'TimeEntryPause' }
)
const PauseWrite = Type.Object(
  { startsAt: Timestamp(), endsAt: Type.Optional(Nullable(Timestamp())) },
  { additionalProperties: false, title: 'TimeEntryPauseInput' }
)
const Pauses = Type.Array(Pause, { maxItems: 100 })

/**
 * Worked time of a user (CONTRACT §7.2). `duration` is computed from the span minus all pauses
 * and stored exactly as `worked_ms`; `pausedAt` is the start of the open pause. `pauses` lists the
 * closed pauses (rows of time_entry_pauses) in order, then the open one (CONTRACT §11.4).
 */
export const timeEntryResource = defineResource({
  path: 'time-entries',
  entity: 'TimeEntry',
  methods: ['find', 'get', 'create', 'patch', 'remove'],
  fields: {
    typeId: createOnly(Id(), { nullable: false }),
    startsAt: writable(Timestamp(), { nullable: false }),
    endsAt: writable(Timestamp()),
    duration: output(Num({ minimum: 0 }), { stored: false }),
    pausedAt: patchOnly(Timestamp()),
    // The whole list on each write (null or [] clears it), in any order; stored and returned sorted.
    pauses: writable(Pauses, {
      stored: false,
      nullable: false,
      writeSchema: Nullable(Type.Array(PauseWrite, { maxItems: 100 }))
    }),
    // With `pausedAt: null`: when the open pause ended (default: now).
    resumedAt: writeOnly(Timestamp(), { stored: false, create: false }),
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
    externalId: writable(Str())
  },
  required: ['userId', 'typeId', 'startsAt'],
  references: {
    userId: { table: 'users', active: true, lock: true },
    typeId: { table: 'time_entry_types', active: true },
    assignmentId: { table: 'assignments' },
    eventId: { table: 'assignment_events' },
    eventTypeId: { table: 'assignment_event_types', active: true }
  },
  filters: [
    'id',
    'typeId',
    'assignmentId',
    'eventId',
    'eventTypeId',
    'userId',
    'startsAt',
    'endsAt',
    'externalId',
    'createdAt',
    'updatedAt'
  ],
  beforeWrite: checkTimeEntry,
  toRow: timeEntryRow,
  afterWrite: afterTimeEntryWrite,
  async loadVirtual(items, read) {
    items.forEach((item, i) => (item.duration = minutesOf(read.rows[i].workedMs)))
    await loadPauses(items, read)
  },
  readColumns: (db, table) => [pausesColumn(db, table)],
  beforeRemove: beforeTimeEntryRemove,
  afterRemove: afterTimeEntryRemove
})
