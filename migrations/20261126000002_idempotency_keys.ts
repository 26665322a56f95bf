import type { Knex } from 'knex'

/**
 * CONTRACT §13.4: `Idempotency-Key` on POST, PATCH and DELETE under /v1. One row per key of an
 * API key holds the first completed response (status, headers, body as sent) and what it answered
 * (method, path with query string, the body's digest), so that a repeat is replayed and a reuse
 * for another request is refused. The row is claimed and completed in the transaction of the
 * request's own write, so a committed row always carries its response. Frozen: plain knex only, no imports from src/.
 */
export async function up(db: Knex) {
  const pg = db.client.config.client === 'pg'
  await db.schema.createTable('idempotency_keys', (t) => {
    t.increments('id')
    t.integer('company_id').notNullable().references('id').inTable('companies').onDelete('CASCADE')
    t.integer('api_key_id').notNullable().references('id').inTable('api_keys').onDelete('CASCADE')
    t.string('idempotency_key', 255).notNullable()
    t.string('method', 10).notNullable()
    t.text('path').notNullable()
    t.string('body_digest', 64).notNullable()
    // Set in the same transaction as the claim: only a request still running sees them empty.
    t.integer('status')
    t.text('response_headers')
    t.text('response_body')
    if (pg) t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable()
    else t.string('created_at', 24).notNullable()
    t.unique(['company_id', 'api_key_id', 'idempotency_key'], { indexName: 'idempotency_keys_key_unique' })
    // The scheduled pruning deletes by age.
    t.index(['created_at'], 'idempotency_keys_created_at_idx')
  })
}

export async function down(db: Knex) {
  await db.schema.dropTable('idempotency_keys')
}
