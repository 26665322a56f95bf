import type { Collection, Feed, Lookup, Method } from './definitions'
import type { ServiceDefinitions } from './api.generated'

/** How a client talks to the API: a socket.io connection (with live events) or HTTP. */
export type Transport = 'socket' | 'rest'

/** A page of a list (CONTRACT §3.1). */
export interface Page<T> {
  page: number
  pages: number
  size: number
  total: number
  items: T[]
}

/** What every call takes besides its arguments. */
export interface CallOptions {
  /** Milliseconds this call may take, waiting for the connection included (default: the client's, 10 000). */
  timeout?: number
  /** Extra HTTP headers (REST only), e.g. `Idempotency-Key`. */
  headers?: Record<string, string>
}

/** A nested collection's route parameters (`{ assignmentId }`), required on every call. */
type RouteArg<Route, P> = [Route] extends [never] ? [params?: P] : [params: P & { route: Route }]

export type ServiceEvent = 'created' | 'patched' | 'removed'

/**
 * `remove` answers the removed record over a socket; over REST, DELETE answers 204 with no body
 * (CONTRACT §3), so the call resolves to null.
 */
export type Removed<R, T extends Transport> = T extends 'socket' ? R : null

interface AllMethods<
  D extends Collection<unknown, unknown, unknown, unknown, Method, unknown, unknown>,
  T extends Transport
> {
  find(...params: RouteArg<D['route'], CallOptions & { query?: D['query'] }>): Promise<Page<D['result']>>
  get(id: number, ...params: RouteArg<D['route'], CallOptions>): Promise<D['result']>
  create(data: D['data'], ...params: RouteArg<D['route'], CallOptions>): Promise<D['created']>
  patch(id: number, data: D['patch'], ...params: RouteArg<D['route'], CallOptions>): Promise<D['result']>
  remove(id: number, ...params: RouteArg<D['route'], CallOptions>): Promise<Removed<D['result'], T>>
}

/**
 * The service's `created`, `patched` and `removed` events (socket clients; payload: the record as
 * REST returns it). A nested collection's events come for every parent: the record names it
 * (`assignmentId`).
 */
export interface ServiceEvents<R> {
  on(event: ServiceEvent, listener: (record: R) => void): this
  once(event: ServiceEvent, listener: (record: R) => void): this
  off(event: ServiceEvent, listener?: (record: R) => void): this
  removeListener(event: ServiceEvent, listener: (record: R) => void): this
}

/** A collection's client: the methods it offers, and its events unless the client is known to use REST. */
export type CollectionService<D, T extends Transport> =
  D extends Collection<unknown, unknown, unknown, unknown, infer M, unknown, unknown>
    ? Pick<AllMethods<D, T>, M> & ([T] extends ['rest'] ? unknown : ServiceEvents<D['result']>)
    : never

/** A by-user look-up: `find({ query: { userId, day } })` answers the record itself. */
export interface LookupService<R, Q> {
  find(params: CallOptions & { query: Q }): Promise<R>
}

/** A page of the change feed: the events after the cursor, and the `after` of the next call. */
export interface FeedPage<E> {
  items: E[]
  next: string
}

/** The change feed: `find({ query: { after: next } })` until a page comes back empty. */
export interface FeedService<E, Q> {
  find(params?: CallOptions & { query?: Q }): Promise<FeedPage<E>>
}

/** Every service of the API by path, typed from the server's declarations. */
export type CrewclockServices<T extends Transport = Transport> = {
  [P in keyof ServiceDefinitions]: ServiceDefinitions[P] extends Lookup<infer R, infer Q>
    ? LookupService<R, Q>
    : ServiceDefinitions[P] extends Feed<infer E, infer Q>
      ? FeedService<E, Q>
      : CollectionService<ServiceDefinitions[P], T>
}

export type ServicePath = keyof ServiceDefinitions

/** The record type of a service path: `RecordOf<'v1/users'>` is `User`. */
export type RecordOf<P extends ServicePath> =
  ServiceDefinitions[P] extends Collection<infer R, unknown, unknown, unknown, Method, unknown, unknown>
    ? R
    : ServiceDefinitions[P] extends Lookup<infer R, unknown>
      ? R
      : ServiceDefinitions[P] extends Feed<infer E, unknown>
        ? E
        : never
