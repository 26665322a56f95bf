import fs from 'node:fs'
import type { Knex } from 'knex'
import { DateTime } from 'luxon'
import { createKnex, snakeCase } from '../src/db/knex'
import { migrateLatest } from '../src/db/migrations'
import { searchTables } from '../src/db/search-index'
import { createCompany } from '../src/companies/create-company'
import { lockUserTime, recompute, recomputeUser } from '../src/timesheets/recompute'
import { addDays, daysFrom, monthsFrom } from '../src/timesheets/periods'
import { APP_SECRET, DATA_DIR, databaseOf, databaseUrl, Engine, Scale, seedVersion, withDatabase } from './datasets'

/**
 * Seeds a benchmark data set with bulk inserts (not through the API), writing exactly the rows
 * the API would write: the same columns, ISO timestamps, company_id everywhere, and the stored
 * duration (`worked_ms`) of each time entry computed like the time-entries service does.
 * A data set whose recorded seed version matches is reused as it is.
 */
export interface SeededCompany {
  id: number
  apiKey: string
  adminUserId: number
  timezone: string
  userIds: number[]
  statusIds: number[]
  assignmentIds: [number, number]
  customerIds: number[]
  workEntryTypeId: number
  /** Events of the assignments, first and last id. */
  eventIds: [number, number]
  /** Ids of the draft weeks that still have time entries (the last weeks of the period), for the week PATCH. */
  draftWeekIds: number[]
}

export interface SeedInfo {
  version: string
  scale: Scale['name']
  seconds: number
  counts: Record<string, number>
  companies: SeededCompany[]
  /** The last seeded day (UTC date); the POST scenarios write after it. */
  lastDay: string
  /** Words of assignment names, for the `$like` scenario. */
  words: string[]
  /** The largest seeded id per table: rows above it were written by a benchmark run. */
  maxIds: Record<string, number>
  /** The months every user has a time-sheet row for (first days), oldest first. */
  sheetMonths: string[]
}

const MONTHS = 24
const FIRST_DAY = '2024-11-01'
const LAST_DAY = '2026-10-31'
const COUNTRIES = [
  {
    country: 'DE',
    timezone: 'Europe/Berlin',
    cities: ['Berlin', 'München', 'Hamburg', 'Köln', 'Stuttgart'],
    streets: ['Hauptstraße', 'Bahnhofstraße', 'Gartenweg', 'Schulstraße', 'Lindenallee']
  },
  {
    country: 'IT',
    timezone: 'Europe/Rome',
    cities: ['Milano', 'Torino', 'Bologna', 'Verona', 'Bolzano'],
    streets: ['Via Roma', 'Via Garibaldi', 'Corso Italia', 'Via Mazzini', 'Via Verdi']
  }
]
/** Words of assignment names; `$like` searches draw from them. */
const WORDS = [
  'Kabel',
  'Heizung',
  'Sanitär',
  'Dach',
  'Fenster',
  'Elektro',
  'Wartung',
  'Montage',
  'Reparatur',
  'Umbau',
  'Photovoltaik',
  'Lüftung'
]
const FIRST_NAMES = [
  'Anna',
  'Luca',
  'Jonas',
  'Giulia',
  'Max',
  'Sara',
  'Paul',
  'Marco',
  'Lena',
  'Elena',
  'Felix',
  'Chiara'
]
const LAST_NAMES = [
  'Müller',
  'Rossi',
  'Schmidt',
  'Bianchi',
  'Weber',
  'Ferrari',
  'Wagner',
  'Esposito',
  'Becker',
  'Romano'
]

/** The number of a company's `index`-th customer (the same numbers in every company). */
export const customerNumber = (index: number) => `K-${100000 + index}`

