import fs from 'node:fs'
import path from 'node:path'
import type { Knex } from 'knex'
import { withoutStatementTimeout } from './knex'

const MIGRATIONS_DIR = path.join(__dirname, '..', '..', 'migrations')
const MIGRATION_FILE = /^\d{14}_[\w-]+\.(ts|js)$/

/**
 * Lists migrations by name without the file extension, so a database migrated by the
 * compiled build (.js) and by the test runner (.ts) records the same names.
 */
class MigrationSource implements Knex.MigrationSource<string> {
  async getMigrations() {
    return fs
      .readdirSync(MIGRATIONS_DIR)
      .filter((file) => MIGRATION_FILE.test(file) && !file.endsWith('.d.ts'))
      .sort()
  }
  getMigrationName(file: string) {
    return file.replace(/\.(ts|js)$/, '')
  }
  async getMigration(file: string): Promise<Knex.Migration> {
    return require(path.join(MIGRATIONS_DIR, file))
  }
}

/** Migrations may rightly run longer than a request's statement timeout (an index on a large table). */
export async function migrateLatest(db: Knex) {
  const [, applied] = await withoutStatementTimeout(db, (untimed) =>
    untimed.migrate.latest({ migrationSource: new MigrationSource() })
  )
  return applied as string[]
}

export async function migrateRollbackAll(db: Knex) {
  await db.migrate.rollback({ migrationSource: new MigrationSource() }, true)
}
