import type { Knex } from 'knex'

/**
 * CONTRACT §10.1: API keys carry scopes (a JSON array of `<collection>:read|write`, `*` for every
 * collection); existing keys keep full access. Users carry a session version: a settings-page
 * token minted under an older version (before a logout, password change or deactivation) is refused.
 * Frozen: plain knex only, no imports from src/.
 */
export async function up(db: Knex) {
  await db.schema.alterTable('api_keys', (t) => {
    t.text('scopes').notNullable().defaultTo('["*:write"]')
  })
  await db.schema.alterTable('users', (t) => {
    t.integer('session_version').notNullable().defaultTo(0)
  })
}

export async function down(db: Knex) {
  await db.schema.alterTable('users', (t) => t.dropColumn('session_version'))
  await db.schema.alterTable('api_keys', (t) => t.dropColumn('scopes'))
}