/** Deterministic pseudo-random numbers (mulberry32), so every seed writes the same data. */
function random(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A multi-row INSERT as one prepared statement: far faster than knex's row objects for a million rows. */
async function bulkInsert(db: Knex, table: string, columns: string[], rows: unknown[][]) {
  if (rows.length === 0) return
  const perRow = `(${columns.map(() => '?').join(',')})`
  const maxRows = Math.floor((db.client.config.client === 'pg' ? 60000 : 30000) / columns.length)
  for (let i = 0; i < rows.length; i += maxRows) {
    const chunk = rows.slice(i, i + maxRows)
    const sql = `insert into "${table}" (${columns.map((c) => `"${snakeCase(c)}"`).join(',')}) values ${chunk.map(() => perRow).join(',')}`
    await db.raw(sql, chunk.flat() as Knex.Value[])
  }
}

const iso = (ms: number) => new Date(ms).toISOString()

/** Monday–Friday of the seeded period, with local midnight in each company's timezone. */
function workdays(timezone: string): { day: string; midnight: number }[] {
  const days: { day: string; midnight: number }[] = []
  for (let d = DateTime.fromISO(FIRST_DAY, { zone: timezone }); d.toISODate()! <= LAST_DAY; d = d.plus({ days: 1 })) {
    if (d.weekday <= 5) days.push({ day: d.toISODate()!, midnight: d.startOf('day').toMillis() })
  }
  return days
}

/** Splits `total` into `parts` near-equal integers. */
const share = (total: number, parts: number, index: number) =>
  Math.floor(((index + 1) * total) / parts) - Math.floor((index * total) / parts)

interface CompanyPlan extends SeededCompany {
  country: (typeof COUNTRIES)[number]
  workdays: { day: string; midnight: number }[]
  entryTypes: { work: number; general: number }
  eventTypes: { id: number; name: string }[]
  assignmentTypeIds: number[]
  projectIds: number[]
  entriesPerUser: number[]
}

async function seedCompany(db: Knex, scale: Scale, index: number): Promise<CompanyPlan> {
  const country = COUNTRIES[index]
  const created = await createCompany(db, APP_SECRET, {
    name: `Benchmark ${country.country} ${index + 1}`,
    country: country.country,
    adminEmail: `admin-${index + 1}@bench.crewclock.test`,
    adminName: 'Bench Admin'
  })
  const companyId = created.companyId
  const now = iso(Date.parse(`${FIRST_DAY}T06:00:00Z`))
  const stamps = { createdAt: now, updatedAt: now }
  const ids = async (table: string, where: Record<string, unknown> = {}) =>
    (await db(table)
      .where({ companyId, ...where })
      .orderBy('id')
      .select('id', 'name')) as { id: number; name: string }[]
  const worker = (await db('roles').where({ companyId, type: 'worker' }).first('id')).id
  const usersHere = share(scale.users, COUNTRIES.length, index)
  const users = Array.from({ length: usersHere - 1 }, (_, i) => {
    const first = FIRST_NAMES[i % FIRST_NAMES.length]
    const last = LAST_NAMES[Math.floor(i / FIRST_NAMES.length) % LAST_NAMES.length]
    const email = `user-${index + 1}-${i + 1}@bench.crewclock.test`
    return {
      companyId,
      fullName: `${first} ${last} ${i + 1}`,
      email,
      emailNormalized: email,
      shortName: `${first[0]}${last[0]}${i + 1}`,
      staffNumber: `P${10000 + i}`,
      roleId: worker,
      roleType: 'worker',
      // Their accounts start with the seeded period (CONTRACT §11.1); NOT NULL on PostgreSQL.
      employedFrom: FIRST_DAY,
      ...stamps
    }
  })
  const userIds = [created.adminUserId, ...(await insertReturning(db, 'users', users))]
  const customers = Array.from({ length: share(scale.customers, COUNTRIES.length, index) }, (_, i) => ({
    companyId,
    number: customerNumber(i),
    companyName: `${WORDS[i % WORDS.length]} ${LAST_NAMES[i % LAST_NAMES.length]} ${i + 1}`,
    telephones: JSON.stringify([{ label: 'Büro', isDefault: true, telephoneNumber: `+49 30 ${1000000 + i}` }]),
    billingAddress: JSON.stringify({
      street: `${country.streets[i % 5]} ${1 + (i % 120)}`,
      zip: String(10000 + i),
      city: country.cities[i % 5],
      country: country.country
    }),
    ...stamps
  }))
  const customerIds = await insertReturning(db, 'customers', customers)
  const projects = Array.from({ length: share(scale.projects, COUNTRIES.length, index) }, (_, i) => ({
    companyId,
    number: `PR-${2024 + (i % 3)}-${i + 1}`,
    ...stamps
  }))
  const projectIds = await insertReturning(db, 'projects', projects)
  const [work, , general] = await ids('time_entry_types')
  return {
    id: companyId,
    apiKey: created.apiKey,
    adminUserId: created.adminUserId,
    timezone: country.timezone,
    userIds,
    statusIds: (await ids('assignment_status_types')).map((r) => r.id),
    assignmentIds: [0, 0],
    eventIds: [0, 0],
    customerIds,
    workEntryTypeId: work.id,
    country,
    workdays: workdays(country.timezone),
    entryTypes: { work: work.id, general: general.id },
    eventTypes: await ids('assignment_event_types'),
    assignmentTypeIds: (await ids('assignment_types')).map((r) => r.id),
    projectIds,
    entriesPerUser: [],
    draftWeekIds: []
  }
}

async function insertReturning(db: Knex, table: string, rows: Record<string, unknown>[]): Promise<number[]> {
  const result: number[] = []
  for (let i = 0; i < rows.length; i += 200) {
    const inserted = await db(table).insert(rows.slice(i, i + 200), ['id'])
    result.push(...inserted.map((r: any) => Number(typeof r === 'object' ? r.id : r)))
  }
  return result
}

const ASSIGNMENT_COLUMNS = [
  'id',
  'companyId',
  'number',
  'name',
  'comment',
  'color',
  'address',
  'customerId',
  'projectId',
  'typeId',
  'responsibleUserId',
  'statusId',
  'externalId',
  'createdAt',
  'updatedAt'
]
const EVENT_COLUMNS = [
  'id',
  'companyId',
  'assignmentId',
  'typeId',
  'name',
  'startsAt',
  'endsAt',
  'order',
  'isAllDay',
  'isOutward',
  'createdAt',
  'updatedAt'
]

/** Assignments spread over the period (the older ones done), each with its events and one assigned user. */
async function seedAssignments(
  db: Knex,
  plan: CompanyPlan,
  count: number,
  perAssignment: number,
  firstId: number,
  firstEventId: number
) {
  const rnd = random(plan.id * 7919)
  const { statusIds, workdays: days } = plan
  const rows: unknown[][] = []
  const events: unknown[][] = []
  const eventUsers: unknown[][] = []
  for (let i = 0; i < count; i++) {
    const id = firstId + i
    const day = days[Math.floor((i * days.length) / count)]
    const created = iso(day.midnight + 7 * 3600_000 + (i % 600) * 1000)
    const age = days.length - Math.floor((i * days.length) / count)
    const status = age > 40 ? (rnd() < 0.94 ? statusIds[2] : statusIds[3]) : statusIds[Math.floor(rnd() * 2)]
    const word = WORDS[Math.floor(rnd() * WORDS.length)]
    const street = `${plan.country.streets[i % 5]} ${1 + (i % 150)}`
    // Order names carry the customer's number, as offices write them: searching one finds that
    // customer's orders, about 12 in either data set (customers and assignments scale together).
    const customer = (i * 31) % plan.customerIds.length
    const address = JSON.stringify({
      street,
      zip: String(10000 + (i % 9000)),
      city: plan.country.cities[(i >> 3) % 5],
      country: plan.country.country
    })
    rows.push([
      id,
      plan.id,
      String(i + 1),
      `${word} ${street} · ${customerNumber(customer)}`,
      rnd() < 0.3 ? `Bitte beim Hausmeister melden (${i})` : null,
      null,
      address,
      plan.customerIds[customer],
      i % 3 === 0 ? plan.projectIds[i % plan.projectIds.length] : null,
      plan.assignmentTypeIds[i % plan.assignmentTypeIds.length],
      plan.userIds[(i * 17) % plan.userIds.length],
      status,
      i % 2 === 0 ? `EXT-${plan.id}-${i}` : null,
      created,
      created
    ])
    for (let e = 0; e < perAssignment; e++) {
      const type = plan.eventTypes[e === 0 || e === perAssignment - 1 ? 1 : 0]
      const start = day.midnight + (e + 1) * 86400_000 + 7 * 3600_000
      const eventId = firstEventId + i * perAssignment + e
      events.push([
        eventId,
        plan.id,
        id,
        type.id,
        type.name,
        iso(start),
        iso(start + 8 * 3600_000),
        e,
        false,
        false,
        created,
        created
      ])
      eventUsers.push([plan.id, eventId, plan.userIds[(i + e) % plan.userIds.length]])
    }
    if (rows.length >= 5000 || i === count - 1) {
      await db.transaction(async (trx) => {
        await bulkInsert(trx, 'assignments', ASSIGNMENT_COLUMNS, rows)
        await bulkInsert(trx, 'assignment_events', EVENT_COLUMNS, events)
        await bulkInsert(trx, 'assignment_event_users', ['companyId', 'eventId', 'userId'], eventUsers)
      })
      rows.length = events.length = eventUsers.length = 0
    }
  }
  await db('assignment_number_sequences').insert({ companyId: plan.id, lastNumber: count })
  plan.assignmentIds = [firstId, firstId + count - 1]
  plan.eventIds = [firstEventId, firstEventId + count * perAssignment - 1]
}

const ENTRY_COLUMNS = [
  'id',
  'companyId',
  'userId',
  'typeId',
  'assignmentId',
  'eventId',
  'eventTypeId',
  'startsAt',
  'endsAt',
  'workedMs',
  'note',
  'externalId',
  'createdAt',
  'updatedAt'
]
const SLOT_MINUTES = 75
const ENTRY_MINUTES = 60
const PAUSE = { from: 20, to: 35 }

/**
 * Time entries day by day (ids grow with time, as in a real database): each user's entries of
 * a workday are consecutive 60-minute blocks from 06:00 local; the day's last block is general
 * activity (no assignment), the others are booked on an event of the user's current assignment.
 * Every 20th entry has one closed 15-minute pause, so its `worked_ms` is 45 minutes.
 */
async function seedTimeEntries(db: Knex, plans: CompanyPlan[], scale: Scale, perAssignment: number) {
  const totalUsers = plans.reduce((n, p) => n + p.userIds.length, 0)
  let userIndex = 0
  for (const plan of plans) {
    plan.entriesPerUser = plan.userIds.map(() => share(scale.timeEntries, totalUsers, userIndex++))
  }
  const dayCount = plans[0].workdays.length
  let id = 1
  const entries: unknown[][] = []
  const pauses: unknown[][] = []
  const flush = async () => {
    await db.transaction(async (trx) => {
      await bulkInsert(trx, 'time_entries', ENTRY_COLUMNS, entries)
      await bulkInsert(trx, 'time_entry_pauses', ['companyId', 'timeEntryId', 'startsAt', 'endsAt'], pauses)
    })
    entries.length = pauses.length = 0
  }
  for (let d = 0; d < dayCount; d++) {
    for (const plan of plans) {
      const { midnight } = plan.workdays[d]
      const assignments = plan.assignmentIds[1] - plan.assignmentIds[0] + 1
      const current = Math.floor((d * assignments) / dayCount)
      plan.userIds.forEach((userId, u) => {
        const today = share(plan.entriesPerUser[u], dayCount, d)
        const assignment = plan.assignmentIds[0] + Math.max(0, current - (u % 30))
        for (let slot = 0; slot < today; slot++) {
          const start = midnight + 6 * 3600_000 + slot * SLOT_MINUTES * 60_000
          const end = start + ENTRY_MINUTES * 60_000
          const paused = id % 20 === 0
          const workedMs = (ENTRY_MINUTES - (paused ? PAUSE.to - PAUSE.from : 0)) * 60_000
          const general = slot === today - 1 && today > 1
          const eventId =
            plan.eventIds[0] + (assignment - plan.assignmentIds[0]) * perAssignment + (slot % perAssignment)
          const eventType =
            plan.eventTypes[slot % perAssignment === 0 || slot % perAssignment === perAssignment - 1 ? 1 : 0].id
          entries.push([
            id,
            plan.id,
            userId,
            general ? plan.entryTypes.general : plan.entryTypes.work,
            general ? null : assignment,
            general ? null : eventId,
            general ? null : eventType,
            iso(start),
            iso(end),
            workedMs,
            null,
            null,
            iso(end),
            iso(end)
          ])
          if (paused) pauses.push([plan.id, id, iso(start + PAUSE.from * 60_000), iso(start + PAUSE.to * 60_000)])
          id++
        }
      })
    }
    if (entries.length >= 20000) await flush()
  }
  await flush()
  return id - 1
}

/**
 * Time sheets as a company that uses them has them: every user has a day row for each day of the
 * full ISO weeks from the first Monday of the period to the week the benchmark was written in
 * (2026-11-23), those weeks, and a gap-free chain of months from the first month to the current
 * one (as the service creates them on demand: a week brings the months its days fall in). The
 * office approved the weeks before `approvedBefore`; the last weeks with entries and the
 * current month are drafts. Months stay unlocked, so that a change in the first month carries
 * through the whole chain: the case the carry-chain target is about.
 */
const SHEETS = {
  firstWeek: '2024-11-04',
  lastWeek: '2026-11-23',
  approvedBefore: '2026-10-05',
  lastWeekWithEntries: '2026-10-26'
}
const SHEET_WEEKS = daysFrom(SHEETS.firstWeek, SHEETS.lastWeek).filter((_, i) => i % 7 === 0)
const SHEET_DAYS = daysFrom(SHEETS.firstWeek, addDays(SHEETS.lastWeek, 6))
const SHEET_MONTHS = monthsFrom(SHEETS.firstWeek.slice(0, 8) + '01', SHEETS.lastWeek)

/** Runs `work` for every item, at most `limit` at a time. */
async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<unknown>) {
  let next = 0
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await work(items[next++])
    })
  )
}

