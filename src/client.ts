import { feathers } from '@feathersjs/feathers'
import type { Application, Params } from '@feathersjs/feathers'
import rest from '@feathersjs/rest-client'
import socketio from '@feathersjs/socketio-client'
import authenticationClient from '@feathersjs/authentication-client'
import type { Socket } from 'socket.io-client'
import type { assignmentEventGroupResource } from './services/assignment-event-groups/assignment-event-groups.schema'
import type { assignmentEventGroupTypeResource } from './services/assignment-event-group-types/assignment-event-group-types.schema'
import type { assignmentEventResource } from './services/assignment-events/assignment-events.schema'
import type { assignmentEventTypeResource } from './services/assignment-event-types/assignment-event-types.schema'
import type { assignmentResource } from './services/assignments/assignments.schema'
import type { assignmentStatusTypeResource } from './services/assignment-status-types/assignment-status-types.schema'
import type { assignmentTypeResource } from './services/assignment-types/assignment-types.schema'
import type { customerResource } from './services/customers/customers.schema'
import type { gangResource } from './services/gangs/gangs.schema'
import type { projectResource } from './services/projects/projects.schema'
import type { roleResource } from './services/roles/roles.schema'
import type { timeEntryResource } from './services/time-entries/time-entries.schema'
import type { timeSheetDayResource } from './services/time-sheet-days/time-sheet-days.schema'
import type { timeSheetMonthResource } from './services/time-sheet-months/time-sheet-months.schema'
import type { timeSheetWeekResource } from './services/time-sheet-weeks/time-sheet-weeks.schema'
import type { timeEntryTypeResource } from './services/time-entry-types/time-entry-types.schema'
import type { uploadCategoryResource } from './services/upload-categories/upload-categories.schema'
import type { uploadResource } from './services/uploads/uploads.schema'
import type { userAbsenceResource } from './services/user-absences/user-absences.schema'
import type { userAbsenceTypeResource } from './services/user-absence-types/user-absence-types.schema'
import type { userWorkingTimeResource } from './services/user-working-times/user-working-times.schema'
import type { userResource } from './services/users/users.schema'

/** The result, create and patch types of a declared resource. */
type TypesOf<R> = R extends { types?: infer X }
  ? NonNullable<X> extends { result: unknown; data: unknown; patch: unknown }
    ? NonNullable<X>
    : never
  : never

export interface ListEnvelope<T> {
  page: number
  pages: number
  size: number
  total: number
  items: T[]
}

/**
 * A list query as the REST API takes it: `{ name: 'x', startsAt: { $gt: '2026-11-01T00:00:00Z' },
 * $sort: { startsAt: -1 }, page: 0, size: 20 }`.
 */
export type ListQuery = Record<string, unknown> & { page?: number; size?: number; $sort?: Record<string, 1 | -1> }

interface AllMethods<X extends { result: unknown; data: unknown; patch: unknown }> {
  find(params?: Params<ListQuery>): Promise<ListEnvelope<X['result']>>
  get(id: number, params?: Params): Promise<X['result']>
  create(data: X['data'], params?: Params): Promise<X['result']>
  patch(id: number, data: X['patch'], params?: Params): Promise<X['result']>
  remove(id: number, params?: Params): Promise<X['result'] | null>
  on(event: 'created' | 'patched' | 'removed', listener: (record: X['result']) => void): this
  off(event: 'created' | 'patched' | 'removed', listener?: (record: X['result']) => void): this
}

type Events = 'on' | 'off'
export type ResourceClient<R, M extends keyof AllMethods<any>> = Pick<AllMethods<TypesOf<R>>, M | Events>

type Full = 'find' | 'get' | 'create' | 'patch' | 'remove'
type NoDelete = 'find' | 'get' | 'create' | 'patch'
type ReadOnly = 'find' | 'get'
type ReadPatch = 'find' | 'get' | 'patch'

/** A by-user look-up: `find({ query: { userId, day } })` answers the record itself, created on demand. */
export interface ByUserClient<R, Q> {
  find(params: Params<Q>): Promise<TypesOf<R>['result']>
}

/** Every service of the API with the methods it offers (checked against the server by the tests). */
export const SERVICE_METHODS = {
  'v1/customers': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/projects': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/users': ['find', 'get', 'create', 'patch'],
  'v1/gangs': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/roles': ['find', 'get'],
  'v1/assignment-types': ['find', 'get'],
  'v1/assignment-status-types': ['find', 'get'],
  'v1/assignment-event-types': ['find', 'get'],
  'v1/assignment-event-group-types': ['find', 'get'],
  'v1/time-entry-types': ['find', 'get', 'create', 'patch'],
  'v1/user-absence-types': ['find', 'get', 'create', 'patch'],
  'v1/upload-categories': ['find', 'get', 'create', 'patch'],
  'v1/assignments': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/assignment-events': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/assignment-event-groups': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/time-entries': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/user-absences': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/user-working-times': ['find', 'get', 'create', 'patch', 'remove'],
  'v1/time-sheet-days': ['find', 'get', 'create', 'patch'],
  'v1/time-sheet-days/by-user': ['find'],
  'v1/time-sheet-weeks': ['find', 'get', 'patch'],
  'v1/time-sheet-weeks/by-user': ['find'],
  'v1/time-sheet-months': ['find', 'get', 'patch'],
  'v1/time-sheet-months/by-user': ['find']
} as const

