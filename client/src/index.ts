/**
 * @crewclock/client: the typed client of the crewclock API, for browsers and Node. See README.md.
 */
export { createClient, createRestClient, createSocketClient, DEFAULT_TIMEOUT_MS } from './client'
export type { ClientOptions, CrewclockClient } from './client'
export type { ClientEvents, ConnectionState, ReconnectDelay } from './session'
export { CallTimeout, ClientClosed, ClientError, ConnectionLost } from './errors'
export type { CallDescription } from './errors'
export type {
  CallOptions,
  CollectionService,
  CrewclockServices,
  FeedPage,
  FeedService,
  LookupService,
  Page,
  RecordOf,
  Removed,
  ServiceEvent,
  ServiceEvents,
  ServicePath,
  Transport
} from './services'
export type {
  Collection,
  EqualityFilter,
  Feed,
  Lookup,
  Method,
  OneOfFilter,
  RangeFilter,
  SortOf,
  TextFilter,
  UploadFile
} from './definitions'
export { UPLOAD_PARENTS } from './uploads'
export type { ParentUploads, UploadParent } from './uploads'
export { uploadFile } from './upload-file'
export * from './api.generated'
