import type { Knex } from 'knex'
import { createKnex } from '../src/db/knex'
import type { Engine } from './datasets'
import { customerNumber, type SeedInfo } from './seed'
import { createDialect, type ListSearch } from '../src/db/dialect'

/**
 * The query plans of the statements the scenarios run against the big tables: every list filter
 * and every per-user look-up must be an index range scan, so that its cost follows the rows it
 * returns, not the size of the table. The SQL is the service's, as knex renders it (the list and
 * count statements of the adapter, the look-ups of src/timesheets and the time-entry rules).
 */
export interface Plan {
  name: string
  sql: string
  plan: string[]
}

interface Statement {
  name: string
  query: (db: Knex) => Knex.QueryBuilder
}

const MONTH = { from: '2026-03-01T00:00:00.000Z', to: '2026-04-01T00:00:00.000Z' }

/** The `$like` patterns of the two search scenarios: a frequent word, and one customer's number. */
const SEARCHES = { 'list-assignments-like': '%Kabel%', 'list-assignments-search': `%${customerNumber(17)}%` }

function statements(engine: Engine, seed: SeedInfo, searches: Record<string, ListSearch>): Statement[] {
  const { id: companyId, userIds } = seed.companies[0]
  const userId = userIds.at(-1)!
  const list = (table: string, where: (q: Knex.QueryBuilder) => void, search?: ListSearch) => {
    const from = (db: Knex, builder: Knex.QueryBuilder) => {
      search?.apply(builder)
      return builder.where(where).where(`${table}.companyId`, companyId)
    }
    return [
      {
        name: `${table}: page`,
        query: (db: Knex) =>
          from(db, db(table).select(`${table}.*`))
            .orderByRaw('?? asc nulls last', [`${table}.id`])
            .limit(20)
      },
      { name: `${table}: count`, query: (db: Knex) => from(db, db(table).count({ total: '*' })) }
    ]
  }
  return [
    ...list('assignments', (q) => q.where('responsibleUserId', userId)).map((s) => ({
      ...s,
      name: `list-assignments ${s.name}`
    })),
    // `$like` as the service's dialect writes it (src/db/dialect.ts): ilike on PostgreSQL, looked up
    // without its frequent trigrams; on SQLite the trigram index narrows it where selective. A
    // filter the dialect leaves to the adapter is the adapter's ilike.
    ...Object.entries(SEARCHES).flatMap(([scenario, pattern]) => {
      const search = searches[scenario]
      const where = (q: Knex.QueryBuilder) => {
        if ((search.query.name as { $like?: string } | undefined)?.$like) q.where('name', 'ilike', pattern)
      }
      return list('assignments', where, search).map((s) => ({ ...s, name: `${scenario} ${s.name}` }))
    }),
    ...list('time_entries', (q) =>
      q.where('userId', userId).where('startsAt', '>=', MONTH.from).where('startsAt', '<', MONTH.to)
    ).map((s) => ({
      ...s,
      name: `list-time-entries-month ${s.name}`
    })),
    {
      name: 'by-user-month: the row of the period',
      query: (db) => db('time_sheet_months').where({ companyId, userId, month: '2026-03-01' }).first('id')
    },
    {
      name: 'post-time-entry: overlap check',
      query: (db) =>
        db('time_entries')
          .where({ companyId, userId })
          .select('id', 'startsAt', 'endsAt')
          .where('startsAt', '<=', '2026-11-02T07:00:00.000Z')
          .where((q) => q.whereNull('endsAt').orWhere('endsAt', '>=', '2026-11-02T06:00:00.000Z'))
    },
    {
      name: 'recomputation: the entries of a month',
      query: (db) =>
        db('time_entries')
          .where({ companyId, userId })
          .where('startsAt', '>=', MONTH.from)
          .where('startsAt', '<', MONTH.to)
          .select('startsAt', 'endsAt', 'workedMs')
    },
    {
      name: 'week fan-out: running entries',
      query: (db) => db('time_entries').where({ companyId, userId }).whereNull('endsAt').select('id', 'startsAt')
    }
  ]
}

async function explain(db: Knex, engine: Engine, query: Knex.QueryBuilder): Promise<string[]> {
  const { sql, bindings } = query.toSQL()
  if (engine === 'sqlite') {
    const rows: { detail: string }[] = await db.raw(`explain query plan ${sql}`, bindings as Knex.Value[])
    return rows.map((row) => row.detail)
  }
  const result = await db.raw(`explain (costs off) ${sql}`, bindings as Knex.Value[])
  return (result.rows as Record<string, string>[]).map((row) => Object.values(row)[0])
}

export async function queryPlans(engine: Engine, url: string, seed: SeedInfo): Promise<Plan[]> {
  const db = createKnex(url)
  try {
    const plans: Plan[] = []
    const dialect = createDialect(engine === 'pg' ? 'pg' : 'sqlite3')
    const searches: Record<string, ListSearch> = {}
    for (const [scenario, pattern] of Object.entries(SEARCHES))
      searches[scenario] = await dialect.searchList(db, 'assignments', { name: { $like: pattern } })
    for (const { name, query } of statements(engine, seed, searches)) {
      plans.push({ name, sql: query(db).toString(), plan: await explain(db, engine, query(db)) })
    }
    return plans
  } finally {
    await db.destroy()
  }
}
