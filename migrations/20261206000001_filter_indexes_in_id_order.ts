import type { Knex } from 'knex'

/**
 * PostgreSQL: every plain two-column `(company_id, column)` B-tree index (the list filters'
 * `filterIndexes`, and the others of that shape) gets `id` as a third key column. A filtered list
 * is read in id order (its default `$sort`) with a limit: an index that ends in `id` hands the
 * first page over in order and PostgreSQL reads only its rows. Without it, PostgreSQL read every
 * match of the filter and sorted them for each page: 169 heap pages for 20 rows of one
 * responsible user's 166 assignments on the 1M-entry data set (0.07 ms with the index against
 * 1.66 ms, `EXPLAIN (ANALYZE, BUFFERS)`), so the list grew with the size of the company's data
 * (1.26–1.38× its time at 10 000 entries, against the ≤ 1.25 of issue #22). SQLite needs nothing:
 * an SQLite index's entries already end in the rowid, which is `id`.
 *
 * Only indexes whose whole definition is `USING btree (company_id, column)` are rebuilt (no
 * operator class, collation, sort order, INCLUDE, predicate, storage option or tablespace of their
 * own; not unique; not on a partition); every other index keeps its shape. The count of a
 * filtered list still reads every match (an exact `total`).
 *
 * Downtime: the migration runs in one transaction, and `DROP INDEX` takes its table's ACCESS
 * EXCLUSIVE lock until the commit, so every tenant table is closed to reads and writes until the
 * last index is rebuilt (5.6 s on the 1M-entry data set; about linear in the rows). Run it with
 * the service stopped (docs/deployment.md). Frozen: plain knex only.
 */
interface FilterIndex {
  table: string
  name: string
  column: string
}

/** Whole definitions of plain `(company_id, column)` and `(company_id, column, id)` indexes, as `pg_get_indexdef` writes them. */
const PLAIN = {
  two: /^CREATE INDEX \S+ ON \S+ USING btree \(company_id, "?\w+"?\)$/.source,
  withId: /^CREATE INDEX \S+ ON \S+ USING btree \(company_id, "?\w+"?, id\)$/.source
}

/**
 * The indexes of the schema's tables (not partitions, on tables with an `id`) whose whole
 * definition is `PLAIN.two` (`withId` false) or `PLAIN.withId`: the text `pg_get_indexdef` writes
 * names everything that would set an index apart (UNIQUE, the method, expressions, an operator
 * class, a collation, a sort order, INCLUDE, a predicate); storage options and the tablespace,
 * which it leaves out, are checked beside it. `column` is the second key, never `id`.
 */
async function filterIndexes(db: Knex, withId: boolean): Promise<FilterIndex[]> {
  const { rows } = await db.raw(
    `select t.relname as "table", i.relname as "name", a.attname as "column"
       from pg_index x
       join pg_class i on i.oid = x.indexrelid
       join pg_class t on t.oid = x.indrelid
       join pg_namespace n on n.oid = t.relnamespace
       join pg_attribute a on a.attrelid = t.oid and a.attnum = x.indkey[1]
      where n.nspname = current_schema()
        and t.relkind = 'r' and not t.relispartition
        and i.reltablespace = 0 and i.reloptions is null
        and pg_get_indexdef(i.oid) ~ ?
        and a.attname <> 'id'
        and exists (
          select 1 from pg_attribute id
           where id.attrelid = t.oid and id.attname = 'id' and id.attnum > 0 and not id.attisdropped
        )
      order by t.relname, i.relname`,
    [withId ? PLAIN.withId : PLAIN.two]
  )
  return rows
}

/** Made in the three-column shape before this migration (20261126000003_webhooks): `down` leaves it. */
const BORN_WITH_ID = new Set(['webhook_deliveries_subscription_idx'])

export async function up(db: Knex) {
  if (db.client.config.client !== 'pg') return
  for (const { table, name, column } of await filterIndexes(db, false)) {
    await db.raw('drop index ??', [name])
    await db.raw('create index ?? on ?? (company_id, ??, id)', [name, table, column])
  }
}

export async function down(db: Knex) {
  if (db.client.config.client !== 'pg') return
  for (const { table, name, column } of await filterIndexes(db, true)) {
    if (BORN_WITH_ID.has(name)) continue
    await db.raw('drop index ??', [name])
    await db.raw('create index ?? on ?? (company_id, ??)', [name, table, column])
  }
}