/**
 * Inserts the rows as drafts with no figures, lets the service's own recomputation fill them
 * (src/timesheets/recompute.ts, so the stored figures are what the service computes), approves
 * the older weeks' days and recomputes again for the week and month counts and statuses.
 */
async function seedTimeSheets(db: Knex, plans: CompanyPlan[], log: (line: string) => void) {
  const started = Date.now()
  const stamp = (day: string) => `${day}T05:00:00.000Z`
  const users = plans.flatMap((plan) => plan.userIds.map((userId) => ({ companyId: plan.id, userId })))
  for (const { companyId, userId } of users) {
    await db.transaction(async (trx) => {
      await bulkInsert(
        trx,
        'time_sheet_days',
        ['companyId', 'userId', 'day', 'status', 'createdAt', 'updatedAt'],
        SHEET_DAYS.map((day) => [companyId, userId, day, 'draft', stamp(day), stamp(day)])
      )
      await bulkInsert(
        trx,
        'time_sheet_weeks',
        ['companyId', 'userId', 'weekStart', 'status', 'createdAt', 'updatedAt'],
        SHEET_WEEKS.map((week) => [companyId, userId, week, 'draft', stamp(week), stamp(week)])
      )
      await bulkInsert(
        trx,
        'time_sheet_months',
        ['companyId', 'userId', 'month', 'status', 'dailyFigures', 'createdAt', 'updatedAt'],
        SHEET_MONTHS.map((month) => [companyId, userId, month, 'draft', '[]', stamp(month), stamp(month)])
      )
    })
  }
  // SQLite has one connection; PostgreSQL recomputes a few users at once.
  const parallel = db.client.config.client === 'pg' ? 4 : 1
  const inTransaction = (
    user: { companyId: number; userId: number },
    work: (trx: Knex.Transaction) => Promise<unknown>
  ) =>
    db.transaction(async (trx) => {
      await lockUserTime(trx, user)
      await work(trx)
    })
  await eachLimited(users, parallel, (user) =>
    inTransaction(user, (trx) => recomputeUser(trx, user.companyId, user.userId))
  )
  log(`  time sheets computed after ${((Date.now() - started) / 1000).toFixed(0)} s`)
  for (const plan of plans) {
    for (const week of SHEET_WEEKS.filter((w) => w < SHEETS.approvedBefore)) {
      const monday = addDays(week, 7)
      const approvedAt = `${monday}T14:00:00.000Z`
      await db('time_sheet_days')
        .where({ companyId: plan.id })
        .where('day', '>=', week)
        .where('day', '<=', addDays(week, 6))
        .update({
          status: 'approved',
          submittedAt: `${monday}T08:00:00.000Z`,
          submittedFirstAt: `${monday}T08:00:00.000Z`,
          approvedAt,
          approvedById: plan.adminUserId,
          updatedAt: approvedAt
        })
    }
  }
  await eachLimited(users, parallel, (user) =>
    inTransaction(user, (trx) =>
      // From scratch: the days' statuses were written above, beside the service, so no day is "the changed one".
      recompute(
        trx,
        user.companyId,
        user.userId,
        { days: [], weekStarts: SHEET_WEEKS, months: SHEET_MONTHS },
        'from-scratch'
      )
    )
  )
  // The stored figures must equal a recomputation from scratch (what the service guarantees).
  for (const plan of plans) {
    const user = { companyId: plan.id, userId: plan.userIds[plan.userIds.length - 1] }
    const trx = await db.transaction()
    try {
      const changed = await recomputeUser(trx, user.companyId, user.userId)
      const count = changed.days.length + changed.weeks.length + changed.months.length
      if (count > 0)
        throw new Error(
          `seeded time sheets of user ${user.userId} are inconsistent: a recomputation changes ${count} rows`
        )
    } finally {
      await trx.rollback()
    }
  }
  for (const plan of plans) {
    const weeks = await db('time_sheet_weeks')
      .where({ companyId: plan.id, status: 'draft' })
      .where('weekStart', '>=', SHEETS.approvedBefore)
      .where('weekStart', '<=', SHEETS.lastWeekWithEntries)
      .orderBy('id')
      .select('id')
    plan.draftWeekIds = weeks.map((row: { id: number }) => Number(row.id))
  }
  log(`  time sheets after ${((Date.now() - started) / 1000).toFixed(0)} s`)
}

