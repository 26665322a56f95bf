import type { HookContext, NextFunction } from '@feathersjs/feathers'
import type { Upload, UploadData, UploadPatch, UploadQuery } from './api.generated'
import type { UploadFile } from './definitions'
import { errorFromBody } from './errors'
import type { CallOptions, Page, Removed, ServiceEvent, Transport } from './services'

/** The records uploads hang under, with the route parameter that names one. */
export const UPLOAD_PARENTS = {
  assignments: 'assignmentId',
  'assignment-events': 'assignmentEventId'
} as const

export type UploadParent = keyof typeof UPLOAD_PARENTS

const UPLOAD_PATH = /^v1\/(assignments|assignment-events)\/:(assignmentId|assignmentEventId)\/uploads$/

/** An upload's create: a multipart POST over HTTP, whatever the client's transport. */
export const isUploadCreate = (context: HookContext) => context.method === 'create' && UPLOAD_PATH.test(context.path)

/** Where and how a client posts an upload's file. */
export interface UploadTarget {
  apiKey: string
  /** The URL of the nested collection, route parameters filled in. */
  urlOf(path: string, route: Record<string, unknown>): string
  fetch: typeof fetch
}

/** The multipart body of an upload: the file part and the text fields that are set. */
function formOf(data: UploadData & UploadFile): FormData {
  const { file, fileName, ...fields } = data
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) {
    if (value !== undefined && value !== null) form.append(name, String(value))
  }
  const named = fileName ?? (file as Blob & { name?: unknown }).name
  form.append('file', file, typeof named === 'string' && named ? named : 'upload')
  return form
}

/** POSTs an upload and answers the created record; an error answer rejects with its body's fields. */
export async function postUpload(
  target: UploadTarget,
  url: string,
  data: UploadData & UploadFile,
  init: { headers?: Record<string, string>; signal?: AbortSignal } = {}
): Promise<Upload> {
  // Called as a plain function: a browser's fetch refuses to run as a method of another object.
  const fetchImpl = target.fetch
  const response = await fetchImpl(url, {
    method: 'POST',
    headers: { Accept: 'application/json', ...init.headers, Authorization: `Bearer ${target.apiKey}` },
    body: formOf(data),
    signal: init.signal
  })
  const body = await response.json().catch(() => null)
  if (!response.ok) throw errorFromBody(response.status, body)
  return body as Upload
}

/**
 * `create` on a nested uploads service posts the file over HTTP (multipart, CONTRACT §5.1), also
 * on a socket client: socket.io carries JSON, and the API takes files as multipart only. The
 * socket client still receives the `created` event like any other.
 */
export const multipartCreate = (target: UploadTarget) => async (context: HookContext, next: NextFunction) => {
  if (!isUploadCreate(context)) return next()
  const params = context.params as { route?: Record<string, unknown>; headers?: Record<string, string> }
  const signal = (context.params as { connection?: { signal?: AbortSignal } }).connection?.signal
  const url = target.urlOf(context.path, params.route ?? {})
  context.result = await postUpload(target, url, context.data as UploadData & UploadFile, {
    headers: params.headers,
    signal
  })
}

/** Fills `:name` placeholders of a service path from route parameters. */
export const fillRoute = (path: string, route: Record<string, unknown>) =>
  path.replace(/:(\w+)/g, (placeholder, name: string) =>
    route[name] === undefined ? placeholder : encodeURIComponent(String(route[name]))
  )

/**
 * The uploads of one assignment or assignment event: the nested service with its route
 * parameter filled in, and its events narrowed to this parent's uploads.
 */
export interface ParentUploads<T extends Transport = Transport> {
  find(params?: CallOptions & { query?: UploadQuery }): Promise<Page<Upload>>
  get(id: number, params?: CallOptions): Promise<Upload>
  create(data: UploadData & UploadFile, params?: CallOptions): Promise<Upload>
  patch(id: number, data: UploadPatch, params?: CallOptions): Promise<Upload>
  remove(id: number, params?: CallOptions): Promise<Removed<Upload, T>>
  on(event: ServiceEvent, listener: (upload: Upload) => void): this
  off(event: ServiceEvent, listener: (upload: Upload) => void): this
}

/** The nested uploads service as Feathers hands it out, before typing. */
export interface RawUploads {
  find(params: object): Promise<Page<Upload>>
  get(id: number, params: object): Promise<Upload>
  create(data: object, params: object): Promise<Upload>
  patch(id: number, data: object, params: object): Promise<Upload>
  remove(id: number, params: object): Promise<Upload | null>
  on(event: string, listener: (upload: Upload) => void): unknown
  off(event: string, listener: (upload: Upload) => void): unknown
}

export function parentUploads<T extends Transport>(
  service: RawUploads,
  parent: UploadParent,
  parentId: number
): ParentUploads<T> {
  const field = UPLOAD_PARENTS[parent]
  const route = { [field]: parentId }
  const narrowed = new Map<(upload: Upload) => void, Map<ServiceEvent, (upload: Upload) => void>>()
  const uploads: ParentUploads<T> = {
    find: (params = {}) => service.find({ ...params, route }),
    get: (id, params = {}) => service.get(id, { ...params, route }),
    create: (data, params = {}) => service.create(data, { ...params, route }),
    patch: (id, data, params = {}) => service.patch(id, data, { ...params, route }),
    remove: (id, params = {}) => service.remove(id, { ...params, route }) as Promise<Removed<Upload, T>>,
    on(event, listener) {
      const byEvent = narrowed.get(listener) ?? new Map()
      narrowed.set(listener, byEvent)
      if (byEvent.has(event)) return uploads
      const only = (upload: Upload) => {
        if (upload[field] === parentId) listener(upload)
      }
      byEvent.set(event, only)
      service.on(event, only)
      return uploads
    },
    off(event, listener) {
      const only = narrowed.get(listener)?.get(event)
      if (only) {
        service.off(event, only)
        narrowed.get(listener)!.delete(event)
      }
      return uploads
    }
  }
  return uploads
}
