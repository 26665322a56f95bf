import type { Knex } from 'knex'

/**
 * CONTRACT §13.3: webhook subscriptions and their deliveries.
 * - `webhook_subscriptions`: the resource's fields, and what delivery keeps per subscription:
 *   `secret` (the signing secret, AES-GCM encrypted with the app secret), `read_scopes` (what the
 *   key that pointed it somewhere could read: only those collections' events go out),
 *   `last_event_id` (the log position up to which events have been queued for it), `due_at` (when
 *   its next queued delivery may go out; null: none queued), `failing_since` (first failure
 *   since the last success) and the claim of the instance sending for it (`claimed_by`,
 *   `claimed_until`; a dead instance's claim expires).
 * - `webhook_deliveries`: one row per event queued for a subscription (a replay queues an event
 *   again). `next_attempt_at` is set while the delivery waits to be sent and null once it was
 *   delivered or given up; the pending index serves the queue, which goes out in id order.
 * Frozen: plain knex only, no imports from src/.
 */
export async function up(db: Knex) {
  const pg = db.client.config.client === 'pg'
  const timestamp = (t: Knex.CreateTableBuilder, name: string) =>
    pg ? t.timestamp(name, { useTz: true, precision: 3 }) : t.string(name, 24)
  const document = (t: Knex.CreateTableBuilder, name: string) => (pg ? t.jsonb(name) : t.text(name))

  await db.schema.createTable('webhook_subscriptions', (t) => {
    t.increments('id')
    t.integer('company_id').notNullable().references('id').inTable('companies').onDelete('CASCADE')
    t.string('url', 2048).notNullable()
    document(t, 'types').notNullable()
    t.text('description')
    timestamp(t, 'deactivated_at')
    t.text('secret').notNullable()
    document(t, 'read_scopes').notNullable()
    t.bigInteger('last_event_id').notNullable().defaultTo(0)
    timestamp(t, 'due_at')
    timestamp(t, 'failing_since')
    t.string('claimed_by', 64)
    timestamp(t, 'claimed_until')
    timestamp(t, 'created_at').notNullable()
    timestamp(t, 'updated_at').notNullable()
    t.index(['company_id', 'id'])
    for (const column of ['url', 'description', 'deactivated_at', 'created_at', 'updated_at'])
      t.index(['company_id', column], `webhook_subscriptions_company_${column}_idx`)
    // The senders' look for work: active subscriptions, least recently served first.
    t.index(['deactivated_at', 'claimed_until'], 'webhook_subscriptions_claims_idx')
  })

  await db.schema.createTable('webhook_deliveries', (t) => {
    t.increments('id')
    t.integer('company_id').notNullable().references('id').inTable('companies').onDelete('CASCADE')
    t.integer('subscription_id').notNullable().references('id').inTable('webhook_subscriptions').onDelete('CASCADE')
    t.bigInteger('event_id').notNullable()
    t.string('type', 100).notNullable()
    t.integer('attempts').notNullable().defaultTo(0)
    t.integer('last_status')
    t.text('last_error')
    timestamp(t, 'next_attempt_at')
    timestamp(t, 'delivered_at')
    timestamp(t, 'created_at').notNullable()
    // A subscription's list (filters scan its deliveries: each update of a delivery in a burst
    // would pay for an index per filter).
    t.index(['company_id', 'subscription_id', 'id'], 'webhook_deliveries_subscription_idx')
    // Retention removes old deliveries across companies.
    t.index(['created_at'], 'webhook_deliveries_created_at_idx')
  })
  // The queue of a subscription: its waiting deliveries in order (both databases take partial indexes).
  await db.raw(
    'CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (subscription_id, id) WHERE next_attempt_at IS NOT NULL'
  )
}

export async function down(db: Knex) {
  await db.schema.dropTable('webhook_deliveries')
  await db.schema.dropTable('webhook_subscriptions')
}