async function readInfo(db: Knex): Promise<SeedInfo | null> {
  if (!(await db.schema.hasTable('bench_seed'))) return null
  const row = await db('bench_seed').first('info')
  return row ? (JSON.parse(row.info) as SeedInfo) : null
}

/** PostgreSQL: the data set's database, created (or dropped and created) from the server's `postgres` database. */
async function preparePgDatabase(url: string, drop: boolean) {
  const name = databaseOf(url)
  const admin = createKnex(withDatabase(url, 'postgres'), { max: 1 })
  try {
    const exists = await admin('pg_database').where({ datname: name }).first('datname')
    if (exists && drop) await admin.raw('drop database ?? with (force)', [name])
    if (!exists || drop) await admin.raw('create database ??', [name])
  } finally {
    await admin.destroy()
  }
}

function removeSqlite(url: string) {
  const file = url.replace(/^sqlite:\/\//, '')
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true })
}

async function pgSequences(db: Knex) {
  for (const table of ['assignments', 'assignment_events', 'time_entries']) {
    await db.raw(`select setval(pg_get_serial_sequence(?, 'id'), (select max(id) from ??))`, [table, table])
  }
}

export async function ensureSeeded(
  engine: Engine,
  scale: Scale,
  pgBase: string,
  log: (line: string) => void
): Promise<SeedInfo & { url: string }> {
  fs.mkdirSync(DATA_DIR, { recursive: true })
  const url = databaseUrl(engine, scale.name, pgBase)
  const version = seedVersion(scale)
  if (engine === 'pg') await preparePgDatabase(url, false)
  let db = createKnex(url, { max: 4 })
  const existing = await readInfo(db).catch(() => null)
  if (existing?.version === version) {
    await db.destroy()
    return { ...existing, url }
  }
  await db.destroy()
  log(
    `seeding ${scale.name} on ${engine} (${existing ? `version ${existing.version} is outdated` : 'no data set yet'}) ...`
  )
  if (engine === 'pg') await preparePgDatabase(url, true)
  else removeSqlite(url)
  db = createKnex(url, { max: 4 })
  const started = Date.now()
  try {
    if (engine === 'sqlite') await db.raw('PRAGMA synchronous = OFF')
    await migrateLatest(db)
    const plans: CompanyPlan[] = []
    for (let i = 0; i < COUNTRIES.length; i++) plans.push(await seedCompany(db, scale, i))
    let nextAssignment = 1
    let nextEvent = 1
    for (const [i, plan] of plans.entries()) {
      const count = share(scale.assignments, plans.length, i)
      await seedAssignments(db, plan, count, scale.eventsPerAssignment, nextAssignment, nextEvent)
      nextAssignment += count
      nextEvent += count * scale.eventsPerAssignment
    }
    log(`  assignments and events after ${((Date.now() - started) / 1000).toFixed(0)} s`)
    const entries = await seedTimeEntries(db, plans, scale, scale.eventsPerAssignment)
    log(`  ${entries} time entries after ${((Date.now() - started) / 1000).toFixed(0)} s`)
    await seedTimeSheets(db, plans, log)
    if (engine === 'pg') await pgSequences(db)
    // PostgreSQL's autovacuum would vacuum and analyze the new tables on its own within minutes;
    // the vacuum also moves what the bulk inserts left in the GIN indexes' pending lists into the
    // indexes (until then the planner shuns them).
    if (engine === 'pg') await db.raw('vacuum analyze')
    // Likewise SQLite's trigram indexes: each bulk transaction left a segment, which FTS5's
    // automerge would fold together as the table lives on; merged, a look-up reads one.
    if (engine === 'sqlite') {
      for (const table of searchTables()) await db.raw(`insert into ??(??) values ('optimize')`, [table, table])
    }
    const counts: Record<string, number> = {}
    const maxIds: Record<string, number> = {}
    for (const table of BENCH_TABLES) {
      const row = await db(table).count({ n: '*' }).max({ max: 'id' }).first()
      counts[table] = Number(row!.n)
      maxIds[table] = Number(row!.max ?? 0)
    }
    const info: SeedInfo = {
      version,
      scale: scale.name,
      seconds: Math.round((Date.now() - started) / 1000),
      counts,
      companies: plans.map(
        ({
          id,
          apiKey,
          adminUserId,
          timezone,
          userIds,
          statusIds,
          assignmentIds,
          customerIds,
          workEntryTypeId,
          eventIds,
          draftWeekIds
        }) => ({
          id,
          apiKey,
          adminUserId,
          timezone,
          userIds,
          statusIds,
          assignmentIds,
          customerIds,
          workEntryTypeId,
          eventIds,
          draftWeekIds
        })
      ),
      lastDay: LAST_DAY,
      words: WORDS,
      maxIds,
      sheetMonths: SHEET_MONTHS
    }
    await db.schema.createTable('bench_seed', (t) => t.text('info'))
    await db('bench_seed').insert({ info: JSON.stringify(info) })
    log(`  seeded in ${info.seconds} s: ${JSON.stringify(counts)}`)
    return { ...info, url }
  } finally {
    await db.destroy()
  }
}

/** The tables the seed fills (counted in the seed info). */
export const BENCH_TABLES = [
  'users',
  'customers',
  'assignments',
  'assignment_events',
  'time_entries',
  'time_entry_pauses',
  'time_sheet_days',
  'time_sheet_weeks',
  'time_sheet_months'
]

export const SEED_PERIOD = { first: FIRST_DAY, last: LAST_DAY, months: MONTHS }