export interface CrewclockServices {
  'v1/customers': ResourceClient<typeof customerResource, Full>
  'v1/projects': ResourceClient<typeof projectResource, Full>
  'v1/users': ResourceClient<typeof userResource, NoDelete>
  'v1/gangs': ResourceClient<typeof gangResource, Full>
  'v1/roles': ResourceClient<typeof roleResource, ReadOnly>
  'v1/assignment-types': ResourceClient<typeof assignmentTypeResource, ReadOnly>
  'v1/assignment-status-types': ResourceClient<typeof assignmentStatusTypeResource, ReadOnly>
  'v1/assignment-event-types': ResourceClient<typeof assignmentEventTypeResource, ReadOnly>
  'v1/assignment-event-group-types': ResourceClient<typeof assignmentEventGroupTypeResource, ReadOnly>
  'v1/time-entry-types': ResourceClient<typeof timeEntryTypeResource, NoDelete>
  'v1/user-absence-types': ResourceClient<typeof userAbsenceTypeResource, NoDelete>
  'v1/upload-categories': ResourceClient<typeof uploadCategoryResource, NoDelete>
  'v1/assignments': ResourceClient<typeof assignmentResource, Full>
  'v1/assignment-events': ResourceClient<typeof assignmentEventResource, Full>
  'v1/assignment-event-groups': ResourceClient<typeof assignmentEventGroupResource, Full>
  'v1/time-entries': ResourceClient<typeof timeEntryResource, Full>
  'v1/user-absences': ResourceClient<typeof userAbsenceResource, Full>
  'v1/user-working-times': ResourceClient<typeof userWorkingTimeResource, Full>
  'v1/time-sheet-days': ResourceClient<typeof timeSheetDayResource, NoDelete>
  'v1/time-sheet-days/by-user': ByUserClient<typeof timeSheetDayResource, { userId: number; day: string }>
  'v1/time-sheet-weeks': ResourceClient<typeof timeSheetWeekResource, ReadPatch>
  'v1/time-sheet-weeks/by-user': ByUserClient<typeof timeSheetWeekResource, { userId: number; weekStart: string }>
  'v1/time-sheet-months': ResourceClient<typeof timeSheetMonthResource, ReadPatch>
  'v1/time-sheet-months/by-user': ByUserClient<typeof timeSheetMonthResource, { userId: number; month: string }>
}

export type ServicePath = keyof CrewclockServices
export type UploadsClient = ResourceClient<typeof uploadResource, 'find' | 'get' | 'patch' | 'remove'>

export interface CrewclockClient {
  /** The Feathers application behind the client (authentication, raw services). */
  app: Application
  service<P extends ServicePath>(path: P): CrewclockServices[P]
  /** Uploads of one assignment or assignment event (create them with `uploadFile` over REST). */
  uploads(owner: 'assignments' | 'assignment-events', ownerId: number): UploadsClient
}

function wrap(app: Application): CrewclockClient {
  return {
    app,
    service: (path) => app.service(path) as any,
    uploads: (owner, ownerId) => app.service(`v1/${owner}/${ownerId}/uploads`) as any
  }
}

/** A client over REST: every request carries the API key. */
export function createRestClient(baseUrl: string, apiKey: string, fetchImpl: typeof fetch = fetch): CrewclockClient {
  const app = feathers()
  app.configure(rest(baseUrl).fetch(fetchImpl, { headers: { Authorization: `Bearer ${apiKey}` } }))
  return wrap(app)
}

/**
 * A client over socket.io (live events included). Authenticates the connection with the key;
 * after a reconnect the authentication client re-authenticates by itself.
 */
export async function createSocketClient(socket: Socket, apiKey: string): Promise<CrewclockClient> {
  const app = feathers()
  app.configure(socketio(socket))
  app.configure(authenticationClient({ storage: new MemoryStorage() }))
  await app.authenticate({ strategy: 'apiKey', apiKey })
  return wrap(app)
}

/** Uploads a file (multipart) to an assignment or assignment event over REST. */
export async function uploadFile(
  baseUrl: string,
  apiKey: string,
  owner: 'assignments' | 'assignment-events',
  ownerId: number,
  file: { name: string; content: Blob },
  fields: { categoryId?: number; description?: string } = {},
  fetchImpl: typeof fetch = fetch
): Promise<TypesOf<typeof uploadResource>['result']> {
  const form = new FormData()
  form.append('file', file.content, file.name)
  if (fields.categoryId !== undefined) form.append('categoryId', String(fields.categoryId))
  if (fields.description !== undefined) form.append('description', fields.description)
  const response = await fetchImpl(`${baseUrl.replace(/\/$/, '')}/v1/${owner}/${ownerId}/uploads`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}` },
    body: form
  })
  const body = await response.json()
  if (!response.ok) throw Object.assign(new Error(body.message), body)
  return body
}

class MemoryStorage {
  private values = new Map<string, unknown>()
  getItem(key: string) {
    return this.values.get(key)
  }
  setItem(key: string, value: unknown) {
    this.values.set(key, value)
    return value
  }
  removeItem(key: string) {
    const value = this.values.get(key)
    this.values.delete(key)
    return value
  }
}
