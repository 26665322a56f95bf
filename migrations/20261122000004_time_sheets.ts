import type { Knex } from 'knex'
import {
  auditTimestamps,
  dateColumn,
  filterIndexes,
  jsonColumn,
  tenantTable,
  timestampColumn
} from './support/schema-helpers'

/**
 * Time sheets (CONTRACT §7.4–7.6): one row per user and day, ISO week and month. Every figure is
 * kept in exact milliseconds (`*_ms`) and turned into minutes, rounded to 2 decimals, only in
 * responses. A day keeps its effective figures (frozen while approved) next to its manual
 * overrides; weeks and months keep the aggregates of their calendar days, rows or not.
 */
const figure = (t: Knex.CreateTableBuilder, name: string) => t.bigInteger(name)
const count = (t: Knex.CreateTableBuilder, name: string) => t.integer(name).notNullable().defaultTo(0)

function periodFlags(db: Knex, t: Knex.CreateTableBuilder) {
  count(t, 'submitted_count')
  count(t, 'approved_count')
  count(t, 'declined_count')
  count(t, 'has_multiple_day_time_entry_count')
  count(t, 'recomputable_count')
  count(t, 'has_open_time_entry_count')
  dateColumn(db, t, 'open_time_entry_earliest_day')
  timestampColumn(db, t, 'computed_at')
}

export async function up(db: Knex) {
  await db.schema.createTable('time_sheet_days', (t) => {
    tenantTable(db, t)
    t.integer('user_id').notNullable().references('id').inTable('users')
    dateColumn(db, t, 'day').notNullable()
    t.string('status', 16).notNullable().defaultTo('draft')
    t.text('note')
    t.text('declined_note')
    t.string('external_id', 255)
    // Manual overrides (null: the computed value applies).
    timestampColumn(db, t, 'manual_starts_at')
    timestampColumn(db, t, 'manual_ends_at')
    figure(t, 'manual_break_time_ms')
    figure(t, 'manual_duration_ms')
    // Effective figures: override ?? computed; kept as they were while the day is approved.
    timestampColumn(db, t, 'starts_at')
    timestampColumn(db, t, 'ends_at')
    figure(t, 'break_time_ms')
    figure(t, 'duration_ms').notNullable().defaultTo(0)
    figure(t, 'expected_duration_ms').notNullable().defaultTo(0)
    t.string('break_time_error_type', 16)
    figure(t, 'break_time_error_expected_ms')
    figure(t, 'break_time_error_value_ms')
    figure(t, 'break_time_error_duration_min_ms')
    figure(t, 'duration_error_expected_ms')
    figure(t, 'duration_error_value_ms')
    // An approved day whose inputs changed since: its frozen figures differ from a recomputation.
    t.boolean('recomputable').notNullable().defaultTo(false)
    timestampColumn(db, t, 'submitted_at')
    timestampColumn(db, t, 'submitted_first_at')
    timestampColumn(db, t, 'approved_at')
    t.integer('approved_by_id').references('id').inTable('users')
    timestampColumn(db, t, 'declined_at')
    t.integer('declined_by_id').references('id').inTable('users')
    timestampColumn(db, t, 'manipulated_at')
    t.integer('manipulated_by_id').references('id').inTable('users')
    auditTimestamps(db, t)
    t.unique(['company_id', 'user_id', 'day'])
    filterIndexes(t, 'time_sheet_days', [
      'user_id',
      'day',
      'status',
      'submitted_at',
      'approved_at',
      'external_id',
      'created_at',
      'updated_at'
    ])
  })

  await db.schema.createTable('time_sheet_weeks', (t) => {
    tenantTable(db, t)
    t.integer('user_id').notNullable().references('id').inTable('users')
    dateColumn(db, t, 'week_start').notNullable()
    // Derived from the days; stored so that lists can filter it.
    t.string('status', 16).notNullable().defaultTo('draft')
    timestampColumn(db, t, 'submitted_at')
    timestampColumn(db, t, 'approved_at')
    timestampColumn(db, t, 'declined_at')
    figure(t, 'sum_actual_ms').notNullable().defaultTo(0)
    figure(t, 'sum_target_ms').notNullable().defaultTo(0)
    periodFlags(db, t)
    t.string('external_id', 255)
    auditTimestamps(db, t)
    t.unique(['company_id', 'user_id', 'week_start'])
    filterIndexes(t, 'time_sheet_weeks', ['user_id', 'week_start', 'status', 'external_id', 'created_at', 'updated_at'])
  })

  await db.schema.createTable('time_sheet_months', (t) => {
    tenantTable(db, t)
    t.integer('user_id').notNullable().references('id').inTable('users')
    dateColumn(db, t, 'month').notNullable()
    t.string('status', 16).notNullable().defaultTo('draft')
    t.text('note')
    t.text('declined_note')
    timestampColumn(db, t, 'submitted_at')
    timestampColumn(db, t, 'submitted_first_at')
    timestampColumn(db, t, 'approved_at')
    timestampColumn(db, t, 'declined_at')
    figure(t, 'sum_actual_computed_ms').notNullable().defaultTo(0)
    figure(t, 'sum_target_computed_ms').notNullable().defaultTo(0)
    figure(t, 'carry_in_computed_ms').notNullable().defaultTo(0)
    figure(t, 'carry_in_ms').notNullable().defaultTo(0)
    figure(t, 'carry_out_computed_ms').notNullable().defaultTo(0)
    figure(t, 'carry_out_ms').notNullable().defaultTo(0)
    figure(t, 'carry_out_forfeited_ms').notNullable().defaultTo(0)
    figure(t, 'carry_in_manual_ms')
    figure(t, 'carry_out_manual_ms')
    t.string('carry_in_correction_type', 16)
    t.string('carry_out_correction_type', 16)
    timestampColumn(db, t, 'locked_at')
    figure(t, 'sum_actual_locked_ms')
    figure(t, 'sum_target_locked_ms')
    figure(t, 'carry_in_locked_ms')
    figure(t, 'carry_out_locked_ms')
    // [actualMs, targetMs] of each calendar day, so that `currentDifference` follows the clock without a recomputation.
    jsonColumn(db, t, 'daily_figures')
    periodFlags(db, t)
    t.string('external_id', 255)
    auditTimestamps(db, t)
    t.unique(['company_id', 'user_id', 'month'])
    filterIndexes(t, 'time_sheet_months', ['user_id', 'month', 'status', 'external_id', 'created_at', 'updated_at'])
  })
}

export async function down(db: Knex) {
  await db.schema.dropTableIfExists('time_sheet_months')
  await db.schema.dropTableIfExists('time_sheet_weeks')
  await db.schema.dropTableIfExists('time_sheet_days')
}
