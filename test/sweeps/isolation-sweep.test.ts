import assert from 'node:assert/strict'
import { forEachDatabase } from '../support/harness'
import type { HttpResponse } from '../support/http'
import { socketClient } from '../support/socket'
import { until } from '../support/wait'
import {
  changedTables,
  fillTemplate,
  Json,
  label,
  loadOperations,
  newMarker,
  Operation,
  paramsFor,
  recordOf,
  resourcesOf,
  Seed,
  seedCompany,
  snapshotCompany,
  uncoveredServiceMethods,
  urlOf,
  validCreateBody,
  validValue
} from '../support/sweep'

/**
 * Tenant isolation, swept over every operation of the app's own description: company B (the
 * intruder) uses company A's ids in paths, bodies and filters, and must get 404/400, see nothing
 * of A in lists, descriptions, download links or socket events, and change nothing.
 */
forEachDatabase('isolation sweep', (suite) => {
  let operations: Operation[]
  let a: Seed
  let b: Seed
  /** Every id of A per table, including deactivated records. */
  const aIds = new Map<string, Set<number>>()
  const sockets: ReturnType<typeof socketClient>[] = []
  const events: Record<'a' | 'b', string[]> = { a: [], b: [] }
  /** Every response B got, searched for A's marker at the end. */
  const seenByB: string[] = []

  const asB = async (method: string, url: string, body?: unknown, options?: Json): Promise<HttpResponse> => {
    const res = await b.company.api.request(method, url, body, options)
    seenByB.push(`${method} ${url} → ${res.status}: ${res.text}`)
    return res
  }

  async function listen(apiKey: string, into: string[]) {
    const socket = socketClient(suite.server().url)
    sockets.push(socket)
    await socket.client.authenticate({ strategy: 'apiKey', apiKey })
    socket.socket.onAny((event: string) => {
      if (/ (created|patched|removed)$/.test(event)) into.push(event)
    })
  }

  before(async function () {
    const server = suite.server()
    operations = await loadOperations(server)
    b = await seedCompany(server, await suite.company(), operations)
    const marker = newMarker()
    const owner = await suite.company({ name: `Owner ${marker}` })
    // Listening before A writes anything: every event of A's seed must stay in A's channel.
    await listen(owner.apiKey, events.a)
    await listen(b.company.apiKey, events.b)
    a = await seedCompany(server, owner, operations, marker)
    for (const table of a.idsByTable.keys()) {
      aIds.set(table, new Set((await server.knex(table).where({ companyId: owner.id }).pluck('id')).map(Number)))
    }
  })

  after(() => sockets.forEach((s) => s.close()))

  /** Runs `work` and checks that neither company's data changed. */
  async function unchanged(work: () => Promise<void>) {
    const before = [
      await snapshotCompany(suite.server(), a.company.id),
      await snapshotCompany(suite.server(), b.company.id)
    ]
    await work()
    const after = [
      await snapshotCompany(suite.server(), a.company.id),
      await snapshotCompany(suite.server(), b.company.id)
    ]
    assert.deepEqual(changedTables(before[0], after[0]), [], "company A's data changed")
    assert.deepEqual(changedTables(before[1], after[1]), [], "company B's data changed")
  }

  /** A's value for one path parameter, the others B's: every way one foreign id can enter a path. */
  function foreignPaths(op: Operation): { url: string; foreign: string }[] {
    const own = paramsFor(op.template, b)
    const theirs = paramsFor(op.template, a)
    const variants = op.pathParams.map((param) => ({
      url: fillTemplate(op.template, { ...own, [param]: theirs[param] }),
      foreign: param
    }))
    if (op.pathParams.length > 1)
      variants.push({ url: fillTemplate(op.template, theirs), foreign: op.pathParams.join('+') })
    return variants
  }

  function bodyFor(op: Operation, seed: Seed, extra: Json = {}): { body?: Json; options?: Json } {
    if (op.bodyType === 'multipart') {
      const form = new FormData()
      form.append('file', new Blob(['isolation probe\n'], { type: 'text/plain' }), 'probe.txt')
      for (const [name, value] of Object.entries(extra)) form.append(name, String(value))
      return { options: { raw: form } }
    }
    if (op.method === 'POST' && op.registered)
      return { body: { ...validCreateBody(op.registered.resource, seed.ctx), ...extra } }
    if (op.method === 'PATCH') return { body: extra }
    return {}
  }

  it('sweeps every registered service method', () => {
    assert.deepEqual(uncoveredServiceMethods(suite.server(), operations), [])
    assert.ok(
      operations.some((op) => op.pathParams.length > 1),
      'nested paths are part of the sweep'
    )
  })

  it("answers 404 to another company's id in any path parameter, and changes nothing", async function () {
    await unchanged(async () => {
      for (const op of operations.filter((o) => o.pathParams.length > 0)) {
        for (const { url, foreign } of foreignPaths(op)) {
          const { body, options } = bodyFor(op, b)
          const res = await asB(op.method, url, body, options)
          // The signed download route refuses an unsigned request (403) before it looks anything up.
          const expected = op.kind === 'other' ? [403, 404] : [404]
          assert.ok(
            expected.includes(res.status),
            `${label(op)} with A's ${foreign}: ${res.status} ${res.text.slice(0, 300)}`
          )
        }
      }
    })
  })

  it("rejects another company's ids in every reference of a body with 400 naming the field", async function () {
    let checked = 0
    await unchanged(async () => {
      for (const op of operations.filter((o) => (o.kind === 'create' || o.kind === 'patch') && o.registered)) {
        const resource = op.registered!.resource
        const schema = (op.kind === 'create' ? resource.createSchema : resource.patchSchema) as Json
        const writable = op.bodyType === 'multipart' ? (op.formSchema?.properties ?? {}) : schema.properties
        for (const [field, ref] of Object.entries(resource.references ?? {})) {
          if (!writable[field]) continue
          const foreignId = [...(aIds.get(ref.table) ?? [])][0]
          assert.ok(foreignId, `company A has a ${ref.table} record`)
          const { body, options } = bodyFor(op, b, { [field]: ref.many ? [foreignId] : foreignId })
          const res = await asB(op.method, urlOf(op.template, b), body, options)
          assert.equal(res.status, 400, `${label(op)} with A's ${field}: ${res.text.slice(0, 300)}`)
          // A list reference names the item (`userIds.0`, CONTRACT §3.2).
          const path = ref.many ? `${field}.0` : field
          assert.ok(
            res.body.data?.validationErrors?.[path],
            `${label(op)}: validationErrors names ${path}: ${res.text.slice(0, 300)}`
          )
          checked++
        }
      }
    })
    assert.ok(checked > 10, `references checked: ${checked}`)
  })

  it('lists nothing of another company, whatever ids the filters name', async function () {
    const foreign = [...new Set([...aIds.values()].flatMap((ids) => [...ids]))].slice(0, 100)
    for (const op of operations.filter((o) => o.kind === 'list')) {
      const { resource, querySchema } = op.registered!
      const idFilters = Object.entries<Json>((querySchema as Json).properties).filter(
        ([, s]) => s.properties?.$in?.items?.type === 'integer'
      )
      const queries: Json[] = [
        {},
        ...idFilters.map(([name]) => ({ [`${name}[$in]`]: foreign })),
        ...idFilters.map(([name]) => ({ [name]: foreign[0] }))
      ]
      for (const query of queries) {
        const res = await asB('GET', urlOf(op.template, b), undefined, { query: { ...query, size: 20 } })
        assert.equal(res.status, 200, `${label(op)} ${JSON.stringify(query).slice(0, 100)}: ${res.text.slice(0, 300)}`)
        const leaked = res.body.items.filter((item: Json) => aIds.get(resource.table)?.has(item.id))
        assert.deepEqual(leaked, [], `${label(op)} ${Object.keys(query)} lists A's records`)
      }
    }
  })

  it('describes nothing of another company', async () => {
    const docs = operations.filter(
      (op) =>
        op.method === 'GET' && op.kind === 'other' && op.pathParams.length === 0 && op.query.every((p) => !p.required)
    )
    assert.ok(docs.length > 0)
    for (const op of docs) {
      const res = await asB('GET', op.template)
      assert.equal(res.status, 200, label(op))
    }
  })

  const validValueOf = (schema: Json, seed: Seed) => validValue(schema, seed.ctx)

  /** The table a query parameter names, from the declarations: a reference field or an id parameter. */
  function tableOfParameter(name: string): string | undefined {
    for (const { resource } of resourcesOf(suite.server())) {
      if (resource.idParam === name) return resource.table
      const ref = resource.references?.[name]
      if (ref && !ref.many) return ref.table
    }
    return undefined
  }

  /** The latest past date that is a Monday and the first of a month: a day, a week start and a month at once. */
  function periodDate() {
    const d = new Date()
    d.setUTCHours(0, 0, 0, 0)
    while (!(d.getUTCDate() === 1 && d.getUTCDay() === 1)) d.setUTCDate(d.getUTCDate() - 1)
    return d.toISOString().slice(0, 10)
  }

  it("answers 404 to look-ups (such as by-user) naming another company's records", async function () {
    const lookups = operations.filter(
      (op) => op.kind === 'other' && op.method === 'GET' && op.query.some((p) => p.required && tableOfParameter(p.name))
    )
    assert.ok(lookups.length > 0, 'the by-user look-ups of CONTRACT §7.7 are described')
    for (const op of lookups) {
      const query = (seed: Seed) =>
        Object.fromEntries(
          op.query
            .filter((p) => p.required)
            .map((p) => {
              const table = tableOfParameter(p.name)
              if (table) return [p.name, seed.idsByTable.get(table)![0]]
              const schema = p.schema ?? {}
              return [
                p.name,
                schema.format === 'date' ? periodDate() : (schema.enum?.[0] ?? String(validValueOf(schema, seed)))
              ]
            })
        )
      const own = await a.company.api.get(urlOf(op.template, a), query(a))
      assert.equal(own.status, 200, `${label(op)} for its own company: ${own.text.slice(0, 300)}`)
      const res = await asB('GET', urlOf(op.template, b), undefined, {
        query: {
          ...query(b),
          ...Object.fromEntries(Object.entries(query(a)).filter(([name]) => tableOfParameter(name)))
        }
      })
      assert.equal(res.status, 404, `${label(op)} with A's ids: ${res.text.slice(0, 300)}`)
    }
  })

  it('keeps download links to their own record: a link moved to another company’s ids is refused', async () => {
    let links = 0
    for (const op of operations.filter((o) => o.kind === 'get' && o.registered)) {
      const record = recordOf(b, op.registered!)
      if (!record) continue
      const res = await asB('GET', urlOf(op.template, b))
      assert.equal(res.status, 200)
      const urls = Object.values<unknown>(res.body).filter(
        (v): v is string => typeof v === 'string' && v.startsWith(suite.server().url)
      )
      for (const link of urls) {
        links++
        const own = await fetch(link)
        assert.equal(own.status, 200, `${link} works for its holder`)
        assert.match(await own.text(), /isolation probe|content of/)
        const theirs = paramsFor(op.template, a)
        for (const [param, id] of Object.entries(record.params)) {
          const moved = link.replace(`/${id}/`, `/${theirs[param]}/`)
          const res2 = await fetch(moved)
          assert.ok([403, 404].includes(res2.status), `${moved}: ${res2.status}`)
          assert.ok(!(await res2.text()).includes(a.marker))
        }
      }
    }
    assert.ok(links > 0, 'a download link was checked')
  })

  it("never shows A's marker in anything B received", () => {
    assert.ok(seenByB.length > 100, `responses checked: ${seenByB.length}`)
    const leaks = seenByB.filter((text) => text.includes(a.marker))
    assert.deepEqual(
      leaks.map((t) => t.slice(0, 300)),
      []
    )
  })

  it("sends none of A's created, patched and removed events to B's socket", async function () {
    // A changes and deletes its records (children first), so every kind of event is emitted.
    const created = a.records.filter((r) => r.created)
    for (const record of created) {
      const op = operations.find((o) => o.kind === 'patch' && o.registered === record.registered)
      if (op) assert.equal((await a.company.api.patch(urlOf(op.template, a), {})).status, 200, label(op))
    }
    for (const record of [...created].reverse()) {
      const op = operations.find((o) => o.kind === 'remove' && o.registered === record.registered)
      if (op) assert.equal((await a.company.api.delete(urlOf(op.template, a))).status, 204, label(op))
    }
    const kinds = () => new Set(events.a.map((e) => e.split(' ').pop()))
    await until(() => kinds().size >= 3)
    await new Promise((r) => setTimeout(r, 200))
    assert.deepEqual([...kinds()].sort(), ['created', 'patched', 'removed'], "A's own socket receives A's events")
    assert.ok(events.a.length >= created.length)
    assert.deepEqual(events.b, [], 'B received events of A')
  })
})
