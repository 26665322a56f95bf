import type { Knex } from 'knex'

/**
 * CONTRACT §11.2: working-time schedules with effective dates.
 * - `company_working_times`: the company model (CONTRACT §7.1) as versions, each valid from a day
 *   on. Every company's stored model becomes its first version, valid from 1970-01-01 (from the
 *   start of the calendar), so no figure changes; `companies.working_time` is dropped.
 * - `user_working_times`: a user's own weekly targets (part-time workers), valid from a day on.
 * Frozen: plain knex only, no imports from src/ (the model is copied as stored).
 */
const FIRST_DAY = '1970-01-01'

const json = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value)

export async function up(db: Knex) {
  const pg = db.client.config.client === 'pg'
  const date = (t: Knex.CreateTableBuilder, name: string) => (pg ? t.date(name) : t.string(name, 10))
  const document = (t: Knex.CreateTableBuilder, name: string) => (pg ? t.jsonb(name) : t.text(name))
  const timestamp = (t: Knex.CreateTableBuilder, name: string) =>
    pg ? t.timestamp(name, { useTz: true, precision: 3 }) : t.string(name, 24)

  await db.schema.createTable('company_working_times', (t) => {
    t.increments('id')
    t.integer('company_id').notNullable().references('id').inTable('companies').onDelete('CASCADE')
    date(t, 'valid_from').notNullable()
    document(t, 'target_minutes').notNullable()
    document(t, 'break_rules').notNullable()
    t.integer('max_daily_minutes').notNullable()
    t.integer('carry_over_cap_minutes')
    timestamp(t, 'created_at').notNullable()
    timestamp(t, 'updated_at').notNullable()
    t.unique(['company_id', 'valid_from'], { indexName: 'company_working_times_company_valid_from_unique' })
  })

  await db.schema.createTable('user_working_times', (t) => {
    t.increments('id')
    t.integer('company_id').notNullable().references('id').inTable('companies').onDelete('CASCADE')
    t.integer('user_id').notNullable().references('id').inTable('users')
    date(t, 'valid_from').notNullable()
    document(t, 'targets').notNullable()
    t.text('note')
    t.string('external_id', 255)
    timestamp(t, 'created_at').notNullable()
    timestamp(t, 'updated_at').notNullable()
    t.index(['company_id', 'id'])
    t.unique(['company_id', 'user_id', 'valid_from'], { indexName: 'user_working_times_user_valid_from_unique' })
    for (const column of ['user_id', 'valid_from', 'external_id', 'created_at', 'updated_at']) {
      t.index(['company_id', column], `user_working_times_company_${column}_idx`)
    }
  })

  const now = new Date().toISOString()
  for (const company of await db('companies').select('id', 'working_time')) {
    const model = json(company.workingTime ?? company.working_time)
    await db('company_working_times').insert({
      company_id: company.id,
      valid_from: FIRST_DAY,
      target_minutes: JSON.stringify(model.targetMinutes),
      break_rules: JSON.stringify(model.breakRules),
      max_daily_minutes: model.maxDailyMinutes,
      carry_over_cap_minutes: model.carryOverCapMinutes ?? null,
      created_at: now,
      updated_at: now
    })
  }
  // SQLite (≥ 3.35) drops a plain column in place; knex's rebuild of `companies` would touch every table that references it.
  await db.raw('ALTER TABLE companies DROP COLUMN working_time')
}

export async function down(db: Knex) {
  const pg = db.client.config.client === 'pg'
  await db.schema.alterTable('companies', (t) => {
    if (pg) t.jsonb('working_time')
    else t.text('working_time')
  })
  // The first version is the one the single model of before can hold.
  for (const version of await db('company_working_times').where({ valid_from: FIRST_DAY })) {
    const model = {
      targetMinutes: json(version.targetMinutes ?? version.target_minutes),
      breakRules: json(version.breakRules ?? version.break_rules),
      maxDailyMinutes: version.maxDailyMinutes ?? version.max_daily_minutes,
      carryOverCapMinutes: version.carryOverCapMinutes ?? version.carry_over_cap_minutes ?? null
    }
    await db('companies')
      .where({ id: version.companyId ?? version.company_id })
      .update({ working_time: JSON.stringify(model) })
  }
  await db.schema.dropTable('user_working_times')
  await db.schema.dropTable('company_working_times')
}
