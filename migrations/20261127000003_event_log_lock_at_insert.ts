import type { Knex } from 'knex'

/**
 * Undoes 20261127000002 on PostgreSQL: event ids are drawn by the append's insert again, under the
 * company's lock row taken by that insert. Numbering the rows at the commit (one trigger firing
 * per event row under the lock) made the commits of one company's writers queue for longer when a
 * write logs many events: PATCH week status (a week's days, the week, the month) fell from 123 to
 * 51 requests a second in the bench, while POST customer gained nothing (docs/performance.md).
 * The earlier migration stays, as every applied migration does. Frozen: plain knex only.
 */
export async function up(db: Knex) {
  if (db.client.config.client !== 'pg') return
  await db.raw('drop trigger if exists event_log_commit_order on event_log')
  await db.raw('drop function if exists crewclock_event_log_number()')
  await db.raw('drop sequence if exists event_log_pending_seq')
}

export async function down() {
  // The commit-time numbering is not restored: 20261127000002's own down removes what it made.
}
