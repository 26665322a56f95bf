import type { Knex } from 'knex'

/**
 * CONTRACT §13.1: the event log.
 * - `event_log`: one row per event. `id` comes from one sequence for all companies (an id names
 *   one company's event, so a cursor of another company is recognised); its order within a
 *   company is the commit order because every appending transaction first locks its company's
 *   `event_log_heads` row and keeps the lock until it commits. `data` and `actor` are JSON text
 *   (on PostgreSQL too: jsonb would reorder the record's keys and parse what is only passed on).
 *   `scope` is the collection whose read scope shows the event (an upload's parent collection).
 * - `event_log_heads`: the per-company lock row, and `pruned_through`, the highest id retention
 *   has deleted (a cursor before it has lost events: 410).
 * Frozen: plain knex only, no imports from src/.
 */
export async function up(db: Knex) {
  const pg = db.client.config.client === 'pg'
  await db.schema.createTable('event_log', (t) => {
    if (pg) {
      t.integer('company_id').notNullable().references('id').inTable('companies').onDelete('CASCADE')
      t.bigIncrements('id', { primaryKey: false })
      t.primary(['company_id', 'id'], { constraintName: 'event_log_pkey' })
      t.timestamp('occurred_at', { useTz: true, precision: 3 }).notNullable()
    } else {
      // SQLite: the rowid (AUTOINCREMENT never reuses an id, even after the newest rows are pruned).
      t.increments('id')
      t.integer('company_id').notNullable().references('id').inTable('companies').onDelete('CASCADE')
      t.index(['company_id', 'id'], 'event_log_company_id_idx')
      t.string('occurred_at', 24).notNullable()
    }
    t.string('type', 100).notNullable()
    t.string('scope', 100).notNullable()
    t.text('data').notNullable()
    t.text('actor').notNullable()
    t.string('request_id', 64).notNullable()
    // Retention deletes by age, across companies.
    t.index(['occurred_at'], 'event_log_occurred_at_idx')
  })
  await db.schema.createTable('event_log_heads', (t) => {
    t.integer('company_id').primary().references('id').inTable('companies').onDelete('CASCADE')
    t.bigInteger('pruned_through').notNullable().defaultTo(0)
  })
}

export async function down(db: Knex) {
  await db.schema.dropTable('event_log_heads')
  await db.schema.dropTable('event_log')
}
