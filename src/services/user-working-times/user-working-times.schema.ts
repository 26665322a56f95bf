import { Type, TInteger } from '@feathersjs/typebox'
import { defineResource, createOnly, writable } from '../../resources/define-resource'
import { DateString, DayMinutes, Id, Str, Text } from '../../resources/types'
import { SHORT_WEEKDAYS, ShortWeekday } from '../../timesheets/schedule'
import {
  afterVersionRemove,
  afterVersionWrite,
  beforeVersionRemove,
  checkVersionWrite
} from './user-working-times.rules'

/** The seven weekdays' target minutes, all required: a PATCH of `targets` replaces the whole week (CONTRACT §11.6). */
export const WeeklyTargets = Type.Object(
  Object.fromEntries(SHORT_WEEKDAYS.map((day) => [day, DayMinutes()])) as Record<ShortWeekday, TInteger>,
  {
    additionalProperties: false,
    title: 'WeeklyTargets',
    description: 'Target minutes per weekday (0..1440), all seven days.'
  }
)

/**
 * A user's own working-time schedule from a day on (CONTRACT §11.2): part-time workers. A day's
 * target is the user's latest version with `validFrom ≤ day`, else the company's version of that
 * day; break rules, the daily maximum and the carry-over cap stay the company's.
 */
export const userWorkingTimeResource = defineResource({
  path: 'user-working-times',
  entity: 'UserWorkingTime',
  displayNames: { DE: 'Arbeitszeitmodell', IT: 'Orario di lavoro', EN: 'User working time' },
  methods: ['find', 'get', 'create', 'patch', 'remove'],
  fields: {
    userId: createOnly(Id(), { nullable: false }),
    validFrom: writable(
      DateString({
        description:
          'The first day (company timezone) this version applies to; it holds until the next version of the user. Not before 2000-01-01; one version per user and day.'
      }),
      { nullable: false }
    ),
    targets: writable(WeeklyTargets, { nullable: false, json: true }),
    note: writable(Text()),
    externalId: writable(Str())
  },
  required: ['userId', 'validFrom', 'targets'],
  references: { userId: { table: 'users', active: true } },
  filters: ['id', 'userId', 'validFrom', 'externalId', 'createdAt', 'updatedAt'],
  beforeWrite: checkVersionWrite,
  afterWrite: afterVersionWrite,
  beforeRemove: beforeVersionRemove,
  afterRemove: afterVersionRemove
})
