import type { Knex } from 'knex'
import { auditTimestamps, filterIndexes, jsonColumn, tenantTable, timestampColumn } from './support/schema-helpers'

/**
 * Work orders: assignments, their events (work steps) and event groups, who is assigned to an
 * event, and uploads. An assignment owns its events, groups and uploads (ON DELETE CASCADE); a
 * customer, project, user or catalogue entry it references cannot be deleted under it (the
 * FK refuses, the API answers 409). Time entries (a later migration) reference assignments and
 * events without a cascade, so a referenced assignment or event cannot be deleted either.
 */
export async function up(db: Knex) {
  // One counter row per company: the upsert that increments it also locks it until commit,
  // so concurrent creates never draw the same number.
  await db.schema.createTable('assignment_number_sequences', (t) => {
    t.integer('company_id').primary().references('id').inTable('companies').onDelete('CASCADE')
    t.integer('last_number').notNullable().defaultTo(0)
  })

  await db.schema.createTable('assignments', (t) => {
    tenantTable(db, t)
    t.string('number', 255)
    t.string('name', 255).notNullable()
    t.text('comment')
    t.text('notes_back_office')
    t.string('color', 7)
    jsonColumn(db, t, 'address')
    t.integer('customer_id').notNullable().references('id').inTable('customers')
    t.integer('project_id').references('id').inTable('projects')
    t.integer('type_id').notNullable().references('id').inTable('assignment_types')
    t.integer('responsible_user_id').references('id').inTable('users')
    t.integer('status_id').notNullable().references('id').inTable('assignment_status_types')
    t.string('external_id', 255)
    auditTimestamps(db, t)
    filterIndexes(t, 'assignments', [
      'customer_id',
      'project_id',
      'type_id',
      'responsible_user_id',
      'status_id',
      'name',
      'number',
      'external_id',
      'created_at',
      'updated_at'
    ])
  })

  await db.schema.createTable('assignment_event_groups', (t) => {
    tenantTable(db, t)
    t.integer('assignment_id').notNullable().references('id').inTable('assignments').onDelete('CASCADE')
    t.integer('type_id').notNullable().references('id').inTable('assignment_event_group_types')
    t.text('note')
    t.integer('order').notNullable().defaultTo(0)
    t.string('external_id', 255)
    auditTimestamps(db, t)
    filterIndexes(t, 'assignment_event_groups', ['assignment_id', 'type_id', 'external_id', 'created_at', 'updated_at'])
  })

  await db.schema.createTable('assignment_events', (t) => {
    tenantTable(db, t)
    t.integer('assignment_id').notNullable().references('id').inTable('assignments').onDelete('CASCADE')
    t.integer('type_id').notNullable().references('id').inTable('assignment_event_types')
    t.integer('group_id').references('id').inTable('assignment_event_groups').onDelete('SET NULL')
    t.string('name', 255).notNullable()
    timestampColumn(db, t, 'starts_at')
    timestampColumn(db, t, 'ends_at')
    t.integer('planned_employee_count')
    t.double('work_days')
    t.double('working_time_per_day')
    t.double('man_power')
    timestampColumn(db, t, 'completed_at')
    timestampColumn(db, t, 'confirmed_at')
    t.text('note')
    t.integer('order').notNullable().defaultTo(0)
    t.boolean('is_all_day').notNullable().defaultTo(false)
    t.boolean('is_outward').notNullable().defaultTo(false)
    t.string('external_id', 255)
    jsonColumn(db, t, 'address_start_from')
    jsonColumn(db, t, 'address_destination')
    jsonColumn(db, t, 'address_return_to')
    auditTimestamps(db, t)
    filterIndexes(t, 'assignment_events', [
      'assignment_id',
      'type_id',
      'group_id',
      'name',
      'starts_at',
      'ends_at',
      'completed_at',
      'confirmed_at',
      'is_all_day',
      'is_outward',
      'external_id',
      'created_at',
      'updated_at'
    ])
  })

  // Users are never deleted (only deactivated); a deleted gang leaves the events it was on.
  await db.schema.createTable('assignment_event_users', (t) => {
    t.integer('company_id').notNullable().references('id').inTable('companies').onDelete('CASCADE')
    t.integer('event_id').notNullable().references('id').inTable('assignment_events').onDelete('CASCADE')
    t.integer('user_id').notNullable().references('id').inTable('users')
    t.primary(['company_id', 'event_id', 'user_id'])
    t.index(['company_id', 'user_id'])
  })

  await db.schema.createTable('assignment_event_gangs', (t) => {
    t.integer('company_id').notNullable().references('id').inTable('companies').onDelete('CASCADE')
    t.integer('event_id').notNullable().references('id').inTable('assignment_events').onDelete('CASCADE')
    t.integer('gang_id').notNullable().references('id').inTable('gangs').onDelete('CASCADE')
    t.primary(['company_id', 'event_id', 'gang_id'])
    t.index(['company_id', 'gang_id'])
  })

  // Exactly one parent: an upload belongs to an assignment or to an assignment event.
  await db.schema.createTable('uploads', (t) => {
    tenantTable(db, t)
    t.integer('assignment_id').references('id').inTable('assignments').onDelete('CASCADE')
    t.integer('assignment_event_id').references('id').inTable('assignment_events').onDelete('CASCADE')
    t.integer('category_id').references('id').inTable('upload_categories')
    t.string('file_name', 255).notNullable()
    t.string('mime_type', 255).notNullable()
    t.bigInteger('file_size').notNullable()
    t.text('description')
    t.text('additional_properties')
    t.string('storage_key', 255).notNullable()
    auditTimestamps(db, t)
    t.check('(assignment_id is null) <> (assignment_event_id is null)', [], 'uploads_one_parent')
    filterIndexes(t, 'uploads', ['assignment_id', 'assignment_event_id', 'category_id'])
  })
}

export async function down(db: Knex) {
  for (const table of [
    'uploads',
    'assignment_event_gangs',
    'assignment_event_users',
    'assignment_events',
    'assignment_event_groups',
    'assignments',
    'assignment_number_sequences'
  ]) {
    await db.schema.dropTableIfExists(table)
  }
}
