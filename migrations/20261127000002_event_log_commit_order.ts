import type { Knex } from 'knex'

/**
 * CONTRACT §13.1 on PostgreSQL: event ids follow the commit order within a company, now without
 * holding the company's lock row from the insert to the commit. An append inserts its rows with
 * provisional negative ids (`event_log_pending_seq`); this deferred constraint trigger numbers
 * each of them at the commit, from the log's own sequence, after locking the company's row of
 * `event_log_heads` (created on the company's first append), which stays locked to the end of
 * the commit. So concurrent writers of one company queue only for their commits, inside the
 * database, in the order they commit, and a reader never sees an id below one it has already
 * read appear later. SQLite runs one write transaction at a time and needs none of it.
 * Frozen: plain knex only, no imports from src/.
 */
export async function up(db: Knex) {
  if (db.client.config.client !== 'pg') return
  await db.raw('create sequence event_log_pending_seq')
  await db.raw(`
    create function crewclock_event_log_number() returns trigger language plpgsql as $$
    begin
      perform 1 from event_log_heads where company_id = new.company_id for no key update;
      if not found then
        insert into event_log_heads (company_id, pruned_through) values (new.company_id, 0)
          on conflict (company_id) do nothing;
        perform 1 from event_log_heads where company_id = new.company_id for no key update;
      end if;
      update event_log set id = nextval('event_log_id_seq') where company_id = new.company_id and id = new.id;
      return null;
    end
    $$`)
  await db.raw(`
    create constraint trigger event_log_commit_order after insert on event_log
      deferrable initially deferred for each row when (new.id < 0)
      execute function crewclock_event_log_number()`)
}

export async function down(db: Knex) {
  if (db.client.config.client !== 'pg') return
  await db.raw('drop trigger if exists event_log_commit_order on event_log')
  await db.raw('drop function if exists crewclock_event_log_number()')
  await db.raw('drop sequence if exists event_log_pending_seq')
}
