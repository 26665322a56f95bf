import type { Knex } from 'knex'
import type { Day } from './calendar'
import { AccountStart, accountStartOf } from './account'
import { lastDayOfMonth } from './periods'
import { dayOf } from './sheet-rows'
import { WEEKDAYS, Weekday, WorkingCalendar, WorkingTimeModel } from './working-time'

/**
 * Working-time schedules with effective dates (CONTRACT §11.2): the company model is a list of
 * versions, each valid from a day until the next one; a user may have versions of their own
 * weekly targets. A day's targets come from the user's latest version with `validFrom ≤ day`,
 * else from the company's version of that day; break rules, the daily maximum and the carry-over
 * cap always come from the company's. Days before the user's `employedFrom` have no target
 * (CONTRACT §11.1). Pure once loaded: the versions are read once per recomputation.
 */
export interface CompanyVersion extends WorkingTimeModel {
  validFrom: Day
}

export type WeekTargets = Record<Weekday, number>

export interface UserVersion {
  validFrom: Day
  targetMinutes: WeekTargets
}

/** The first day of the company's first version: it holds from the start of the calendar. */
export const FIRST_VERSION_DAY: Day = '1970-01-01'

/** The API's short weekday keys (`/v1/user-working-times`' `targets`) and the model's names. */
export const SHORT_WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const
export type ShortWeekday = (typeof SHORT_WEEKDAYS)[number]

export const fromShortTargets = (targets: Record<ShortWeekday, number>): WeekTargets =>
  Object.fromEntries(WEEKDAYS.map((day, i) => [day, targets[SHORT_WEEKDAYS[i]]])) as WeekTargets

const NO_TARGETS: WeekTargets = { monday: 0, tuesday: 0, wednesday: 0, thursday: 0, friday: 0, saturday: 0, sunday: 0 }

/** Index of the latest version with `validFrom ≤ day` (-1: none), by binary search. */
export function versionIndex(versions: { validFrom: Day }[], day: Day): number {
  let low = 0
  let high = versions.length - 1
  let found = -1
  while (low <= high) {
    const middle = (low + high) >> 1
    if (versions[middle].validFrom <= day) {
      found = middle
      low = middle + 1
    } else high = middle - 1
  }
  return found
}

/**
 * Index of the company version in effect on `day`: the latest with `validFrom ≤ day`, and the
 * first for a day before all of them (it holds from the start of the calendar).
 */
export const companyVersionIndex = (versions: { validFrom: Day }[], day: Day): number =>
  Math.max(0, versionIndex(versions, day))

/** The company version in effect on `day`. */
export const companyVersionOn = <V extends { validFrom: Day }>(versions: V[], day: Day): V =>
  versions[companyVersionIndex(versions, day)]

export class Schedule {
  private readonly calendars = new Map<string, WorkingCalendar>()

  /** `company` and `user` ascending by `validFrom`; `company` has at least one version. */
  constructor(
    readonly timezone: string,
    readonly company: CompanyVersion[],
    readonly user: UserVersion[] = [],
    readonly employedFrom: Day | null = null
  ) {
    if (company.length === 0) throw new Error('A company has at least one working-time version')
  }

  /** The model that applies on `day`, with the timezone (one object per combination of versions). */
  on(day: Day): WorkingCalendar {
    const companyIndex = companyVersionIndex(this.company, day)
    const userIndex = versionIndex(this.user, day)
    const employed = this.employedFrom === null || day >= this.employedFrom
    const key = `${companyIndex}:${userIndex}:${employed}`
    let calendar = this.calendars.get(key)
    if (!calendar) {
      const { validFrom: _from, ...model } = this.company[companyIndex]
      const targets = !employed ? NO_TARGETS : userIndex >= 0 ? this.user[userIndex].targetMinutes : model.targetMinutes
      calendar = { ...model, targetMinutes: targets, timezone: this.timezone }
      this.calendars.set(key, calendar)
    }
    return calendar
  }

  /** The carry-over cap of a month: the company version in effect on its last day (minutes, null = none). */
  capOf(month: Day): number | null {
    return this.on(lastDayOfMonth(month)).carryOverCapMinutes ?? null
  }

  /**
   * The days after `from` up to `to` on which the model may change (a version starts, the
   * employment starts), ascending: between two of them every day follows one model.
   */
  changesWithin(from: Day, to: Day): Day[] {
    const days = [
      ...this.company.map((v) => v.validFrom),
      ...this.user.map((v) => v.validFrom),
      ...(this.employedFrom ? [this.employedFrom] : [])
    ]
    return [...new Set(days.filter((day) => day > from && day <= to))].sort()
  }

  /** The same schedule for another user of the company. */
  forUser(user: UserVersion[], employedFrom: Day | null): Schedule {
    return new Schedule(this.timezone, this.company, user, employedFrom)
  }
}

const document = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value)

