import assert from 'node:assert/strict'
import { gzipSync } from 'node:zlib'
import { forEachDatabase, TestCompany } from '../support/harness'

/** CONTRACT §3: the conventions every resource shares, exercised through one of them. */
forEachDatabase('HTTP conventions', (suite) => {
  let a: TestCompany

  before(async () => {
    a = await suite.company()
  })

  describe('status codes', () => {
    it('answers JSON with charset for success and errors', async () => {
      const res = await a.api.get('/v1/customers')
      assert.equal(res.status, 200)
      assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8')
      const err = await a.api.get('/v1/customers/999999')
      assert.equal(err.status, 404)
      assert.deepEqual(Object.keys(err.body).sort(), ['className', 'code', 'message', 'name'])
      assert.equal(err.body.name, 'NotFound')
    })

    it('405 for PUT and for methods a resource does not offer', async () => {
      const created = await a.api.post('/v1/customers', { companyName: 'PUT target' })
      const put = await a.api.put(`/v1/customers/${created.body.id}`, { companyName: 'x' })
      assert.equal(put.status, 405)
      assert.equal(put.body.name, 'MethodNotAllowed')
      assert.equal((await a.api.put('/v1/customers', {})).status, 405)
      const before = (await a.api.get('/v1/customers')).body.total
      const post = await a.api.post(`/v1/customers/${created.body.id}`, { companyName: 'not created' })
      assert.equal(post.status, 405)
      assert.equal((await a.api.get('/v1/customers')).body.total, before)
    })

    it('400 naming the parameter for ids that are not int32 integers', async () => {
      for (const bad of ['abc', '1.5', '-1', '0', '2147483648', '99999999999']) {
        const res = await a.api.get(`/v1/customers/${bad}`)
        assert.equal(res.status, 400, bad)
        assert.ok(res.body.data.validationErrors.customerId, bad)
      }
      assert.equal((await a.api.get('/v1/customers/2147483647')).status, 404)
    })

    it('404 JSON for unknown routes', async () => {
      const res = await a.api.get('/v1/no-such-thing')
      assert.equal(res.status, 404)
      assert.equal(res.body.name, 'NotFound')
      assert.equal((await suite.server().http.get('/nope')).body.name, 'NotFound')
    })

    it('404 for a path that leaves public/, 400 for one that is not valid percent-encoding: never a 500', async () => {
      const { http } = suite.server()
      // `%2f` is no separator to the URL parser, so the path reaches the static files as sent.
      for (const path of ['/docs/..%2f..%2fpackage.json', '/settings/..%2f..%2fpackage.json', '/..%2fpackage.json']) {
        const res = await http.get(path)
        assert.equal(res.status, 404, `${path}: ${res.text}`)
        assert.equal(res.body.name, 'NotFound', path)
      }
      const undecodable = await http.get('/docs/%E0%A4%A')
      assert.equal(undecodable.status, 400, undecodable.text)
    })
  })

  describe('bodies', () => {
    it('takes JSON in UTF-8 only: bytes that are not UTF-8 and unpaired surrogates are a 400, nothing stored as U+FFFD', async () => {
      const tag = `UTF8-${process.pid}-${Date.now()}`
      const total = async () => (await a.api.get('/v1/customers', { 'companyName[$like]': `${tag}%` })).body.total
      const post = (body: BodyInit, headers: Record<string, string> = {}) =>
        a.api.post('/v1/customers', undefined, {
          raw: body,
          headers: { 'content-type': 'application/json', ...headers }
        })
      // Latin-1 "Müller": the byte 0xFC is no UTF-8, whatever charset the header names.
      const latin1 = Buffer.from(`{"companyName":"${tag} M\xfcller"}`, 'latin1')
      for (const type of ['application/json', 'application/json; charset=iso-8859-1']) {
        const res = await post(latin1, { 'content-type': type })
        assert.equal(res.status, 400, `${type}: ${res.text}`)
        assert.match(res.body.message, /not valid UTF-8/)
      }
      // A JSON escape of half a surrogate pair: valid JSON, no text any database stores as sent.
      const lone = await post(`{"companyName":"${tag} ls-\\ud800-x"}`)
      assert.equal(lone.status, 400, lone.text)
      assert.match(lone.body.data.validationErrors.companyName, /unpaired surrogate/)
      assert.equal(await total(), 0)
      // UTF-8 of every length, escaped pairs and gzip-compressed bodies are read as sent.
      const names = [`${tag} Müller`, `${tag} Ünal 🏗️ Ελλάδα`, `${tag} \ud83c\udfd7`]
      for (const name of names) {
        const res = await post(`{"companyName":"${name}"}`)
        assert.equal(res.status, 201, res.text)
        assert.equal(res.body.companyName, JSON.parse(`"${name}"`))
      }
      const gzipped = await post(gzipSync(Buffer.from(JSON.stringify({ companyName: `${tag} Größe` }), 'utf8')), {
        'content-encoding': 'gzip'
      })
      assert.equal(gzipped.status, 201, gzipped.text)
      assert.equal(gzipped.body.companyName, `${tag} Größe`)
      assert.equal(await total(), names.length + 1)
    })

    it('400 for malformed JSON, never a 500', async () => {
      const res = await a.api.post('/v1/customers', undefined, {
        raw: '{"companyName": ',
        headers: { 'content-type': 'application/json' }
      })
      assert.equal(res.status, 400)
      assert.equal(res.body.name, 'BadRequest')
    })

    it('400 for a JSON body that is not an object', async () => {
      for (const raw of ['[]', '"text"', '[{"companyName":"x"}]']) {
        const res = await a.api.post('/v1/customers', undefined, {
          raw,
          headers: { 'content-type': 'application/json' }
        })
        assert.equal(res.status, 400, raw)
      }
    })

    it('415 for a body that is not JSON', async () => {
      const res = await a.api.post('/v1/customers', undefined, {
        raw: 'companyName=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' }
      })
      assert.equal(res.status, 415)
      assert.equal(res.body.name, 'UnsupportedMediaType')
    })

    it('413 for a JSON body over 1 MiB, and nothing is stored', async () => {
      const before = await a.api.get('/v1/customers')
      const res = await a.api.post('/v1/customers', { companyName: 'big', title: 'x'.repeat(1024 * 1024) })
      assert.equal(res.status, 413)
      assert.equal(res.body.name, 'PayloadTooLarge')
      assert.equal((await a.api.get('/v1/customers')).body.total, before.body.total)
    })

    it('names unknown, read-only and too long fields in data.validationErrors', async () => {
      const res = await a.api.post('/v1/customers', {
        companyName: 'x'.repeat(256),
        id: 7,
        createdAt: '2026-01-01T00:00:00Z',
        companyId: 2,
        nonsense: true,
        billingAddress: { street: 1, latitude: 1, planet: 'Mars' }
      })
      assert.equal(res.status, 400)
      assert.deepEqual(res.body.data.validationErrors, {
        id: 'is read-only',
        createdAt: 'is read-only',
        companyId: 'is not a field of Customer',
        nonsense: 'is not a field of Customer',
        companyName: 'must be at most 255 characters long',
        'billingAddress.street': 'must be a string or null',
        'billingAddress.latitude': 'is read-only',
        'billingAddress.planet': 'is not a field of this object'
      })
    })

    it('never half-writes: a rejected body leaves the record unchanged', async () => {
      const created = await a.api.post('/v1/customers', { companyName: 'Stable', number: 'S-1' })
      const res = await a.api.patch(`/v1/customers/${created.body.id}`, {
        number: 'S-2',
        emails: [{ emailAddress: 'bad' }]
      })
      assert.equal(res.status, 400)
      assert.equal((await a.api.get(`/v1/customers/${created.body.id}`)).body.number, 'S-1')
    })
  })

  describe('lists', () => {
    let tag: string
    before(async () => {
      tag = `L${Date.now()}`
      for (let i = 0; i < 27; i++) {
        const res = await a.api.post('/v1/customers', {
          companyName: `${tag} ${String(i).padStart(2, '0')}`,
          number: String(i % 3)
        })
        assert.equal(res.status, 201)
      }
    })

    it('returns the envelope with page, pages, size, total and items, default size 10, ordered by id', async () => {
      const res = await a.api.get('/v1/customers', { 'companyName[$like]': `${tag}%` })
      assert.equal(res.status, 200)
      assert.deepEqual(Object.keys(res.body).sort(), ['items', 'page', 'pages', 'size', 'total'])
      assert.equal(res.body.page, 0)
      assert.equal(res.body.size, 10)
      assert.equal(res.body.total, 27)
      assert.equal(res.body.pages, 3)
      assert.equal(res.body.items.length, 10)
      const ids = res.body.items.map((c: any) => c.id)
      assert.deepEqual(
        ids,
        [...ids].sort((x, y) => x - y)
      )
    })

    it('pages through with page and size; a page past the end is empty', async () => {
      const last = await a.api.get('/v1/customers', { 'companyName[$like]': `${tag}%`, page: 2, size: 10 })
      assert.equal(last.body.items.length, 7)
      assert.equal(last.body.total, 27, 'the count of a short last page is the whole match')
      // The total rides on the page's rows (one statement): a page past the end has none and is counted apart.
      const past = await a.api.get('/v1/customers', { 'companyName[$like]': `${tag}%`, page: 9, size: 20 })
      assert.equal(past.status, 200)
      assert.deepEqual(past.body.items, [])
      assert.equal(past.body.pages, 2)
      assert.equal(past.body.total, 27)
      const none = await a.api.get('/v1/customers', { 'companyName[$like]': `${tag}-nothing%` })
      assert.deepEqual([none.body.items, none.body.total, none.body.pages], [[], 0, 0])
      const single = await a.api.get(`/v1/customers/${last.body.items[0].id}`)
      assert.deepEqual(last.body.items[0], single.body, 'a listed record is the record, with no column of the count')
    })

    it('400 for page and size out of range or not integers, naming them', async () => {
      for (const query of [{ size: 0 }, { size: 21 }, { size: 'ten' }, { page: -1 }, { page: 1.5 }] as Record<
        string,
        string | number
      >[]) {
        const res = await a.api.get('/v1/customers', query)
        assert.equal(res.status, 400, JSON.stringify(query))
        assert.deepEqual(Object.keys(res.body.data.validationErrors), Object.keys(query))
      }
    })

    it('400 for unknown parameters and operators, and for operator injection', async () => {
      for (const [query, key] of [
        [{ surname: 'x' }, 'surname'],
        [{ 'companyName[$where]': '1' }, 'companyName[$where]'],
        [{ '$or[0][companyName]': 'x' }, '$or'],
        [{ $limit: '5' }, '$limit'],
        [{ $select: 'id' }, '$select'],
        [{ 'companyName[$like][$gt]': 'x' }, 'companyName[$like]'],
        [{ '$sort[surname]': '1' }, '$sort[surname]'],
        [{ '$sort[id]': '2' }, '$sort[id]'],
        [{ 'id[$like]': '1' }, 'id[$like]']
      ] as [Record<string, string>, string][]) {
        const res = await a.api.get('/v1/customers', query)
        assert.equal(res.status, 400, JSON.stringify(query))
        assert.ok(
          res.body.data.validationErrors[key],
          `${JSON.stringify(query)} → ${JSON.stringify(res.body.data.validationErrors)}`
        )
      }
    })

    it('400 for timestamp filters that are not ISO 8601 date-times with a zone', async () => {
      for (const value of ['yesterday', '2026-11-22', '2026-11-22T10:00:00', '2026-13-01T00:00:00Z', '1700000000']) {
        const res = await a.api.get('/v1/customers', { 'createdAt[$gt]': value })
        assert.equal(res.status, 400, value)
        assert.match(res.body.message, /createdAt\[\$gt\] must be an ISO 8601 date-time/)
      }
    })

    it('compares timestamps given with an offset correctly', async () => {
      const first = (await a.api.get('/v1/customers', { 'companyName[$like]': `${tag}%`, size: 1 })).body.items[0]
      const instant = new Date(first.createdAt)
      const withOffset = new Date(instant.getTime() - 1)
        .toISOString()
        .replace('Z', '+00:00')
        .replace(/T(\d\d)/, (_m, h) => `T${h}`)
      const res = await a.api.get('/v1/customers', { 'companyName[$like]': `${tag}%`, 'createdAt[$gt]': withOffset })
      assert.equal(res.body.total, 27)
      // The same instant (plus a second, the offset form drops milliseconds) written in +02:00.
      const shifted = new Date(instant.getTime() + 1000 + 3600_000 * 2).toISOString().slice(0, 19) + '+02:00'
      const same = await a.api.get('/v1/customers', { 'companyName[$like]': `${tag}%`, 'createdAt[$lte]': shifted })
      assert.ok(same.body.total >= 1)
    })

    it('$like folds the case of every letter, not only ASCII (Müller, ÖL, Città), and keeps its wildcards', async () => {
      const mark = `u${Date.now().toString(36)}`
      for (const companyName of [
        `${mark} Elektro MÜLLER`,
        `${mark} Öl & Gas`,
        `${mark} Città Bianca`,
        `${mark} Straße [Nord]*?`
      ]) {
        assert.equal((await a.api.post('/v1/customers', { companyName })).status, 201)
      }
      const names = async (pattern: string) =>
        (await a.api.get('/v1/customers', { 'companyName[$like]': pattern, '$sort[companyName]': 1 })).body.items.map(
          (c: any) => c.companyName.slice(mark.length + 1)
        )
      assert.deepEqual(await names(`${mark}%müller%`), ['Elektro MÜLLER'])
      assert.deepEqual(await names(`${mark.toUpperCase()} öL%`), ['Öl & Gas'])
      assert.deepEqual(await names(`%${mark} CITTÀ%`), ['Città Bianca'])
      assert.deepEqual(await names(`${mark} citt_ %`), ['Città Bianca'])
      assert.deepEqual(await names(`${mark} straße [nord]*?`), ['Straße [Nord]*?'])
      assert.deepEqual(await names(`${mark} straße [nord]%`), ['Straße [Nord]*?'])
      assert.deepEqual(await names(`${mark} straße [nord]`), [])
      assert.deepEqual(await names(`${mark} ö%`), ['Öl & Gas'])
      assert.equal(
        (
          await a.api.get('/v1/customers', {
            'companyName[$like]': `${mark}%ü%`,
            'companyName[$ne]': `${mark} Elektro MÜLLER`
          })
        ).body.total,
        0
      )
      assert.equal(
        (await (await suite.company()).api.get('/v1/customers', { 'companyName[$like]': `${mark}%ü%` })).body.total,
        0
      )
    })

    it('$like is case-insensitive and $in/$nin/$ne work, null matches null', async () => {
      const upper = await a.api.get('/v1/customers', { 'companyName[$like]': `${tag.toLowerCase()} 0%` })
      assert.equal(upper.body.total, 10)
      const inList = await a.api.get('/v1/customers', { 'companyName[$like]': `${tag}%`, 'number[$in]': ['0', '1'] })
      assert.equal(inList.body.total, 18)
      const ne = await a.api.get('/v1/customers', { 'companyName[$like]': `${tag}%`, 'number[$ne]': '0' })
      assert.equal(ne.body.total, 18)
      const nin = await a.api.get('/v1/customers', { 'companyName[$like]': `${tag}%`, 'number[$nin]': '0' })
      assert.equal(nin.body.total, 18)
      await a.api.post('/v1/customers', { companyName: `${tag} no number` })
      const isNull = await a.api.get('/v1/customers', { 'companyName[$like]': `${tag}%`, number: 'null' })
      assert.equal(isNull.body.total, 1)
    })

    it('sorts by a filterable field, ties broken by id', async () => {
      const res = await a.api.get('/v1/customers', { 'companyName[$like]': `${tag}%`, '$sort[number]': -1, size: 20 })
      const rows = res.body.items.map((c: any) => [c.number, c.id])
      // Descending, nulls last, ties by id ascending.
      const rank = (v: string | null) => (v === null ? -Infinity : Number(v))
      const expected = [...rows].sort((x, y) => (x[0] === y[0] ? x[1] - y[1] : rank(y[0]) - rank(x[0])))
      assert.deepEqual(rows, expected)
    })
  })
})
