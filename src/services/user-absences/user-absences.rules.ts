import type { Knex } from 'knex'
import type {
  PlannedRemove,
  PlannedWrite,
  ReadContext,
  RemoveContext,
  ResourceCall,
  Row,
  ValidationErrors,
  WriteContext
} from '../../resources/define-resource'
import { MAX_ABSENCE_DAYS, absenceDayCount, absenceStatus, absenceWorkDays } from '../../timesheets/absences'
import { coveredDayRange, millis } from '../../timesheets/calendar'
import { assertSpansWritable, lockUserTime, recomputeSpans } from '../../timesheets/recompute'
import { logRecomputed } from '../../timesheets/events'
import { loadCompanySchedule, loadUserVersions } from '../../timesheets/schedule'
import { dayOf } from '../../timesheets/sheet-rows'
import { addDays } from '../../timesheets/periods'
import type { ResourceService } from '../../resources/service'
import { journalOf } from '../../events/journal'
import { conflict } from '../../errors'

const ABSENCES_PATH = 'v1/user-absences'

/**
 * The write rules of user absences (CONTRACT §7.3): the decision fields and who made them, the
 * derived status, no overlap with another (not declined) absence of the user, and the time-sheet
 * hook points for every covered calendar day.
 */
const isSet = (value: unknown) => value !== undefined && value !== null

/** The user and the spans of calendar days a write or delete touches, from its before stage to its after stage. */
export interface AbsencePlan {
  userId: number
  spans: { from: string; to: string }[]
}

/** Each decision timestamp and the `...ById` field that records who made it. */
const DECIDERS: [timestamps: string[], byId: string][] = [
  [['approvedAt'], 'needApprovalById'],
  [['declinedAt'], 'declinedById'],
  [['compensationApprovedAt', 'compensationDeclinedAt'], 'compensatedById']
]

/**
 * A decision written without its `...ById` is the acting user's; a decision cleared without one
 * clears who made it.
 */
function fillDeciders(data: Row, merged: Row, actingUserId: number | undefined) {
  for (const [timestamps, byId] of DECIDERS) {
    if (data[byId] !== undefined || timestamps.every((ts) => data[ts] === undefined)) continue
    if (timestamps.some((ts) => isSet(data[ts]))) data[byId] = actingUserId ?? null
    else if (timestamps.every((ts) => !isSet(merged[ts]))) data[byId] = null
  }
}

/**
 * Decisions that cannot coexist and the span (400). Without a known type (an invalid or missing
 * typeId is the schema's or the reference check's 400) the checks that need it are skipped.
 */
function checkDecisions(merged: Row, data: Row, type: Row | undefined, zone: string): ValidationErrors {
  const errors: ValidationErrors = {}
  const clash = (a: string, b: string) => {
    if (isSet(merged[a]) && isSet(merged[b]))
      errors[data[b] !== undefined ? b : a] = `cannot be set together with ${data[b] !== undefined ? a : b}`
  }
  clash('approvedAt', 'declinedAt')
  clash('compensationApprovedAt', 'compensationDeclinedAt')
  if (type && !type.needCompensation) {
    for (const field of ['compensationApprovedAt', 'compensationDeclinedAt']) {
      if (isSet(data[field])) errors[field] = 'is only used by absence types with needCompensation: true'
    }
  }
  if (
    isSet(merged.startsAt) &&
    isSet(merged.endsAt) &&
    millis(merged.endsAt as string) <= millis(merged.startsAt as string)
  ) {
    errors[data.endsAt !== undefined ? 'endsAt' : 'startsAt'] =
      data.endsAt !== undefined ? 'must be after startsAt' : 'must be before endsAt'
  } else if (
    isSet(merged.startsAt) &&
    isSet(merged.endsAt) &&
    absenceDayCount(merged.startsAt as string, merged.endsAt as string, zone) > MAX_ABSENCE_DAYS
  ) {
    // CONTRACT §10.3: always named endsAt, also when a PATCH moved only the start.
    errors.endsAt = `must be at most ${MAX_ABSENCE_DAYS} calendar days after startsAt (an absence covers at most ${MAX_ABSENCE_DAYS} days)`
  }
  return errors
}

