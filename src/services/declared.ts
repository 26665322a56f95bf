import type { Method } from '../resources/define-resource'
import type { ResourceService } from '../resources/service'
import { API_PREFIX } from '../resources/register'
import { BY_USER_METHODS, type ByUserService } from './by-user'
import { assignmentEventGroupResource } from './assignment-event-groups/assignment-event-groups.schema'
import { assignmentEventGroupTypeResource } from './assignment-event-group-types/assignment-event-group-types.schema'
import { assignmentEventResource } from './assignment-events/assignment-events.schema'
import { assignmentEventTypeResource } from './assignment-event-types/assignment-event-types.schema'
import { assignmentResource } from './assignments/assignments.schema'
import { assignmentStatusTypeResource } from './assignment-status-types/assignment-status-types.schema'
import { assignmentTypeResource } from './assignment-types/assignment-types.schema'
import { customerResource } from './customers/customers.schema'
import { gangResource } from './gangs/gangs.schema'
import { projectResource } from './projects/projects.schema'
import { roleResource } from './roles/roles.schema'
import { timeEntryResource } from './time-entries/time-entries.schema'
import { timeEntryTypeResource } from './time-entry-types/time-entry-types.schema'
import { uploadCategoryResource } from './upload-categories/upload-categories.schema'
import { userAbsenceResource } from './user-absences/user-absences.schema'
import { userAbsenceTypeResource } from './user-absence-types/user-absence-types.schema'
import { userWorkingTimeResource } from './user-working-times/user-working-times.schema'
import { userResource } from './users/users.schema'
import { timeSheetDayResource } from './time-sheet-days/time-sheet-days.schema'
import { timeSheetWeekResource } from './time-sheet-weeks/time-sheet-weeks.schema'
import { timeSheetMonthResource } from './time-sheet-months/time-sheet-months.schema'
import { webhookSubscriptionResource } from './webhook-subscriptions/webhook-subscriptions.schema'
import { DELIVERIES_PATH, webhookDeliveryResource } from './webhook-subscriptions/webhook-deliveries'
import { REPLAY_PATH, replayBody, replayQueued } from './webhook-subscriptions/webhook-replay'
import { dayByUser } from './time-sheet-days/time-sheet-days'
import { weekByUser } from './time-sheet-weeks/time-sheet-weeks'
import { monthByUser } from './time-sheet-months/time-sheet-months'

/**
 * The collections mounted at `/v1/<path>`, as declared: the app's ServiceTypes and the typed
 * client's service map and method lists are derived from this list. (Uploads are not here: they
 * live under a parent, `/v1/assignments/:assignmentId/uploads`; nor are a webhook subscription's
 * deliveries and replay, under `/v1/webhook-subscriptions/:webhookSubscriptionId/`.)
 */
export const declaredResources = [
  customerResource,
  projectResource,
  userResource,
  gangResource,
  roleResource,
  assignmentTypeResource,
  assignmentStatusTypeResource,
  assignmentEventTypeResource,
  assignmentEventGroupTypeResource,
  timeEntryTypeResource,
  userAbsenceTypeResource,
  uploadCategoryResource,
  assignmentResource,
  assignmentEventResource,
  assignmentEventGroupResource,
  timeEntryResource,
  userAbsenceResource,
  userWorkingTimeResource,
  timeSheetDayResource,
  timeSheetWeekResource,
  timeSheetMonthResource,
  webhookSubscriptionResource
] as const

/** The by-user look-ups, mounted at `/v1/<collection>/by-user` next to their collections. */
export const declaredLookups = [dayByUser, weekByUser, monthByUser] as const

/**
 * Services under one record of a collection besides uploads: a webhook subscription's deliveries
 * (a declared read-only list) and its replay (an action, described by its body and answer). The
 * typed client's service map and method list include them, with their route parameter.
 */
export const declaredNested = [
  { path: `${API_PREFIX}/${DELIVERIES_PATH}`, route: 'webhookSubscriptionId', resource: webhookDeliveryResource },
  {
    path: `${API_PREFIX}/${REPLAY_PATH}`,
    route: 'webhookSubscriptionId',
    action: { method: 'create', data: replayBody, result: replayQueued }
  }
] as const

export type DeclaredResource = (typeof declaredResources)[number]
export type DeclaredLookup = (typeof declaredLookups)[number]

/** The path a declared resource or look-up is served at. */
export type PathOf<R extends { path: string }> = `${typeof API_PREFIX}/${R['path']}`
export type LookupPathOf<L extends { resource: { path: string } }> = `${PathOf<L['resource']>}/by-user`

/** The change feed (src/services/changes/): the event log, read next to the collections. */
export const CHANGES_PATH = `${API_PREFIX}/changes` as const
export const CHANGES_METHODS = ['find'] as const

/** Every declared path with the methods it offers, for clients and checks that need them at run time. */
export const declaredMethods = Object.fromEntries([
  ...declaredResources.map((resource) => [`${API_PREFIX}/${resource.path}`, [...resource.methods]]),
  ...declaredLookups.map((lookup) => [`${API_PREFIX}/${lookup.resource.path}/by-user`, [...BY_USER_METHODS]]),
  [CHANGES_PATH, [...CHANGES_METHODS]]
]) as { [R in DeclaredResource as PathOf<R>]: R['methods'][number][] } & {
  [L in DeclaredLookup as LookupPathOf<L>]: (typeof BY_USER_METHODS)[number][]
} & { [CHANGES_PATH]: (typeof CHANGES_METHODS)[number][] } satisfies Record<string, Method[]>

declare module '../declarations' {
  // The services by path, derived from the declarations (the generator writes one entry per service).
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a merge target: the members come from the mapped type
  interface ServiceTypes extends DeclaredServiceTypes {}
}

type DeclaredServiceTypes = { [R in DeclaredResource as PathOf<R>]: ResourceService } & {
  [L in DeclaredLookup as LookupPathOf<L>]: ByUserService
}
