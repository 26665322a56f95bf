import type { Knex } from 'knex'
import { auditTimestamps, filterIndexes, jsonColumn, tenantTable, timestampColumn } from './support/schema-helpers'

const catalogue = (db: Knex, name: string, extra: (t: Knex.CreateTableBuilder) => void, filters: string[]) =>
  db.schema.createTable(name, (t) => {
    tenantTable(db, t)
    t.string('name', 255).notNullable()
    t.integer('order').notNullable().defaultTo(0)
    timestampColumn(db, t, 'deactivated_at')
    extra(t)
    auditTimestamps(db, t)
    filterIndexes(t, name, ['deactivated_at', 'created_at', 'updated_at', ...filters])
  })

export async function up(db: Knex) {
  await db.schema.createTable('companies', (t) => {
    t.increments('id')
    t.string('name', 255).notNullable()
    t.string('country', 2).notNullable()
    t.string('timezone', 64).notNullable()
    jsonColumn(db, t, 'address')
    auditTimestamps(db, t)
  })

  await db.schema.createTable('roles', (t) => {
    tenantTable(db, t)
    t.string('name', 255).notNullable()
    t.string('type', 16).notNullable()
    t.integer('order').notNullable().defaultTo(0)
    auditTimestamps(db, t)
    t.unique(['company_id', 'type'])
  })

  await db.schema.createTable('users', (t) => {
    tenantTable(db, t)
    t.string('full_name', 255).notNullable()
    t.string('email', 255).notNullable()
    // Login identity is global (CONTRACT §6: unique across all companies, case-insensitive):
    // the one unique constraint that cannot include company_id.
    t.string('email_normalized', 255).notNullable().unique()
    t.string('password_hash', 255)
    t.string('short_name', 255)
    t.string('staff_number', 255)
    t.string('color', 7)
    t.integer('role_id').notNullable().references('id').inTable('roles')
    // The role's type, copied on write: roles are read-only and `roleType` is a list filter.
    t.string('role_type', 16).notNullable()
    timestampColumn(db, t, 'deactivated_at')
    t.string('external_id', 255)
    auditTimestamps(db, t)
    filterIndexes(t, 'users', [
      'role_id',
      'role_type',
      'full_name',
      'email',
      'short_name',
      'staff_number',
      'deactivated_at',
      'external_id',
      'created_at',
      'updated_at'
    ])
  })

  await db.schema.createTable('api_keys', (t) => {
    tenantTable(db, t)
    t.integer('user_id').notNullable().references('id').inTable('users')
    t.string('name', 255)
    t.string('key_hash', 64).notNullable()
    t.text('key_encrypted').notNullable()
    t.string('key_hint', 16).notNullable()
    timestampColumn(db, t, 'created_at').notNullable()
    timestampColumn(db, t, 'revoked_at')
    // Looked up by hash before the company is known.
    t.index(['key_hash'])
  })

  await db.schema.createTable('customers', (t) => {
    tenantTable(db, t)
    t.string('number', 255)
    t.string('company_name', 255)
    t.string('external_id', 255)
    t.string('title', 255)
    t.string('salutation', 255)
    t.string('first_name', 255)
    t.string('surname', 255)
    jsonColumn(db, t, 'telephones')
    jsonColumn(db, t, 'emails')
    jsonColumn(db, t, 'urls')
    jsonColumn(db, t, 'billing_address')
    auditTimestamps(db, t)
    filterIndexes(t, 'customers', ['number', 'company_name', 'external_id', 'created_at', 'updated_at'])
  })

  await db.schema.createTable('projects', (t) => {
    tenantTable(db, t)
    t.string('number', 255).notNullable()
    t.string('external_id', 255)
    auditTimestamps(db, t)
    t.unique(['company_id', 'number'])
    filterIndexes(t, 'projects', ['external_id', 'created_at', 'updated_at'])
  })

  await db.schema.createTable('gangs', (t) => {
    tenantTable(db, t)
    t.string('name', 255).notNullable()
    t.integer('order').notNullable().defaultTo(0)
    timestampColumn(db, t, 'deactivated_at')
    t.string('external_id', 255)
    auditTimestamps(db, t)
    filterIndexes(t, 'gangs', ['name', 'external_id', 'created_at', 'updated_at'])
  })

  await db.schema.createTable('gang_users', (t) => {
    t.integer('company_id').notNullable().references('id').inTable('companies').onDelete('CASCADE')
    t.integer('gang_id').notNullable().references('id').inTable('gangs').onDelete('CASCADE')
    t.integer('user_id').notNullable().references('id').inTable('users')
    t.primary(['company_id', 'gang_id', 'user_id'])
    t.index(['company_id', 'user_id'])
  })

  await catalogue(db, 'assignment_types', (t) => t.string('color', 7), [])
  await catalogue(db, 'assignment_status_types', (t) => t.string('category', 16).notNullable(), [])
  await catalogue(
    db,
    'assignment_event_types',
    (t) => {
      t.string('short_name', 255)
      t.string('color', 7)
    },
    ['name']
  )
  await catalogue(db, 'assignment_event_group_types', () => undefined, [])
  await catalogue(
    db,
    'time_entry_types',
    (t) => {
      t.boolean('is_unassigned').notNullable().defaultTo(false)
      t.integer('event_type_id').references('id').inTable('assignment_event_types')
      t.string('external_id', 255)
    },
    ['event_type_id', 'name', 'is_unassigned', 'order', 'external_id']
  )
  await catalogue(
    db,
    'user_absence_types',
    (t) => {
      t.string('color', 7)
      t.boolean('need_approval').notNullable().defaultTo(false)
      t.boolean('need_compensation').notNullable().defaultTo(false)
      t.boolean('count_as_working_time').notNullable().defaultTo(false)
      t.boolean('is_absence_hourly').notNullable().defaultTo(false)
    },
    []
  )
  await catalogue(
    db,
    'upload_categories',
    (t) => {
      t.string('color', 7)
      jsonColumn(db, t, 'role_ids')
      t.text('additional_properties')
    },
    []
  )

  await db.schema.createTable('api_usage', (t) => {
    t.integer('company_id').notNullable().references('id').inTable('companies').onDelete('CASCADE')
    t.integer('api_key_id').notNullable().references('id').inTable('api_keys').onDelete('CASCADE')
    t.string('version', 8).notNullable()
    t.bigInteger('request_count').notNullable().defaultTo(0)
    timestampColumn(db, t, 'last_used_at').notNullable()
    t.primary(['company_id', 'api_key_id', 'version'])
  })
}

export async function down(db: Knex) {
  for (const table of [
    'api_usage',
    'upload_categories',
    'user_absence_types',
    'time_entry_types',
    'assignment_event_group_types',
    'assignment_event_types',
    'assignment_status_types',
    'assignment_types',
    'gang_users',
    'gangs',
    'projects',
    'customers',
    'api_keys',
    'users',
    'roles',
    'companies'
  ]) {
    await db.schema.dropTableIfExists(table)
  }
}
