import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import { testDatabases } from '../../support/databases'
import { migrationBefore, migrationsUpTo, scratchDatabase } from '../../support/scratch-database'

/**
 * 20261206000001 ends PostgreSQL's `(company_id, column)` indexes in `id`, so that a filtered
 * list's page in id order is read from the index in order (issue #22: lists flat with size).
 * SQLite's indexes end in the rowid already: nothing changes there.
 */
const TARGET = '20261206000001_filter_indexes_in_id_order'

/** Every index of the database by name, as its definition. */
async function indexes(conn: Knex): Promise<Map<string, string>> {
  const rows: { name: string; definition: string | null }[] =
    conn.client.config.client === 'pg'
      ? (
          await conn.raw(
            'select indexname as name, indexdef as definition from pg_indexes where schemaname = current_schema()'
          )
        ).rows
      : await conn.raw(`select name, sql as definition from sqlite_master where type = 'index'`)
  return new Map(rows.map((row) => [row.name, String(row.definition)]))
}

const keys = (definition: string) => /\(([^()]*)\)$/.exec(definition)?.[1]

for (const db of testDatabases()) {
  describe(`filter indexes in id order [${db.name}]`, function () {
    const scratch = scratchDatabase(db, 'filter-indexes')

    it('ends each (company_id, column) index in id on PostgreSQL, none on SQLite, and down restores every index', async () => {
      const { conn } = scratch
      await conn.migrate.latest({ migrationSource: migrationsUpTo(await migrationBefore(TARGET)) })
      // Indexes of the same keys but not plain: an operator class, a collation, a sort order, INCLUDE.
      const notPlain = ['opclass', 'collated', 'descending', 'including']
      if (db.name === 'postgres') {
        await conn.raw('create index opclass_idx on customers (company_id, company_name text_pattern_ops)')
        await conn.raw('create index collated_idx on customers (company_id, company_name collate "C")')
        await conn.raw('create index descending_idx on customers (company_id, number desc)')
        await conn.raw('create index including_idx on customers (company_id, number) include (company_name)')
      }
      const before = await indexes(conn)
      await conn.migrate.latest({ migrationSource: migrationsUpTo(TARGET) })
      const after = await indexes(conn)
      assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort())
      const changed = [...after.keys()].filter((name) => after.get(name) !== before.get(name))
      if (db.name === 'sqlite') assert.deepEqual(changed, [])
      else {
        assert.ok(changed.length > 100, `${changed.length} indexes changed`)
        for (const name of changed) {
          const [, column] = /^company_id, ("?\w+"?)$/.exec(keys(before.get(name)!) ?? '') ?? []
          assert.ok(column && column !== 'id', `${name} was ${before.get(name)}`)
          assert.equal(keys(after.get(name)!), `company_id, ${column}, id`, name)
          assert.doesNotMatch(before.get(name)!, /UNIQUE| WHERE /, name)
        }
        assert.ok(changed.includes('assignments_company_responsible_user_id_idx'))
        assert.ok(changed.includes('time_entries_company_type_id_idx'))
        // Kept: unique and partial indexes, (company_id, id) itself, the one born with id, and the
        // join tables' (they have no id).
        for (const kept of [
          'time_entries_one_running_per_user',
          'time_entries_company_id_id_index',
          'webhook_deliveries_subscription_idx',
          'gang_users_company_id_user_id_index',
          ...notPlain.map((kind) => `${kind}_idx`)
        ])
          assert.ok(before.has(kept) && !changed.includes(kept), kept)
      }
      await conn.migrate.down({ migrationSource: migrationsUpTo(TARGET) })
      assert.deepEqual(await indexes(conn), before)
    })
  })
}
