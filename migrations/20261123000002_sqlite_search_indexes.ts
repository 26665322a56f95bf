import type { Knex } from 'knex'
import { isPg } from './support/schema-helpers'

/**
 * Trigram indexes for the free-text searches on SQLite (`name[$like]=%Kabel%` on assignments,
 * `companyName[$like]=%müller%` on customers), the counterpart of the pg_trgm indexes of
 * 20261123000001: without them the count of such a list read every assignment of the company.
 *
 * SQLite indexes substrings only in an FTS5 table with the trigram tokenizer. Each one is an
 * external-content table (it stores the index, not a copy of the text; rowid = the row's id),
 * kept in step by triggers with FTS5's 'delete' command, the documented pattern for such tables.
 * `detail=full` (the default) keeps token positions: a search term longer than three characters
 * is a phrase of consecutive trigrams. The queries that use them: src/db/search-index.ts, which
 * declares the same tables and names.
 */
const INDEXES = [
  { name: 'assignments_name_fts', table: 'assignments', column: 'name' },
  { name: 'customers_company_name_fts', table: 'customers', column: 'company_name' }
]

export async function up(db: Knex) {
  if (isPg(db)) return
  for (const { name, table, column } of INDEXES) {
    // FTS5 options are string literals, not bindings: `table` is one of the constants above.
    await db.raw(
      `create virtual table ?? using fts5(??, content='${table}', content_rowid='id', tokenize='trigram case_sensitive 0', detail=full)`,
      [name, column]
    )
    // The 'delete' command must be given the values that were indexed: the old row's.
    const remove = `insert into ??(??, rowid, ??) values ('delete', old.id, old.??)`
    const add = `insert into ??(rowid, ??) values (new.id, new.??)`
    const bind = { remove: [name, name, column, column], add: [name, column, column] }
    await db.raw(`create trigger ?? after insert on ?? begin ${add}; end`, [`${name}_ai`, table, ...bind.add])
    await db.raw(`create trigger ?? after delete on ?? begin ${remove}; end`, [`${name}_ad`, table, ...bind.remove])
    await db.raw(`create trigger ?? after update of ?? on ?? begin ${remove}; ${add}; end`, [
      `${name}_au`,
      column,
      table,
      ...bind.remove,
      ...bind.add
    ])
    await db.raw(`insert into ??(??) values ('rebuild')`, [name, name])
  }
}

export async function down(db: Knex) {
  if (isPg(db)) return
  for (const { name } of INDEXES) {
    for (const suffix of ['ai', 'ad', 'au']) await db.raw('drop trigger if exists ??', [`${name}_${suffix}`])
    await db.raw('drop table if exists ??', [name])
  }
}
