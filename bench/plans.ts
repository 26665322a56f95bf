import type { Knex } from 'knex'
import { createKnex } from '../src/db/knex'
import type { Engine } from './datasets'
import type { SeedInfo } from './seed'

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

function statements(engine: Engine, seed: SeedInfo): Statement[] {
  const { id: companyId, userIds } = seed.companies[0]
  const userId = userIds.at(-1)!
  const list = (table: string, where: (q: Knex.QueryBuilder) => void) => [
    { name: `${table}: page`, query: (db: Knex) => db(table).select(`${table}.*`).where(where).where(`${table}.companyId`, companyId).orderByRaw('?? asc nulls last', [`${table}.id`]).limit(20) },
    { name: `${table}: count`, query: (db: Knex) => db(table).count({ total: `${table}.id` }).where(where).where(`${table}.companyId`, companyId) }
  ]
  return [
    ...list('assignments', (q) => q.where('responsibleUserId', userId)).map((s) => ({ ...s, name: `list-assignments ${s.name}` })),
    // `$like` is ilike on PostgreSQL (src/resources/service.ts).
    ...list('assignments', (q) => q.where('name', engine === 'pg' ? 'ilike' : 'like', '%Kabel%')).map((s) => ({ ...s, name: `list-assignments-like ${s.name}` })),
    ...list('time_entries', (q) => q.where('userId', userId).where('startsAt', '>=', MONTH.from).where('startsAt', '<', MONTH.to)).map((s) => ({
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
      query: (db) => db('time_entries').where({ companyId, userId }).where('startsAt', '>=', MONTH.from).where('startsAt', '<', MONTH.to).select('startsAt', 'endsAt', 'workedMs')
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
    for (const { name, query } of statements(engine, seed)) {
      plans.push({ name, sql: query(db).toString(), plan: await explain(db, engine, query(db)) })
    }
    return plans
  } finally {
    await db.destroy()
  }
}
