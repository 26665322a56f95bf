import type { Knex } from 'knex'

/**
 * Issue #22: every process keeps the API keys that authenticated lately (src/auth/key-cache.ts)
 * and, on PostgreSQL, drops them when `crewclock_auth_changed` is notified. The writers of the
 * server notify in their transactions; these triggers make every other change of what a cached
 * key stands for notify too: a key revoked or its scopes changed, its user changed or removed,
 * its company changed — by an operator's hand-written UPDATE or a tool that knows nothing of the
 * cache. Statement-level: one notification per statement, and PostgreSQL folds the notifications
 * of one transaction into one, delivered at its commit. SQLite needs none (a commit of any
 * connection changes the file the cache watches). Frozen: plain knex only, no imports from src/.
 */
const CHANNEL = 'crewclock_auth_changed'
const TABLES = ['api_keys', 'users', 'companies']

export async function up(db: Knex) {
  if (db.client.config.client !== 'pg') return
  await db.raw(`
    create function crewclock_auth_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('${CHANNEL}', '');
      return null;
    end
    $$`)
  for (const table of TABLES)
    await db.raw(
      `create trigger ${table}_auth_changed after update or delete on ${table} for each statement execute function crewclock_auth_changed()`
    )
}

export async function down(db: Knex) {
  if (db.client.config.client !== 'pg') return
  for (const table of TABLES) await db.raw(`drop trigger if exists ${table}_auth_changed on ${table}`)
  await db.raw('drop function if exists crewclock_auth_changed()')
}
