import type { Knex } from 'knex'

/**
 * Column helpers shared by the migrations, so that every table gets the same id, tenancy
 * column, timestamp types and list indexes on SQLite and PostgreSQL. Part of the frozen
 * migrations (not of src/): a shipped migration must replay as it ran, so change no helper it
 * calls; a new migration that needs something else gets a new helper. Outside the migration
 * file pattern of src/db/migrations.ts, so this folder is never run as a migration.
 */
export const isPg = (db: Knex) => db.client.config.client === 'pg'

/** Timestamps: timestamptz on PostgreSQL; ISO-8601 UTC text on SQLite (sorts and compares as text). */
export function timestampColumn(db: Knex, t: Knex.CreateTableBuilder, name: string) {
  return isPg(db) ? t.timestamp(name, { useTz: true, precision: 3 }) : t.string(name, 24)
}

/** Calendar dates: DATE on PostgreSQL; 'YYYY-MM-DD' text on SQLite. */
export function dateColumn(db: Knex, t: Knex.CreateTableBuilder, name: string) {
  return isPg(db) ? t.date(name) : t.string(name, 10)
}

/** JSON documents (addresses, lists): jsonb on PostgreSQL, text on SQLite. */
export function jsonColumn(db: Knex, t: Knex.CreateTableBuilder, name: string) {
  return isPg(db) ? t.jsonb(name) : t.text(name)
}

/** id, company_id (cascade with the company) and the (company_id, id) index every default list order uses. */
export function tenantTable(db: Knex, t: Knex.CreateTableBuilder) {
  t.increments('id')
  t.integer('company_id').notNullable().references('id').inTable('companies').onDelete('CASCADE')
  t.index(['company_id', 'id'])
}

export function auditTimestamps(db: Knex, t: Knex.CreateTableBuilder) {
  timestampColumn(db, t, 'created_at').notNullable()
  timestampColumn(db, t, 'updated_at').notNullable()
}

/**
 * One (company_id, column) index per list filter, so every filtered list is an index range scan.
 * On PostgreSQL 20261206000001 ends each in `id` (a page in id order is then read in order). This
 * helper stays as the migrations that call it ran; a filter index added by a later migration is
 * written as `(company_id, column, id)` on PostgreSQL by that migration itself.
 */
export function filterIndexes(t: Knex.CreateTableBuilder, table: string, columns: string[]) {
  for (const column of columns) t.index(['company_id', column], `${table}_company_${column}_idx`)
}
