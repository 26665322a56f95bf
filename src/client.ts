import { feathers } from '@feathersjs/feathers'
import type { Application, Params } from '@feathersjs/feathers'
import rest from '@feathersjs/rest-client'
import socketio from '@feathersjs/socketio-client'
import authenticationClient from '@feathersjs/authentication-client'
import type { Socket } from 'socket.io-client'
// Types only from the declarations: the client is bundled for the browser (src/web), which cannot load them.
import type { declaredMethods, DeclaredLookup, DeclaredResource, LookupPathOf, PathOf } from './services/declared'
import { SERVICE_METHODS } from './client-methods.generated'
import type { uploadResource } from './services/uploads/uploads.schema'

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
type MethodName = Exclude<keyof AllMethods<never>, Events>
export type ResourceClient<R, M extends MethodName> = Pick<AllMethods<TypesOf<R>>, M | Events>

/** The methods a declaration offers. */
type MethodsOf<R> = R extends { methods: readonly (infer M extends MethodName)[] } ? M : never

/** A by-user look-up: `find({ query: { userId, day } })` answers the record itself, created on demand. */
export interface ByUserClient<R, Q> {
  find(params: Params<Q>): Promise<TypesOf<R>['result']>
}

/** Generated from the declarations (npm run generate:client; npm run lint checks it is current). */
export { SERVICE_METHODS }
// A generated list that names a path or method the declarations do not have fails to compile.
SERVICE_METHODS satisfies {
  readonly [P in keyof typeof declaredMethods]: readonly (typeof declaredMethods)[P][number][]
}

/** Every service of the API, typed from its declaration. */
export type CrewclockServices = { [R in DeclaredResource as PathOf<R>]: ResourceClient<R, MethodsOf<R>> } & {
  [L in DeclaredLookup as LookupPathOf<L>]: ByUserClient<L['resource'], { userId: number } & Record<L['param'], string>>
}

export type ServicePath = keyof CrewclockServices
/** Uploads are created by a multipart POST (`uploadFile`), the other methods as declared. */
export type UploadsClient = ResourceClient<typeof uploadResource, Exclude<MethodsOf<typeof uploadResource>, 'create'>>

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
    service: <P extends ServicePath>(path: P) => app.service(path) as unknown as CrewclockServices[P],
    uploads: (owner, ownerId) => app.service(`v1/${owner}/${ownerId}/uploads`) as unknown as UploadsClient
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
