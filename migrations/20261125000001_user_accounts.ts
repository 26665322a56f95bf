import type { Knex } from 'knex'

/**
 * CONTRACT §11.1: a user's time account starts on `employed_from` with `opening_balance` minutes.
 * Existing users keep the figures they have: a user with month rows starts on the first day of
 * the earliest one (its carry-in was 0, so is the opening balance, and no day in or after it
 * loses its target); a user without month rows starts on the earliest of the day the user was
 * created and the first day of an entry or absence (no row exists, so no figure changes, and past
 * work that was imported keeps its target when it is looked up). Days are company-local.
 * Frozen: plain knex only, no imports from src/.
 */
const localDay = (instant: unknown, timeZone: string) =>
  new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    new Date(instant as string)
  )

const dayText = (value: unknown) =>
  value instanceof Date ? value.toISOString().slice(0, 10) : String(value).slice(0, 10)

export async function up(db: Knex) {
  const pg = db.client.config.client === 'pg'
  await db.schema.alterTable('users', (t) => {
    if (pg) t.date('employed_from')
    else t.string('employed_from', 10)
    t.double('opening_balance').notNullable().defaultTo(0)
  })
  const users = await db('users')
    .join('companies', 'companies.id', 'users.company_id')
    .select('users.id', 'users.created_at', 'companies.timezone')
  for (const user of users) {
    const firstMonth = await db('time_sheet_months').where({ user_id: user.id }).min('month as month').first()
    let employedFrom: string
    if (firstMonth?.month) employedFrom = dayText(firstMonth.month)
    else {
      const entry = await db('time_entries').where({ user_id: user.id }).min('starts_at as at').first()
      const absence = await db('user_absences').where({ user_id: user.id }).min('starts_at as at').first()
      const days = [user.createdAt ?? user.created_at, entry?.at, absence?.at]
        .filter((at) => at !== null && at !== undefined)
        .map((at) => localDay(at, user.timezone))
      employedFrom = days.sort()[0]
    }
    await db('users').where({ id: user.id }).update({ employed_from: employedFrom })
  }
  await db.schema.alterTable('users', (t) => {
    t.index(['company_id', 'employed_from'], 'users_company_employed_from_idx')
    t.index(['company_id', 'opening_balance'], 'users_company_opening_balance_idx')
  })
  if (pg) await db.raw('ALTER TABLE users ALTER COLUMN employed_from SET NOT NULL')
}

export async function down(db: Knex) {
  await db.schema.alterTable('users', (t) => {
    t.dropIndex(['company_id', 'employed_from'], 'users_company_employed_from_idx')
    t.dropIndex(['company_id', 'opening_balance'], 'users_company_opening_balance_idx')
    t.dropColumn('employed_from')
    t.dropColumn('opening_balance')
  })
}
