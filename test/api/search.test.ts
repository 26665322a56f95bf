import assert from 'node:assert/strict'
import { forEachDatabase, TestCompany } from '../support/harness'
import { SELECTIVE_CANDIDATES, searchCandidates } from '../../src/db/search-index'
import { pgTrgmTrigrams } from '../../src/db/search-terms'

/**
 * `[$like]` searches on the indexed text fields (assignments' name, customers' companyName): the
 * same answers on both databases, whether SQLite's trigram index narrows the search (a run of
 * three or more characters between wildcards) or not.
 */
forEachDatabase('search ($like on indexed fields)', (suite) => {
  let a: TestCompany
  let b: TestCompany
  const customers = new Map<TestCompany, number>()

  const newAssignment = async (company: TestCompany, name: string) => {
    const res = await company.api.post('/v1/assignments', { name, customerId: customers.get(company) })
    assert.equal(res.status, 201)
    return res.body.id as number
  }
  /** The names a `$like` search finds, sorted, and the envelope's total. */
  const search = async (company: TestCompany, pattern: string, path = '/v1/assignments', field = 'name') => {
    const res = await company.api.get(path, { [`${field}[$like]`]: pattern, size: 20 })
    assert.equal(res.status, 200, `${pattern}: ${res.text}`)
    return {
      names: (res.body.items as Record<string, string>[]).map((item) => item[field]).sort(),
      total: res.body.total as number
    }
  }
  const names = async (company: TestCompany, pattern: string) => {
    const { names, total } = await search(company, pattern)
    assert.equal(total, names.length, `${pattern}: total`)
    return names
  }

  before(async () => {
    a = await suite.company()
    b = await suite.company()
    for (const company of [a, b]) {
      customers.set(company, (await company.api.post('/v1/customers', { companyName: 'Kunde' })).body.id)
    }
    for (const name of [
      'Kabel verlegen',
      'KABELSCHACHT Nord',
      'Kabeltrommel Isabel',
      'Altes Kabel',
      'Dach abdichten',
      'Elektro MÜLLER',
      'Cantiere città alta',
      'Zoll 5" Rohr',
      'Haus 7a-b',
      'Hauptstraße 5',
      'ϳota-Werk'
    ]) {
      await newAssignment(a, name)
    }
    for (const name of ['Kabel B-Firma', 'Elektro Müller B', 'Haus 9a-b']) await newAssignment(b, name)
  })

  it('finds infix, prefix, suffix and exact patterns, ignoring the case of ASCII letters', async () => {
    assert.deepEqual(await names(a, '%kabel%'), [
      'Altes Kabel',
      'KABELSCHACHT Nord',
      'Kabel verlegen',
      'Kabeltrommel Isabel'
    ])
    assert.deepEqual(await names(a, 'kabel%'), ['KABELSCHACHT Nord', 'Kabel verlegen', 'Kabeltrommel Isabel'])
    assert.deepEqual(await names(a, '%KABEL'), ['Altes Kabel'])
    assert.deepEqual(await names(a, 'altes kabel'), ['Altes Kabel'])
    assert.deepEqual(await names(a, 'kabel'), [])
    assert.deepEqual(await names(a, '%kabelx%'), [])
  })

  it('folds the case of non-ASCII letters too', async () => {
    assert.deepEqual(await names(a, '%müller%'), ['Elektro MÜLLER'])
    assert.deepEqual(await names(a, '%CITTÀ%'), ['Cantiere città alta'])
    assert.deepEqual(await names(a, '%città a_ta'), ['Cantiere città alta'])
    assert.deepEqual(await names(a, '%STRAßE%'), ['Hauptstraße 5'])
    assert.deepEqual(await names(a, '%STRAẞE%'), ['Hauptstraße 5'])
    // Greek capital yot (Unicode 7.0) is the upper case of ϳ; FTS5's case folding (Unicode 6.1) does not know it.
    assert.deepEqual(await names(a, '%Ϳota-w%'), ['ϳota-Werk'])
  })

  it('takes _ as exactly one character', async () => {
    assert.deepEqual(await names(a, '%kabel_verlegen'), ['Kabel verlegen'])
    assert.deepEqual(await names(a, '%kabel__verlegen'), [])
    assert.deepEqual(await names(a, '_abel%'), ['KABELSCHACHT Nord', 'Kabel verlegen', 'Kabeltrommel Isabel'])
  })

  it('matches the parts around an inner % in their order', async () => {
    assert.deepEqual(await names(a, '%kab%bel%'), ['Kabeltrommel Isabel'])
    assert.deepEqual(await names(a, '%bel%kab%'), [])
    assert.deepEqual(await names(a, '%schacht%nord'), ['KABELSCHACHT Nord'])
  })

  it('searches for a double quote like any other character', async () => {
    assert.deepEqual(await names(a, '%5" Roh%'), ['Zoll 5" Rohr'])
    assert.deepEqual(await names(a, '%"%'), ['Zoll 5" Rohr'])
    assert.deepEqual(await names(a, '%""%'), [])
  })

  it('answers patterns without a run of three characters', async () => {
    assert.deepEqual(await names(a, '%ab%'), [
      'Altes Kabel',
      'Dach abdichten',
      'KABELSCHACHT Nord',
      'Kabel verlegen',
      'Kabeltrommel Isabel'
    ])
    assert.deepEqual(await names(a, '%a_b%'), ['Haus 7a-b'])
    assert.deepEqual(await names(a, '%ü%'), ['Elektro MÜLLER'])
  })

  it('finds a renamed record under its new name only', async () => {
    const id = await newAssignment(a, 'Glasfaser Altbau')
    assert.deepEqual(await names(a, '%glasfaser%'), ['Glasfaser Altbau'])
    assert.equal((await a.api.patch(`/v1/assignments/${id}`, { name: 'Lichtwellenleiter Altbau' })).status, 200)
    assert.deepEqual(await names(a, '%glasfaser%'), [])
    assert.deepEqual(await names(a, '%lichtwellen%'), ['Lichtwellenleiter Altbau'])
    assert.deepEqual(await names(a, '%altbau'), ['Lichtwellenleiter Altbau'])
    // A patch of another field keeps the record findable.
    assert.equal((await a.api.patch(`/v1/assignments/${id}`, { comment: 'Keller' })).status, 200)
    assert.deepEqual(await names(a, '%lichtwellen%'), ['Lichtwellenleiter Altbau'])
  })

  it('drops a deleted record from the results and the total', async () => {
    const id = await newAssignment(a, 'Abrissbirne')
    assert.deepEqual(await search(a, '%abriss%'), { names: ['Abrissbirne'], total: 1 })
    assert.equal((await a.api.delete(`/v1/assignments/${id}`)).status, 204)
    assert.deepEqual(await search(a, '%abriss%'), { names: [], total: 0 })
  })

  it("never shows or counts another company's matches", async () => {
    assert.deepEqual(await search(b, '%kabel%'), { names: ['Kabel B-Firma'], total: 1 })
    assert.deepEqual(await search(b, '%MÜLLER%'), { names: ['Elektro Müller B'], total: 1 })
    assert.deepEqual(await search(b, '%a_b%'), { names: ['Haus 9a-b'], total: 1 })
    assert.deepEqual((await search(a, '%firma%')).total, 0)
  })

  it('counts every match and pages through them in id order', async () => {
    const fresh = await suite.company()
    customers.set(fresh, (await fresh.api.post('/v1/customers', { companyName: 'Kunde' })).body.id)
    const created: number[] = []
    for (let i = 1; i <= 25; i++)
      created.push(await newAssignment(fresh, `Serienauftrag ${String(i).padStart(2, '0')}`))
    await newAssignment(fresh, 'Einzelauftrag')
    for (let i = 0; i < 3; i++) await newAssignment(b, `Serienauftrag B${i}`)
    const seen: number[] = []
    for (const page of [0, 1, 2]) {
      const res = await fresh.api.get('/v1/assignments', { 'name[$like]': '%serienauftrag%', size: 10, page })
      assert.equal(res.status, 200)
      assert.deepEqual([res.body.total, res.body.pages, res.body.items.length], [25, 3, page < 2 ? 10 : 5])
      seen.push(...res.body.items.map((item: { id: number }) => item.id))
    }
    assert.deepEqual(seen, created)
  })

  it("searches customers' companyName the same way", async () => {
    for (const companyName of ['Elektro Müller GmbH', 'MÜLLEREI Schmidt', 'Sanitär Rossi', 'Città Servizi']) {
      assert.equal((await a.api.post('/v1/customers', { companyName })).status, 201)
    }
    await a.api.post('/v1/customers', { firstName: 'Anna', surname: 'Rossi' })
    await b.api.post('/v1/customers', { companyName: 'Müller Fremdfirma' })
    const customerNames = async (pattern: string) => (await search(a, pattern, '/v1/customers', 'companyName')).names
    assert.deepEqual(await customerNames('%müller%'), ['Elektro Müller GmbH', 'MÜLLEREI Schmidt'])
    assert.deepEqual(await customerNames('%müller gmbh'), ['Elektro Müller GmbH'])
    assert.deepEqual(await customerNames('sanit_r%'), ['Sanitär Rossi'])
    assert.deepEqual(await customerNames('%città%'), ['Città Servizi'])
    const id = (await a.api.get('/v1/customers', { 'companyName[$like]': 'sanitär rossi' })).body.items[0].id
    assert.equal((await a.api.patch(`/v1/customers/${id}`, { companyName: 'Heizung Rossi' })).status, 200)
    assert.deepEqual(await customerNames('%sanitär%'), [])
    assert.deepEqual(await customerNames('%heizung%'), ['Heizung Rossi'])
    assert.equal((await a.api.delete(`/v1/customers/${id}`)).status, 204)
    assert.deepEqual(await customerNames('%heizung%'), [])
  })

  it('looks up only the rare part of a term whose other trigrams most rows share, with the same answers', async () => {
    const { knex, app } = suite.server()
    const c = await suite.company()
    customers.set(c, (await c.api.post('/v1/customers', { companyName: 'Kunde' })).body.id)
    // `QXZ-` in a third of all assignments or more: too frequent for the index to read.
    const [{ existing }] = await knex('assignments').count({ existing: 'id' })
    const orders = Math.max(300, Math.ceil(Number(existing) / 2))
    const created = new Map<number, string>()
    for (let i = 0; i < orders; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, orders - i) }, async (_, k) => {
          const name = `Wartung QXZ-${String(i + k).padStart(3, '0')}`
          created.set(await newAssignment(c, name), name)
        })
      )
    }
    // Decoys: the rare part without the frequent one, and the whole term in another company.
    await newAssignment(c, 'Altbau Z-017 und -01')
    await newAssignment(b, 'Wartung QXZ-017')
    app.get('dialect').forgetSamples()

    const statements: { sql: string; bindings: unknown[] }[] = []
    const record = (query: { sql: string; bindings?: unknown[] }) =>
      statements.push({ sql: query.sql, bindings: query.bindings ?? [] })
    knex.on('query', record)
    try {
      assert.deepEqual(await names(c, '%QXZ-017%'), ['Wartung QXZ-017'])
    } finally {
      knex.off('query', record)
    }
    const lookedUp =
      suite.db.name === 'sqlite'
        ? statements.filter(({ sql }) => / match /i.test(sql)).map(({ bindings }) => String(bindings[0]))
        : statements
            .filter(({ sql }) => /\|\| ''\) ilike/.test(sql))
            .flatMap(({ bindings }) =>
              bindings.filter((value) => typeof value === 'string' && value !== '%QXZ-017%').map(String)
            )
    assert.ok(lookedUp.length > 0, statements.map(({ sql }) => sql).join('\n'))
    for (const term of lookedUp) {
      assert.match(term, /017/, term)
      assert.doesNotMatch(term, /qxz/i, `the frequent trigrams are not looked up: ${term}`)
    }

    assert.deepEqual(await names(c, '%qxz-017'), ['Wartung QXZ-017'])
    assert.deepEqual(await names(c, 'wartung qxz-017'), ['Wartung QXZ-017'])
    assert.deepEqual(await names(c, '%QXZ-017x%'), [])
    const tens = [...created].filter(([, name]) => /QXZ-01\d$/.test(name)).sort(([x], [y]) => x - y)
    const page = await c.api.get('/v1/assignments', { 'name[$like]': '%QXZ-01%', size: 4, page: 2 })
    assert.equal(page.status, 200)
    assert.deepEqual(
      [page.body.total, page.body.pages, page.body.items.map((item: { id: number }) => item.id)],
      [10, 3, tens.slice(8).map(([id]) => id)]
    )
    assert.deepEqual(await search(b, '%QXZ-017%'), { names: ['Wartung QXZ-017'], total: 1 })
  })

  if (suite.db.name === 'postgres') {
    it("[postgres] counts a value's trigrams as pg_trgm makes them", async () => {
      const { knex } = suite.server()
      for (const value of [
        'Dach Bahnhofstraße 102 · K-100031',
        'Wartung QXZ-017',
        'a-b c',
        'Zoll 5" Rohr',
        'x',
        '  Città alta 7a-b '
      ]) {
        const { rows } = await knex.raw('select show_trgm(?) as trigrams', [value])
        // pg_trgm shows a trigram of more than three bytes as its hash (`0x…`): compared are the others.
        const expected = (rows[0].trigrams as string[]).filter((trigram) => !trigram.startsWith('0x')).sort()
        assert.deepEqual(
          pgTrgmTrigrams
            .ofValue(value)
            .filter((trigram) => /^[\x00-\x7f]*$/.test(trigram))
            .sort(),
          expected,
          value
        )
      }
    })
  }

  if (suite.db.name === 'sqlite') {
    const FTS_TABLES = ['assignments_name_fts', 'customers_company_name_fts']

    it('[sqlite] keeps the trigram indexes in step with their tables', async () => {
      const { knex } = suite.server()
      // FTS5's own check of an external-content index against its table: throws on any difference.
      for (const table of FTS_TABLES)
        await knex.raw(`insert into ??(??, rank) values ('integrity-check', 1)`, [table, table])
    })

    it('[sqlite] answers a search from the trigram index, not from a scan of the company', async () => {
      const { knex, app } = suite.server()
      const id = await newAssignment(a, 'Ölbrenner Wartung')
      const service = app.service('v1/assignments') as any
      const where = { name: { $like: '%ölbrenner%' }, 'assignments.companyId': a.id }
      const candidates = await searchCandidates(knex, 'assignments', where)
      assert.deepEqual(candidates, [id])
      const search = await app.get('dialect').searchList(knex, 'assignments', where)
      const query = service.createQuery({ company: { id: a.id }, query: where }, search)
      const plan = (
        (await knex.raw(`explain query plan ${query.toSQL().sql}`, query.toSQL().bindings)) as { detail: string }[]
      ).map((row) => row.detail)
      assert.ok(
        plan.some((step) => /SEARCH assignments USING INTEGER PRIMARY KEY/.test(step)),
        plan.join('\n')
      )
      assert.ok(!plan.some((step) => /assignments USING .*INDEX assignments_company/.test(step)), plan.join('\n'))
      // A row missing from the index is not found, although its name matches: the index decides the candidates.
      await knex.raw(`insert into assignments_name_fts(assignments_name_fts, rowid, name) values ('delete', ?, ?)`, [
        id,
        'Ölbrenner Wartung'
      ])
      try {
        assert.deepEqual(await names(a, '%ölbrenner%'), [])
        assert.deepEqual(await names(a, '%ölbr%'), [])
        // Without a run of three characters the LIKE alone answers.
        assert.deepEqual(await names(a, '%öl%'), ['Ölbrenner Wartung'])
      } finally {
        await knex.raw(`insert into assignments_name_fts(assignments_name_fts) values ('rebuild')`)
      }
      assert.deepEqual(await names(a, '%ölbrenner%'), ['Ölbrenner Wartung'])
    })

    it('[sqlite] scans the company instead when a term has too many candidates for the index to pay', async () => {
      const { knex } = suite.server()
      const c = await suite.company()
      customers.set(c, (await c.api.post('/v1/customers', { companyName: 'Kunde' })).body.id)
      const ids: number[] = []
      // More than the bound, also with one of them taken out of the index below. Created 25 at a
      // time: their ids follow the order their writes commit in, not their names.
      let seventh = 0
      for (let i = 0; i < SELECTIVE_CANDIDATES + 25; i += 25) {
        const created = await Promise.all(
          Array.from({ length: 25 }, (_, k) => newAssignment(c, `Leitung prüfen ${i + k}`))
        )
        if (i === 0) seventh = created[7]
        ids.push(...created)
      }
      ids.sort((x, y) => x - y)
      // Hidden from the index, the row is still found: the scan, not the index, answers the frequent term...
      await knex.raw(`insert into assignments_name_fts(assignments_name_fts, rowid, name) values ('delete', ?, ?)`, [
        seventh,
        'Leitung prüfen 7'
      ])
      try {
        const frequent = await c.api.get('/v1/assignments', { 'name[$like]': '%leitung%', size: 20, page: 0 })
        assert.equal(frequent.body.total, ids.length)
        assert.deepEqual(
          frequent.body.items.map((item: { id: number }) => item.id),
          ids.slice(0, 20)
        )
        // ...while a selective one still goes through it.
        assert.equal((await c.api.get('/v1/assignments', { 'name[$like]': '%leitung prüfen 7' })).body.total, 0)
        assert.equal((await c.api.get('/v1/assignments', { 'name[$like]': '%leitung prüfen 8' })).body.total, 1)
      } finally {
        await knex.raw(`insert into assignments_name_fts(assignments_name_fts) values ('rebuild')`)
      }
      assert.equal((await c.api.get('/v1/assignments', { 'name[$like]': '%leitung prüfen 7' })).body.total, 1)
    })
  }
})
