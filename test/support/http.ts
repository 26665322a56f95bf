import { AssertionError } from 'node:assert'
import Ajv2020 from 'ajv/dist/2020'
import type { ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'

export interface HttpResponse<T = any> {
  status: number
  headers: Headers
  body: T
  text: string
}

export interface RequestOptions {
  headers?: Record<string, string>
  /** Sent as is (a string, a Buffer or FormData) instead of JSON. */
  raw?: BodyInit
  query?: Record<string, string | number | boolean | (string | number)[]>
}

/** Encodes `{ 'startsAt[$gt]': x, 'id[$in]': [1, 2] }` the way a browser or curl would. */
export function queryString(query: RequestOptions['query'] = {}) {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) {
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, String(v))
  }
  const text = params.toString()
  return text ? `?${text}` : ''
}

/** A small fetch wrapper: every test speaks HTTP to a real server. */
export class HttpClient {
  constructor(
    readonly baseUrl: string,
    readonly apiKey?: string
  ) {}

  withKey(apiKey: string) {
    return new HttpClient(this.baseUrl, apiKey)
  }

  async request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    options: RequestOptions = {}
  ): Promise<HttpResponse<T>> {
    const headers: Record<string, string> = {
      ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}),
      ...options.headers
    }
    let payload: BodyInit | undefined = options.raw
    if (payload === undefined && body !== undefined) {
      payload = JSON.stringify(body)
      headers['content-type'] ??= 'application/json'
    }
    const response = await fetch(this.baseUrl + path + queryString(options.query), { method, headers, body: payload })
    const text = await response.text()
    let parsed: any = undefined
    if (text && (response.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text)
    const result = { status: response.status, headers: response.headers, body: parsed, text }
    const pathname = path.split('?')[0]
    if (pathname.startsWith('/v1/')) (await contractOf(this.baseUrl)).check(method, pathname, result)
    return result
  }

  get<T = any>(path: string, query?: RequestOptions['query'], options: RequestOptions = {}) {
    return this.request<T>('GET', path, undefined, { ...options, query })
  }
  post<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('POST', path, body, options)
  }
  patch<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PATCH', path, body, options)
  }
  delete<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('DELETE', path, undefined, options)
  }
  put<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PUT', path, body, options)
  }
}

type Json = Record<string, any>

/**
 * The served description as a test oracle: every /v1 response must match the schema its own
 * operation declares for that status, and every error body the Error schema, so the
 * description and the behaviour cannot drift apart.
 */
class ResponseContract {
  private readonly ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, logger: false }))
  private readonly routes: { template: string; pattern: RegExp; placeholders: number }[]
  private readonly validators = new Map<string, ValidateFunction>()

  constructor(private readonly doc: Json) {
    for (const format of ['binary', 'byte', 'int32', 'int64', 'float', 'double', 'password'])
      this.ajv.addFormat(format, true)
    this.routes = Object.keys(doc.paths ?? {})
      .map((template) => {
        const parts = template.split(/\{[^}]+\}/)
        const pattern = new RegExp(`^${parts.map((p) => p.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('[^/]+')}$`)
        return { template, pattern, placeholders: parts.length - 1 }
      })
      // A static segment wins over a placeholder (`/v1/customers/spec` before `/{customerId}`), as in the router.
      .sort((a, b) => a.placeholders - b.placeholders)
  }

  /** Compiled with the document's components beside it, so that `#/components/...` references resolve. */
  private validator(key: string, schema: Json): ValidateFunction {
    let validate = this.validators.get(key)
    if (!validate) {
      validate = this.ajv.compile({ components: this.doc.components, ...schema })
      this.validators.set(key, validate)
    }
    return validate
  }

  private resolve(response: Json | undefined): Json | undefined {
    const ref = response?.$ref as string | undefined
    return ref ? this.doc.components?.responses?.[ref.split('/').pop() as string] : response
  }

  private fail(what: string, detail: string, res: HttpResponse): never {
    throw new AssertionError({ message: `${what}: ${detail}\nbody: ${res.text.slice(0, 500)}` })
  }

  check(method: string, path: string, res: HttpResponse) {
    const route = this.routes.find((r) => r.pattern.test(path))
    const operation = route && this.doc.paths[route.template][method.toLowerCase()]
    const what = `${method} ${route?.template ?? path} → ${res.status}`
    if (res.status >= 400) this.checkBody(`${what} (Error)`, 'Error', { $ref: '#/components/schemas/Error' }, res)
    if (!operation) {
      if (res.status < 400) this.fail(what, 'the operation is not in the API description (/openapi.json)', res)
      return
    }
    const responses = operation.responses ?? {}
    // `default` stands for the errors an operation does not list; a success must be declared.
    const fallback = res.status >= 400 ? responses.default : undefined
    const declared = this.resolve(responses[String(res.status)] ?? responses[`${String(res.status)[0]}XX`] ?? fallback)
    if (!declared) this.fail(what, `status not declared (declared: ${Object.keys(responses).join(', ')})`, res)
    const content = declared.content as Json | undefined
    if (!content) {
      if (res.text !== '') this.fail(what, 'the description declares no body, but the response has one', res)
      return
    }
    const json = content['application/json']
    if (!json) return
    if (res.body === undefined)
      this.fail(what, `expected a JSON body, got content-type ${res.headers.get('content-type')}`, res)
    if (json.schema) this.checkBody(what, `${method} ${route!.template} ${res.status}`, json.schema, res)
  }

  private checkBody(what: string, key: string, schema: Json, res: HttpResponse) {
    if (res.body === undefined)
      this.fail(what, `expected a JSON body, got content-type ${res.headers.get('content-type')}`, res)
    const validate = this.validator(key, schema)
    if (!validate(res.body)) {
      this.fail(
        what,
        `response does not match the description: ${this.ajv.errorsText(validate.errors, { dataVar: 'body', separator: '; ' })}`,
        res
      )
    }
  }
}

const contracts = new Map<string, Promise<ResponseContract>>()

/** The description of the server at `baseUrl`, loaded once per server. */
function contractOf(baseUrl: string): Promise<ResponseContract> {
  let contract = contracts.get(baseUrl)
  if (!contract) {
    contract = fetch(`${baseUrl}/openapi.json`).then(async (response) => {
      if (response.status !== 200) throw new Error(`GET /openapi.json answered ${response.status}`)
      return new ResponseContract(await response.json())
    })
    contract.catch(() => contracts.delete(baseUrl))
    contracts.set(baseUrl, contract)
  }
  return contract
}
