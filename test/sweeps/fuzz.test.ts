import assert, { AssertionError } from 'node:assert/strict'
import fc from 'fast-check'
import { forEachDatabase } from '../support/harness'
import type { HttpResponse } from '../support/http'
import {
  changedTables,
  fillTemplate,
  isPlainString,
  Json,
  label,
  loadOperations,
  nonNull,
  Operation,
  paramsFor,
  Seed,
  seedCompany,
  snapshotCompany,
  urlOf,
  validCreateBody
} from '../support/sweep'
import {
  acceptedBy,
  anyJsonValue,
  badFilterValue,
  badOperator,
  badPathId,
  badValueFor,
  deepJson,
  injectionKey,
  nastyString
} from '../support/bad-input'

/**
 * Generated bad input against every operation of the app's own description: wrong types, huge
 * and deep values, unicode, nulls, arrays for scalars, operator injection, bad path ids and
 * bodies that are not JSON. The answer must always be a 4xx JSON error (never a 5xx), and the
 * company's data must be exactly as before. FUZZ_RUNS scales the runs per operation,
 * FUZZ_SEED replays a failure.
 */
const RUNS = Number(process.env.FUZZ_RUNS || 6)
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined
const settings = (numRuns = RUNS) => ({ numRuns, seed: SEED, endOnFailure: true })

/** Whether a `__proto__` key stands anywhere in a JSON value (as a key, not as a string value). */
const hasProtoKey = (value: unknown): boolean =>
  value !== null &&
  typeof value === 'object' &&
  (Object.keys(value).includes('__proto__') || Object.values(value).some(hasProtoKey))

const preview = (value: unknown) => {
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  return (text ?? String(value)).slice(0, 200)
}

/** 4xx with the JSON error body (the shape itself is checked against the description by the client). */
function assertRefused(op: Operation, res: HttpResponse, input: unknown, statuses?: number[]) {
  const ok = statuses ? statuses.includes(res.status) : res.status >= 400 && res.status < 500
  if (!ok || res.body?.code !== res.status) {
    throw new AssertionError({
      message: `${label(op)} answered ${res.status} to ${preview(input)}: ${res.text.slice(0, 300)}`
    })
  }
}

const QUERY_META = new Set(['page', 'size', '$sort'])