export const companyVersionOf = (row: Record<string, unknown>): CompanyVersion => ({
  validFrom: dayOf(row.validFrom),
  targetMinutes: document(row.targetMinutes),
  breakRules: document(row.breakRules),
  maxDailyMinutes: Number(row.maxDailyMinutes),
  carryOverCapMinutes:
    row.carryOverCapMinutes === null || row.carryOverCapMinutes === undefined ? null : Number(row.carryOverCapMinutes)
})

export const userVersionOf = (row: Record<string, unknown>): UserVersion => ({
  validFrom: dayOf(row.validFrom),
  targetMinutes: fromShortTargets(document(row.targets))
})

type Db = Knex | Knex.Transaction

/** The company's versions, ascending. */
export async function loadCompanyVersions(db: Db, companyId: number): Promise<CompanyVersion[]> {
  return (await db('company_working_times').where({ companyId }).orderBy('validFrom')).map(companyVersionOf)
}

/** The versions of each of `userIds`, ascending (one query). */
export async function loadUserVersions(
  db: Db,
  companyId: number,
  userIds: number[]
): Promise<Map<number, UserVersion[]>> {
  const versions = new Map<number, UserVersion[]>(userIds.map((id) => [id, []]))
  if (userIds.length === 0) return versions
  const rows = await db('user_working_times')
    .where({ companyId })
    .whereIn('userId', [...new Set(userIds)])
    .orderBy('validFrom')
  for (const row of rows) versions.get(Number(row.userId))?.push(userVersionOf(row))
  return versions
}

/** The company's timezone (every schedule is read in it). */
async function companyTimezone(db: Db, companyId: number): Promise<string> {
  const zone = (await db('companies').where({ id: companyId }).first('timezone'))?.timezone
  if (zone === undefined) throw new Error(`No company ${companyId}`)
  return zone
}

/** The company's schedule without a user (company versions only). */
export async function loadCompanySchedule(db: Db, companyId: number): Promise<Schedule> {
  return new Schedule(await companyTimezone(db, companyId), await loadCompanyVersions(db, companyId))
}

/** The columns of `accountAndScheduleQuery`'s rows (as `wholeRowsOf` reads them as a part of its own). */
export const ACCOUNT_AND_SCHEDULE_COLUMNS = [
  'employedFrom',
  'openingBalance',
  'timezone',
  'kind',
  'validFrom',
  'targetMinutes',
  'breakRules',
  'maxDailyMinutes',
  'carryOverCapMinutes',
  'targets'
]

/**
 * Where the user's account starts and the user's schedule (the company's versions, the user's own,
 * in the company's timezone), as one read, unsent: every recomputation needs all of them (reading
 * them apart was three statements). Both databases read it as the last part of the statement of
 * sheet rows (`readSheetRows` in src/timesheets/recompute.ts: a statement less per recomputation;
 * SQLite since the eighth session of 2026-12-06, PostgreSQL since the twelfth). The user's row
 * (one) is left-joined with both kinds of versions, so it comes back even with no version. Keys
 * and equalities only, so its plan cannot depend on the values; it names its columns, so a column
 * added to one of its tables does not change its result. The rows come in no particular order
 * (`accountAndScheduleOf` sorts them).
 */
export function accountAndScheduleQuery(db: Db, companyId: number, userId: number): Knex.QueryBuilder {
  const user = db('users')
    .join('companies', 'companies.id', 'users.companyId')
    .where({ 'users.id': userId, 'users.companyId': companyId })
    .select('users.employedFrom', 'users.openingBalance', 'companies.timezone')
  const versions = db('company_working_times')
    .where({ companyId })
    .select(
      db.raw("'company' as kind"),
      'validFrom',
      'targetMinutes',
      'breakRules',
      'maxDailyMinutes',
      'carryOverCapMinutes',
      db.raw('null as targets')
    )
    .unionAll(
      db('user_working_times')
        .where({ companyId, userId })
        .select(
          db.raw("'user' as kind"),
          'validFrom',
          db.raw('null'),
          db.raw('null'),
          db.raw('null'),
          db.raw('null'),
          'targets'
        )
    )
  return db
    .from(user.as('a'))
    .leftJoin(versions.as('v'), (join) => join.on(db.raw('true')))
    .select('a.*', 'v.*')
}

/** The account and the schedule in the rows of `accountAndScheduleQuery`, in any order. */
export function accountAndScheduleOf(
  rows: Record<string, unknown>[],
  companyId: number,
  userId: number
): { account: AccountStart; schedule: Schedule } {
  if (rows.length === 0) throw new Error(`No user ${userId} in company ${companyId}`)
  const account = accountStartOf(rows[0] as { employedFrom: unknown; openingBalance: unknown })
  const versionsOf = (kind: string) =>
    rows
      .filter((row) => row.kind === kind)
      .map((row) => ({ row, validFrom: dayOf(row.validFrom) }))
      .sort((a, b) => (a.validFrom < b.validFrom ? -1 : a.validFrom > b.validFrom ? 1 : 0))
      .map(({ row }) => row)
  return {
    account,
    schedule: new Schedule(
      String(rows[0].timezone),
      versionsOf('company').map(companyVersionOf),
      versionsOf('user').map(userVersionOf),
      account.employedFrom
    )
  }
}
