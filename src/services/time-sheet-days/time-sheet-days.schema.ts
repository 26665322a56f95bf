import { createOnly, defineResource, output, writable } from '../../resources/define-resource'
import { DateString, Enum, Id, Num, Str, Text, Timestamp } from '../../resources/types'
import { BREAK_ERROR_TYPES } from '../../timesheets/day-figures'
import { SHEET_STATUSES } from '../../timesheets/workflow'
import { afterTimeSheetDayWrite, checkTimeSheetDay, loadDayFigures, timeSheetDayRow } from './time-sheet-days.rules'

/** Minutes as responses carry them (computed figures are not bounded) and as writes take them (CONTRACT §3.3). */
const Minutes = () => Num()
const MinutesWrite = () => Num({ minimum: 0, maximum: 1440 })

/**
 * One user's calendar day (CONTRACT §7.4): figures computed from the user's entries and approved
 * absences, manual overrides on top, and the approval workflow. The figures are kept in exact
 * milliseconds and filled in by `loadDayFigures`; overrides are written to their own columns.
 */
export const timeSheetDayResource = defineResource({
  path: 'time-sheet-days',
  entity: 'TimeSheetDay',
  methods: ['find', 'get', 'create', 'patch'],
  fields: {
    userId: createOnly(Id(), { nullable: false }),
    day: createOnly(DateString(), { nullable: false }),
    status: writable(Enum(SHEET_STATUSES), { nullable: false }),
    note: writable(Text()),
    declinedNote: writable(Text()),
    startsAt: writable(Timestamp(), { stored: false }),
    endsAt: writable(Timestamp(), { stored: false }),
    breakTime: writable(Minutes(), { stored: false, writeSchema: MinutesWrite() }),
    duration: writable(Minutes(), { stored: false, writeSchema: MinutesWrite() }),
    expectedDuration: output(Minutes(), { stored: false }),
    breakTimeErrorType: output(Enum(BREAK_ERROR_TYPES)),
    breakTimeErrorExpected: output(Minutes(), { stored: false }),
    breakTimeErrorValue: output(Minutes(), { stored: false }),
    breakTimeErrorDurationMin: output(Minutes(), { stored: false }),
    durationErrorExpected: output(Minutes(), { stored: false }),
    durationErrorValue: output(Minutes(), { stored: false }),
    submittedAt: output(Timestamp()),
    submittedFirstAt: output(Timestamp()),
    approvedAt: output(Timestamp()),
    approvedById: output(Id()),
    declinedAt: output(Timestamp()),
    declinedById: output(Id()),
    manipulatedAt: output(Timestamp()),
    manipulatedById: output(Id()),
    externalId: writable(Str())
  },
  required: ['userId', 'day'],
  references: { userId: { table: 'users' } },
  filters: ['id', 'userId', 'day', 'status', 'submittedAt', 'approvedAt', 'externalId', 'createdAt', 'updatedAt'],
  beforeWrite: checkTimeSheetDay,
  toRow: timeSheetDayRow,
  afterWrite: afterTimeSheetDayWrite,
  loadVirtual: loadDayFigures
})