forEachDatabase('fuzzing', (suite) => {
  let operations: Operation[]
  let seed: Seed
  let staticSegments: Set<string>

  before(async function () {
    operations = await loadOperations(suite.server())
    seed = await seedCompany(suite.server(), await suite.company(), operations)
    staticSegments = new Set(operations.flatMap((op) => op.template.split('/').filter((s) => s && !s.startsWith('{'))))
  })

  const request = (
    op: Operation,
    url: string,
    init: { body?: unknown; raw?: BodyInit; contentType?: string; query?: Json } = {}
  ) =>
    seed.company.api.request(op.method, url, init.body, {
      raw: init.raw,
      query: init.query,
      headers: init.contentType ? { 'content-type': init.contentType } : undefined
    })

  /** Runs `work` and fails naming the tables of the company that it changed. */
  async function unchanged(work: () => Promise<void>) {
    const before = await snapshotCompany(suite.server(), seed.company.id)
    await work()
    assert.deepEqual(
      changedTables(before, await snapshotCompany(suite.server(), seed.company.id)),
      [],
      'rejected requests changed data'
    )
  }

  /** A valid request body for the operation, so that only the fuzzed part is wrong. */
  function validBody(op: Operation): { body?: unknown; raw?: BodyInit } {
    if (op.bodyType === 'multipart') {
      const form = new FormData()
      form.append('file', new Blob(['fuzz\n'], { type: 'text/plain' }), 'fuzz.txt')
      return { raw: form }
    }
    if (op.method === 'POST' && op.registered) return { body: validCreateBody(op.registered.resource, seed.ctx) }
    if (op.method === 'PATCH') return { body: {} }
    return {}
  }

  it('path ids that are not ids: 400 or 404, never a 5xx, nothing changed', async function () {
    await unchanged(async () => {
      for (const op of operations.filter((o) => o.pathParams.length > 0)) {
        const own = paramsFor(op.template, seed)
        await fc.assert(
          fc.asyncProperty(fc.constantFrom(...op.pathParams), badPathId(staticSegments), async (param, id) => {
            const res = await request(op, fillTemplate(op.template, { ...own, [param]: id }), validBody(op))
            assertRefused(op, res, { [param]: id }, op.kind === 'other' ? undefined : [400, 404])
            if (res.status === 400)
              assert.ok(res.body.data?.validationErrors?.[param], `${label(op)}: 400 names {${param}}: ${res.text}`)
          }),
          settings(RUNS * 2)
        )
      }
    })
  })

  /** Bad queries of a list: unknown keys, operators it does not offer, values of the wrong kind, paging, sorting. */
  function badListQuery(op: Operation) {
    const properties = (op.registered!.querySchema as Json).properties as Record<string, Json>
    const filters = Object.keys(properties).filter((k) => !QUERY_META.has(k))
    const unknown = injectionKey().filter((k) => !Object.hasOwn(properties, k))
    const filter = fc.constantFrom(...filters)
    return fc.oneof(
      fc.tuple(unknown, nastyString()).map(([k, v]) => ({ [k]: v })),
      fc
        .tuple(unknown, fc.constantFrom('0', '$gt', '$in', 'id'), nastyString())
        .map(([k, sub, v]) => ({ [`${k}[${sub}]`]: v })),
      fc
        .tuple(fc.nat(3), filter, nastyString())
        .map(([i, f, v]) => ({ [`$or[${i}][${f}]`]: v, [`$or[${i + 1}][companyId]`]: String(seed.company.id + 1) })),
      filter.chain((f) =>
        fc
          .tuple(badOperator(Object.keys(properties[f].properties)), nastyString())
          .map(([opName, v]) => ({ [`${f}[${opName}]`]: v }))
      ),
      filter.chain((f) => {
        const ops = properties[f].properties as Record<string, Json>
        return fc.constantFrom(...Object.keys(ops)).chain((opName) => {
          const valueSchema = opName === '$in' || opName === '$nin' ? ops[opName].items : ops[opName]
          return badFilterValue(valueSchema).map((v) => (opName === '$eq' ? { [f]: v } : { [`${f}[${opName}]`]: v }))
        })
      }),
      filter.map((f) => ({ [`${f}[$in]`]: Array.from({ length: 101 }, (_v, i) => String(i + 1)) })),
      fc.tuple(filter, fc.constantFrom('1', 'null')).map(([f, v]) => ({ [f]: [v, '2'] })),
      fc.constantFrom(
        { page: '-1' },
        { page: '1.5' },
        { page: 'abc' },
        { page: '2147483648' },
        { size: '0' },
        { size: '21' },
        { size: 'abc' },
        { size: '-5' },
        { size: ['1', '2'] },
        { 'page[$gt]': '1' }
      ),
      fc
        .tuple(fc.oneof(unknown, filter), fc.constantFrom('2', '0', 'asc', '-2', '1.5'))
        .map(([f, dir]) => (filters.includes(f) ? { [`$sort[${f}]`]: dir } : { [`$sort[${f}]`]: '1' })),
      fc.constantFrom(
        { $sort: 'id' },
        { '$sort[companyId]': '1' },
        { '$sort[id][$gt]': '1' },
        { $limit: '1000' },
        { $skip: '1' },
        { '$select[]': 'passwordHash' }
      )
    )
  }

  it('query strings with unknown parameters, injected operators and bad values: 400, nothing changed', async function () {
    await unchanged(async () => {
      for (const op of operations) {
        const parameterless = op.query.length === 0
        const query =
          op.kind === 'list'
            ? badListQuery(op)
            : fc
                .tuple(fc.oneof(injectionKey(), fc.constantFrom('page', 'size', 'id', '$sort[id]')), nastyString())
                .map(([k, v]) => ({ [k]: v }))
        await fc.assert(
          fc.asyncProperty(query, async (q) => {
            const res = await request(op, urlOf(op.template, seed), { ...validBody(op), query: q })
            // The signed download link refuses any other query with 403.
            assertRefused(op, res, q, op.kind === 'list' || parameterless ? [400] : undefined)
            if (res.status === 400)
              assert.ok(
                Object.keys(res.body.data?.validationErrors ?? {}).length > 0,
                `${label(op)}: 400 names the parameter: ${res.text}`
              )
          }),
          settings(op.kind === 'list' ? RUNS * 5 : RUNS)
        )
      }
    })
  })

  /** One wrong part of an otherwise valid body, and the field path the 400 must name. */
  function badBody(op: Operation) {
    const resource = op.registered!.resource
    const method = op.kind === 'create' ? 'create' : 'patch'
    const schema = (method === 'create' ? resource.createSchema : resource.patchSchema) as Json
    const fields = resource.fields
    const base = () => (method === 'create' ? validCreateBody(resource, seed.ctx) : {})
    const refused = Object.keys(fields).filter((f) => !fields[f][method])
    const mutations: fc.Arbitrary<[Json, string]>[] = [
      fc
        .constantFrom(...Object.keys(schema.properties))
        .chain((f) => badValueFor(schema.properties[f]).map((v): [Json, string] => [{ ...base(), [f]: v }, f])),
      injectionKey()
        .filter((k) => !Object.hasOwn(fields, k))
        .chain((k) => anyJsonValue().map((v): [Json, string] => [{ ...base(), [k]: v }, k]))
    ]
    if (refused.length > 0)
      mutations.push(
        fc
          .tuple(fc.constantFrom(...refused), anyJsonValue())
          .map(([f, v]): [Json, string] => [{ ...base(), [f]: v }, f])
      )
    for (const f of schema.required ?? []) {
      mutations.push(
        fc.constant(f).map((name): [Json, string] => {
          const body = base()
          delete body[name]
          return [body, name]
        })
      )
    }
    return fc.oneof(...mutations)
  }

  it('JSON bodies with wrong types, huge, deep or unicode values, unknown and read-only fields: 400 naming the field, nothing changed', async function () {
    await unchanged(async () => {
      for (const op of operations.filter((o) => o.registered && o.bodyType === 'json')) {
        await fc.assert(
          fc.asyncProperty(badBody(op), async ([body, field]) => {
            const res = await request(op, urlOf(op.template, seed), { body })
            assertRefused(op, res, body, [400])
            const named = Object.keys(res.body.data?.validationErrors ?? {})
            // A `__proto__` key anywhere is refused by the JSON parser, for the body as a whole
            // (a "__proto__" string as a value is just a bad value of its field).
            const expected = hasProtoKey(body) ? '' : field
            assert.ok(
              named.some((path) => path === expected || path.startsWith(`${expected}.`)),
              `${label(op)}: 400 names ${expected} (got ${named.join(', ')}) for ${preview(body)}`
            )
          }),
          settings(RUNS * 5)
        )
      }
    })
  })

  it('bodies that are not JSON objects (malformed, deep, scalars, other types, too large): 4xx, nothing changed', async function () {
    const oversized = `{"name":"${'x'.repeat(1024 * 1024 + 10)}"}`
    const raw = fc.oneof(
      // An empty body is no body: a PATCH without fields.
      fc
        .string({ minLength: 1, maxLength: 200, unit: 'binary' })
        .filter((t) => {
          try {
            const parsed = JSON.parse(t)
            return parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)
          } catch {
            return true
          }
        })
        .map((t) => ({ text: t, type: 'application/json' })),
      fc
        .integer({ min: 1000, max: 200000 })
        .map((n) => ({ text: '['.repeat(n) + ']'.repeat(n), type: 'application/json' })),
      fc
        .integer({ min: 1000, max: 100000 })
        .map((n) => ({ text: '{"a":'.repeat(n) + '1' + '}'.repeat(n), type: 'application/json' })),
      deepJson().map((v) => ({ text: JSON.stringify(v), type: 'application/json' })),
      fc
        .constantFrom('1', 'null', '"x"', '[]', '[{}]', 'true', '{', '{"a":1,}', "{'a':1}", '\u0000')
        .map((text) => ({ text, type: 'application/json' })),
      fc
        .tuple(
          fc.constantFrom(
            'text/plain',
            'application/x-www-form-urlencoded',
            'application/xml',
            'application/octet-stream',
            'text/html'
          ),
          fc.string({ minLength: 1, maxLength: 50 })
        )
        .map(([type, text]) => ({ text, type })),
      fc.constant({ text: oversized, type: 'application/json' })
    )
    await unchanged(async () => {
      for (const op of operations.filter((o) => o.method === 'POST' || o.method === 'PATCH')) {
        await fc.assert(
          fc.asyncProperty(raw, async ({ text, type }) => {
            const res = await request(op, urlOf(op.template, seed), { raw: text, contentType: type })
            assertRefused(op, res, { type, text: text.slice(0, 80), length: text.length })
          }),
          settings(RUNS * 2)
        )
      }
    })
  })

  /** A multipart form that is wrong somewhere: unknown or bad text parts, no file, a second or misnamed file. */
  function badForm(op: Operation) {
    const properties = (op.formSchema?.properties ?? {}) as Record<string, Json>
    const textFields = Object.keys(properties).filter((f) => f !== 'file')
    const unknown = injectionKey().filter((k) => !Object.hasOwn(properties, k))
    const part = fc.oneof(
      fc.tuple(unknown, nastyString()).map(([name, value]) => ({ name, value, file: true })),
      fc.constantFrom(...textFields).chain((name) => {
        const integer = nonNull(properties[name]).type === 'integer'
        const values = integer
          ? fc.constantFrom('abc', '-1', '0', '1.5', '99999999999', '{"$gt":0}')
          : fc.oneof(fc.string({ minLength: 10001, maxLength: 12000 }), fc.constant('a\u0000b'))
        return values.map((value) => ({ name, value, file: true }))
      }),
      fc.constantFrom(
        { name: 'file', value: 'text instead of a file', file: false },
        { name: 'other', value: 'x', file: true, second: 'file' },
        { name: 'attachment', value: 'x', file: false, second: 'attachment' },
        { name: 'file', value: '', file: false, second: 'empty' }
      )
    )
    return part.map(
      ({ name, value, file, second }: { name: string; value: string; file: boolean; second?: string }) => {
        const form = new FormData()
        form.append(name, value)
        if (file) form.append('file', new Blob(['fuzz\n']), 'fuzz.txt')
        if (second === 'file') form.append('file', new Blob(['again\n']), 'again.txt')
        if (second === 'attachment') form.append('attachment', new Blob(['x\n']), 'x.txt')
        if (second === 'empty') form.append('file', new Blob([]), 'empty.txt')
        return { form, shown: { name, value: value.slice(0, 50), file, second } }
      }
    )
  }

  it('multipart forms with unknown, wrong or missing parts: 400, no row and no file kept', async function () {
    await unchanged(async () => {
      for (const op of operations.filter((o) => o.bodyType === 'multipart')) {
        await fc.assert(
          fc.asyncProperty(badForm(op), async ({ form, shown }) => {
            const res = await request(op, urlOf(op.template, seed), { raw: form })
            assertRefused(op, res, shown, [400])
          }),
          settings(RUNS * 4)
        )
      }
    })
  })

  it('prototype keys in bodies and queries neither pollute objects nor answer 5xx, and change nothing', async function () {
    const before = Object.getOwnPropertyNames(Object.prototype).sort()
    await unchanged(async () => {
      for (const op of operations) {
        if (op.bodyType === 'json' && op.registered) {
          const body = JSON.stringify(validBody(op).body)
          for (const extra of ['"__proto__":{"polluted":"body"}', '"constructor":{"prototype":{"polluted":"body"}}']) {
            const text = body === '{}' ? `{${extra}}` : `${body.slice(0, -1)},${extra}}`
            const res = await request(op, urlOf(op.template, seed), { raw: text, contentType: 'application/json' })
            assertRefused(op, res, text, [400])
          }
        }
        if (op.bodyType === 'multipart') {
          // The form parser drops a bare `__proto__` part unseen, so that one goes without a file (400 all the same).
          for (const name of [
            '__proto__[polluted]',
            'constructor[prototype][polluted]',
            'constructor',
            'toString',
            '__proto__'
          ]) {
            const form = new FormData()
            form.append(name, 'form')
            if (name !== '__proto__') form.append('file', new Blob(['x\n']), 'x.txt')
            assertRefused(op, await request(op, urlOf(op.template, seed), { raw: form }), name, [400])
          }
        }
        for (const query of [
          { '__proto__[polluted]': 'query' },
          { 'constructor[prototype][polluted]': 'query' },
          { '__proto__.polluted': 'query' },
          { toString: 'query' }
        ]) {
          const res = await request(op, urlOf(op.template, seed), { ...validBody(op), query })
          assertRefused(op, res, query, [400])
        }
      }
    })
    assert.equal(({} as Json).polluted, undefined)
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), before)
  })

  /** A valid create body whose texts are any unicode (NUL, lone surrogates, RTL, emoji) and whose numbers and instants sit at their bounds. */
  function unusualBody(op: Operation) {
    const resource = op.registered!.resource
    const schema = resource.createSchema as Json
    const parts: Record<string, fc.Arbitrary<unknown>> = {}
    for (const [name, prop] of Object.entries<Json>(schema.properties)) {
      const s = nonNull(prop)
      if (resource.references?.[name]) continue
      if (isPlainString(prop)) {
        const maxLength = Math.min(s.maxLength ?? 255, 300)
        parts[name] = fc.oneof(fc.string({ maxLength, unit: 'binary' }), fc.string({ maxLength, unit: 'grapheme' }))
      } else if (s.type === 'integer' || s.type === 'number')
        parts[name] = fc.constantFrom(s.minimum ?? -(2 ** 31), s.maximum ?? 2 ** 31 - 1, 0)
      else if (s.format === 'date-time')
        parts[name] = fc.constantFrom(
          '0001-01-01T00:00:00Z',
          '9999-12-31T23:59:59.999Z',
          '1970-01-01T00:00:00Z',
          '2026-03-29T02:30:00+01:00',
          '2026-11-22T09:30:00.123456Z',
          '2026-11-22T23:59:59-12:00'
        )
    }
    return fc
      .record(parts, { requiredKeys: [] })
      .map((changes) => ({ ...validCreateBody(resource, seed.ctx), ...changes }))
  }

  it('unusual but well-typed values (any unicode, bounds, extreme instants) never answer 5xx; text round-trips', async function () {
    const wellFormed = (text: string) => !/[\uD800-\uDFFF]/.test(text.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ''))
    for (const op of operations.filter((o) => o.kind === 'create' && o.bodyType === 'json')) {
      const resource = op.registered!.resource
      await fc.assert(
        fc.asyncProperty(unusualBody(op), async (body) => {
          const res = await request(op, urlOf(op.template, seed), { body })
          if (res.status >= 500)
            throw new AssertionError({
              message: `${label(op)} answered ${res.status} to ${preview(body)}: ${res.text.slice(0, 300)}`
            })
          if (res.status !== 201) return
          for (const [name, value] of Object.entries(body)) {
            const prop = (resource.createSchema as Json).properties[name]
            const field = resource.fields[name]
            if (
              typeof value === 'string' &&
              isPlainString(prop) &&
              field.output &&
              !field.writeSchema &&
              wellFormed(value) &&
              acceptedBy(prop, value)
            ) {
              assert.equal(res.body[name], value, `${label(op)}: ${name} round-trips`)
            }
          }
        }),
        settings(RUNS * 2)
      )
    }
  })
})