function assertRequested(merged: Row) {
  const decided = ['approvedAt', 'declinedAt', 'compensationApprovedAt', 'compensationDeclinedAt'].filter((field) =>
    isSet(merged[field])
  )
  if (decided.length > 0 && !isSet(merged.requestedAt)) {
    throw conflict(
      `An absence can only be approved or declined once it is requested (requestedAt): ${decided.join(', ')}`,
      {
        reason: 'not-requested',
        validationErrors: Object.fromEntries(decided.map((field) => [field, 'needs requestedAt']))
      }
    )
  }
}

/** 409 when the absence shares time with another absence of the user that is not declined. */
async function assertNoOverlap(trx: Knex.Transaction, companyId: number, merged: Row, id: number | undefined) {
  const query = trx('user_absences')
    .where({ companyId, userId: merged.userId })
    .whereNot('status', 'declined')
    .where('startsAt', '<', new Date(merged.endsAt).toISOString())
    .where('endsAt', '>', new Date(merged.startsAt).toISOString())
    .first('id')
  if (id !== undefined) query.whereNot('id', id)
  const other = await query
  if (other)
    throw conflict(`The absence overlaps absence ${other.id} of user ${merged.userId}`, {
      reason: 'overlap',
      ids: [Number(other.id)],
      userAbsenceId: Number(other.id)
    })
}

/** The calendar days an absence covers, as one span (O(1), whatever its length). */
export const coveredSpan = (absence: Row, zone: string) => {
  const { first, last } = coveredDayRange(absence.startsAt, absence.endsAt, zone)
  return { from: first, to: last }
}

export async function checkAbsence(write: WriteContext<AbsencePlan>): Promise<ValidationErrors | void> {
  const { data, existing, companyId, trx, params } = write
  const typeId = existing?.typeId ?? data.typeId
  const type: Row | undefined =
    typeId === undefined
      ? undefined
      : await trx('user_absence_types').where({ id: typeId, companyId }).first('needApproval', 'needCompensation')
  const before: Row = existing ?? {}
  const after = (field: string) => (data[field] !== undefined ? data[field] : before[field])
  // A type without approval is approved the moment it is requested.
  if (
    type &&
    !type.needApproval &&
    isSet(data.requestedAt) &&
    data.approvedAt === undefined &&
    !isSet(after('approvedAt')) &&
    !isSet(after('declinedAt'))
  ) {
    data.approvedAt = data.requestedAt
  }
  fillDeciders(data, { ...before, ...data }, params.user?.id)
  const merged = { ...before, ...data }
  const zone = params.company!.timezone
  const errors = checkDecisions(merged, data, type, zone)
  // Without a type the reference check (or the schema) reports typeId; nothing below can run.
  if (Object.keys(errors).length > 0 || !type) return errors
  if (merged.userId === undefined || merged.startsAt === undefined || merged.endsAt === undefined) return // the schema's 400
  assertRequested(merged)
  data.status = absenceStatus(merged)

  const userId = Number(merged.userId)
  const spans = [...(existing ? [coveredSpan(existing, zone)] : []), coveredSpan(merged, zone)]
  await lockUserTime(trx, { companyId, userId })
  await assertSpansWritable(trx, { companyId, userId, spans })
  if (data.status !== 'declined') await assertNoOverlap(trx, companyId, merged, existing?.id)
  write.plan = { userId, spans }
}

export async function afterAbsenceWrite(_id: number, write: PlannedWrite<AbsencePlan>) {
  logRecomputed(write, await recomputeSpans(write.trx, { companyId: write.companyId, ...write.plan }))
}

