import type { Knex } from 'knex'
import { auditTimestamps, filterIndexes, jsonColumn, tenantTable, timestampColumn } from './support/schema-helpers'

/**
 * The working-time model every existing company got, as this migration shipped it: the default
 * model of that time, copied here so that replaying the migration later stores the same thing
 * whatever src/timesheets/working-time.ts says by then. DE: 8 h Monday to Friday, breaks
 * 30 min after 6 h and 45 min after 9 h, at most 10 h a day; IT: 10 min after 6 h, at most
 * 13 h a day; other countries the German one. Key order as stored then.
 */
function workingTimeAsShipped(country: string) {
  const week = { monday: 480, tuesday: 480, wednesday: 480, thursday: 480, friday: 480, saturday: 0, sunday: 0 }
  if (country === 'IT')
    return {
      targetMinutes: week,
      breakRules: [{ afterMinutes: 360, minBreakMinutes: 10 }],
      maxDailyMinutes: 780,
      carryOverCapMinutes: null
    }
  return {
    targetMinutes: week,
    breakRules: [
      { afterMinutes: 360, minBreakMinutes: 30 },
      { afterMinutes: 540, minBreakMinutes: 45 }
    ],
    maxDailyMinutes: 600,
    carryOverCapMinutes: null
  }
}

/**
 * Time entries with their pauses, user absences, and the working-time model of each company
 * (CONTRACT §7). Entries and absences keep the user, type and assignment they reference:
 * no cascades, so deleting a referenced record fails (409).
 */
export async function up(db: Knex) {
  await db.schema.alterTable('companies', (t) => {
    jsonColumn(db, t, 'working_time')
  })
  for (const company of await db('companies').select('id', 'country')) {
    await db('companies')
      .where({ id: company.id })
      .update({ workingTime: JSON.stringify(workingTimeAsShipped(company.country)) })
  }

  await db.schema.createTable('time_entries', (t) => {
    tenantTable(db, t)
    t.integer('user_id').notNullable().references('id').inTable('users')
    t.integer('type_id').notNullable().references('id').inTable('time_entry_types')
    t.integer('assignment_id').references('id').inTable('assignments')
    t.integer('event_id').references('id').inTable('assignment_events')
    t.integer('event_type_id').references('id').inTable('assignment_event_types')
    timestampColumn(db, t, 'starts_at').notNullable()
    timestampColumn(db, t, 'ends_at')
    // Start of the current pause; the closed pauses are rows of time_entry_pauses.
    timestampColumn(db, t, 'paused_at')
    // Exact worked milliseconds (the API's minutes are rounded only in responses), null while running.
    t.bigInteger('worked_ms')
    t.text('note')
    t.double('start_latitude')
    t.double('start_longitude')
    t.string('start_tracking_error', 255)
    t.double('end_latitude')
    t.double('end_longitude')
    t.string('end_tracking_error', 255)
    t.string('external_id', 255)
    auditTimestamps(db, t)
    filterIndexes(t, 'time_entries', [
      'type_id',
      'assignment_id',
      'event_id',
      'event_type_id',
      'user_id',
      'starts_at',
      'ends_at',
      'external_id',
      'created_at',
      'updated_at'
    ])
    // The overlap check reads a user's entries around an instant.
    t.index(['company_id', 'user_id', 'starts_at'], 'time_entries_company_user_starts_at_idx')
  })
  // At most one running entry per user, even under concurrent writes (the service checks first and answers 409).
  await db.raw(
    'CREATE UNIQUE INDEX time_entries_one_running_per_user ON time_entries (company_id, user_id) WHERE ends_at IS NULL'
  )

  await db.schema.createTable('time_entry_pauses', (t) => {
    tenantTable(db, t)
    t.integer('time_entry_id').notNullable().references('id').inTable('time_entries').onDelete('CASCADE')
    timestampColumn(db, t, 'starts_at').notNullable()
    timestampColumn(db, t, 'ends_at').notNullable()
    t.index(['company_id', 'time_entry_id'], 'time_entry_pauses_company_entry_idx')
  })

  await db.schema.createTable('user_absences', (t) => {
    tenantTable(db, t)
    t.integer('user_id').notNullable().references('id').inTable('users')
    t.integer('type_id').notNullable().references('id').inTable('user_absence_types')
    timestampColumn(db, t, 'starts_at').notNullable()
    timestampColumn(db, t, 'ends_at').notNullable()
    timestampColumn(db, t, 'requested_at')
    timestampColumn(db, t, 'approved_at')
    t.text('note_for_approval')
    t.integer('need_approval_by_id').references('id').inTable('users')
    timestampColumn(db, t, 'declined_at')
    t.text('declined_note')
    t.integer('declined_by_id').references('id').inTable('users')
    timestampColumn(db, t, 'compensation_approved_at')
    timestampColumn(db, t, 'compensation_declined_at')
    t.integer('compensated_by_id').references('id').inTable('users')
    // Derived from the decision timestamps on every write, stored so that it can be filtered.
    t.string('status', 16).notNullable()
    t.string('external_id', 255)
    auditTimestamps(db, t)
    filterIndexes(t, 'user_absences', [
      'user_id',
      'type_id',
      'need_approval_by_id',
      'declined_by_id',
      'compensated_by_id',
      'starts_at',
      'ends_at',
      'requested_at',
      'approved_at',
      'declined_at',
      'status',
      'external_id',
      'created_at',
      'updated_at'
    ])
    t.index(['company_id', 'user_id', 'starts_at'], 'user_absences_company_user_starts_at_idx')
  })
}

export async function down(db: Knex) {
  await db.schema.dropTableIfExists('user_absences')
  await db.schema.dropTableIfExists('time_entry_pauses')
  await db.schema.dropTableIfExists('time_entries')
  await db.schema.alterTable('companies', (t) => {
    t.dropColumn('working_time')
  })
}
