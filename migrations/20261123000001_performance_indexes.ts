import type { Knex } from 'knex'
import { isPg } from './support/schema-helpers'

/**
 * Trigram indexes for the free-text searches (`name[$like]=%Kabel%` on assignments,
 * `companyName[$like]=%müller%` on customers). A B-tree serves equality and prefixes only, so
 * on PostgreSQL the count of such a list scanned every row of the company (25 ms for 25 000
 * assignments, 3 ms with the index; see docs/performance.md). `ilike` uses a pg_trgm GIN index
 * as it is. SQLite's counterpart is 20261123000002_sqlite_search_indexes (FTS5 trigram tables).
 *
 * pg_trgm ships with PostgreSQL (contrib) and is a trusted extension, so the database owner can
 * create it; where it is missing or not allowed the migration leaves the lists unindexed (as
 * before) instead of failing the deployment.
 */
const INDEXES = [
  { name: 'assignments_name_trgm_idx', table: 'assignments', column: 'name' },
  { name: 'customers_company_name_trgm_idx', table: 'customers', column: 'company_name' }
]

async function trigramsAvailable(db: Knex): Promise<boolean> {
  if (!(await db('pg_available_extensions').where({ name: 'pg_trgm' }).first('name'))) return false
  try {
    // A savepoint: a refused CREATE EXTENSION must not abort the migration's transaction.
    await db.transaction((trx) => trx.raw('create extension if not exists pg_trgm'))
    return true
  } catch {
    return false
  }
}

export async function up(db: Knex) {
  if (!isPg(db) || !(await trigramsAvailable(db))) return
  for (const { name, table, column } of INDEXES) {
    await db.raw('create index if not exists ?? on ?? using gin (?? gin_trgm_ops)', [name, table, column])
  }
}

export async function down(db: Knex) {
  if (!isPg(db)) return
  // The extension stays: other objects of the database may use it.
  for (const { name } of INDEXES) await db.raw('drop index if exists ??', [name])
}