export async function beforeAbsenceRemove(remove: RemoveContext<AbsencePlan>) {
  const { trx, companyId, existing, params } = remove
  remove.plan = { userId: Number(existing.userId), spans: [coveredSpan(existing, params.company!.timezone)] }
  await lockUserTime(trx, { companyId, userId: remove.plan.userId })
  await assertSpansWritable(trx, { companyId, ...remove.plan })
}

export async function afterAbsenceRemove(remove: PlannedRemove<AbsencePlan>) {
  logRecomputed(remove, await recomputeSpans(remove.trx, { companyId: remove.companyId, ...remove.plan }))
}

/** `workDays` of a page of absences from their types and the users' schedules (CONTRACT §11.2), in four queries. */
export async function loadWorkDays(items: Row[], { db, companyId }: ReadContext) {
  const types: Row[] = await db('user_absence_types')
    .where({ companyId })
    .whereIn('id', [...new Set(items.map((item) => item.typeId))])
    .select('id', 'isAbsenceHourly')
  const hourly = new Map(types.map((type) => [Number(type.id), Boolean(type.isAbsenceHourly)]))
  const userIds = [...new Set(items.map((item) => Number(item.userId)))]
  const company = await loadCompanySchedule(db, companyId)
  const versions = await loadUserVersions(db, companyId, userIds)
  const users: Row[] = await db('users').where({ companyId }).whereIn('id', userIds).select('id', 'employedFrom')
  const schedules = new Map(
    users.map((user) => [
      Number(user.id),
      company.forUser(versions.get(Number(user.id)) ?? [], dayOf(user.employedFrom))
    ])
  )
  for (const item of items) {
    const schedule = schedules.get(Number(item.userId)) ?? company
    item.workDays = absenceWorkDays(
      item as { startsAt: string; endsAt: string },
      hourly.get(item.typeId) ?? false,
      schedule
    )
  }
}

/**
 * `workDays` of the absences of a user (of every user with null) that end on or after `from`
 * (all with null), as their service returns them: the figure follows the user's schedule and
 * account start, so a write that changes those changes it without touching the absence's row.
 * Read before and after such a write to log the absences whose `workDays` moved.
 */
export async function workDaysOf(
  { app, params, trx, companyId }: Pick<ResourceCall, 'app' | 'params' | 'trx' | 'companyId'>,
  userId: number | null,
  from: string | null
): Promise<Map<number, { userId: number; workDays: number }>> {
  const query = trx('user_absences').where({ companyId }).orderBy('id')
  if (userId !== null) query.where({ userId })
  // A day early: the absence's end is an instant, the day a company-local date.
  if (from !== null) query.where('endsAt', '>=', addDays(from, -1))
  const rows: Row[] = await query
  if (rows.length === 0) return new Map()
  const service: ResourceService = app.service(ABSENCES_PATH)
  const items = await service.decode(rows, { company: params.company, transaction: { trx, starting: false } }, 'get')
  return new Map(
    items.map((item) => [Number(item.id), { userId: Number(item.userId), workDays: Number(item.workDays) }])
  )
}

/** The absences whose `workDays` differ between two reads of `workDaysOf`. */
export function workDaysChanged(
  before: Map<number, { workDays: number }>,
  after: Map<number, { userId: number; workDays: number }>
) {
  return [...after]
    .filter(([id, { workDays }]) => before.has(id) && before.get(id)!.workDays !== workDays)
    .map(([id, { userId }]) => ({ id, userId }))
}

/** Logs (and announces) `patched` for each absence of the user whose `workDays` differs from `before`. */
export async function logWorkDaysChanges(
  call: ResourceCall,
  before: Map<number, { workDays: number }>,
  userId: number,
  from: string
) {
  const moved = workDaysChanged(before, await workDaysOf(call, userId, from))
  if (moved.length > 0)
    journalOf(call.params).touch(
      ABSENCES_PATH,
      'patched',
      moved.map(({ id }) => id)
    )
}
