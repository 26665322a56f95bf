import cluster from 'node:cluster'
import crypto from 'node:crypto'
import http from 'node:http'
import Database from 'better-sqlite3'
import pg from 'pg'

/**
 * The platform: what the benchmark's scenarios cost when written straight from the contract
 * (/work/shared/design/CONTRACT.md) on the bare platform — `node:http` and prepared statements
 * (`better-sqlite3` on SQLite; `pg` with named prepared statements on PostgreSQL), no framework
 * and nothing imported from src/. Each request does what the contract asks of it, the fastest
 * obvious way:
 * - authentication (§2, §10.1): the key's SHA-256 looked up per request (constant-time compare),
 *   revoked keys and deactivated owners refused (401), the scope checked (403), the per-key rate
 *   limit counted with its `RateLimit-*` headers (§10.2) and the usage counted per key (§8,
 *   written every few seconds);
 * - scoping to the key's company, validation of path, query and body (400 naming the field),
 *   the error body of §3.2 and the list envelope of §3.1 with its count;
 * - writes in one transaction with the event log append of §13.1 (the company's head row locked
 *   on PostgreSQL): POST customer; POST time entry with its reference checks, the user lock, the
 *   approved-day and locked-month checks, the overlap check (two index look-ups: entries span at
 *   most 24 h, and a user has at most one running entry), the figures of the affected day from
 *   its entries and schedule, its week and month by arithmetic on the stored figures, and the
 *   carry chain of the later months (§7.2, §7.4–7.6, §11); PATCH week status with its fan-out to
 *   the 7 days (missing rows created), its guards, and the week and month counts by SQL over the
 *   day rows.
 * It implements the scenarios of bench/scenarios.ts, not the API: a filter or route it does not
 * serve is a 400 or 404. Its responses have the service's JSON shapes (bench/run.ts checkShapes).
 *
 * Env: DATABASE_URL, PORT, HOST, WEB_CONCURRENCY.
 */
type Row = Record<string, any>

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly errorName: string,
    message: string,
    readonly data?: Row
  ) {
    super(message)
  }
}
const badRequest = (field: string, message: string) =>
  new HttpError(400, 'BadRequest', `Invalid ${field}: ${message}`, { validationErrors: { [field]: message } })
const notFound = (message = 'Not found') => new HttpError(404, 'NotFound', message)
const conflict = (message: string, data?: Row) => new HttpError(409, 'Conflict', message, data)
const CLASS_NAMES: Record<number, string> = {
  400: 'bad-request',
  401: 'not-authenticated',
  403: 'forbidden',
  404: 'not-found',
  409: 'conflict',
  413: 'payload-too-large',
  429: 'too-many-requests',
  500: 'general-error'
}

// ---------------------------------------------------------------------------------------------
// Statements and the two drivers. The request logic is written once, as generators that yield
// each statement: the SQLite driver answers them synchronously (better-sqlite3 blocks, so a
// write transaction is one synchronous run), the PostgreSQL driver asynchronously on one pooled
// client. Statements use `?` placeholders and are prepared once per connection by name.
// ---------------------------------------------------------------------------------------------

interface Stmt {
  name: string
  sqlite: string | null
  pg: string | null
}
const stmt = (name: string, sql: string, pgSql: string | null = sql): Stmt => ({ name, sqlite: sql, pg: pgSql })
/** A statement only PostgreSQL runs (row locks; SQLite serialises write transactions). */
const pgOnly = (name: string, sql: string): Stmt => ({ name, sqlite: null, pg: sql })

interface Op {
  stmt: Stmt
  params: unknown[]
  mode: 'all' | 'get' | 'run'
}
type Work<T> = Generator<Op, T, any>

function* all(s: Stmt, params: unknown[]): Work<Row[]> {
  return yield { stmt: s, params, mode: 'all' }
}
function* get(s: Stmt, params: unknown[]): Work<Row | undefined> {
  return yield { stmt: s, params, mode: 'get' }
}
function* exec(s: Stmt, params: unknown[]): Work<void> {
  yield { stmt: s, params, mode: 'run' }
}

interface Driver {
  isPg: boolean
  read<T>(work: () => Work<T>): Promise<T>
  write<T>(work: () => Work<T>): Promise<T>
  close(): Promise<void>
}

const sqliteValue = (value: unknown) => (typeof value === 'boolean' ? (value ? 1 : 0) : value)

function sqliteDriver(filename: string): Driver {
  const db = new Database(filename, { timeout: 5000 })
  // The service's connection settings (src/db/knex.ts): foreign keys on, WAL, a busy timeout.
  db.pragma('foreign_keys = ON')
  db.pragma('journal_mode = WAL')
  const prepared = new Map<string, ReturnType<typeof db.prepare>>()
  const run = (op: Op) => {
    if (op.stmt.sqlite === null) return undefined
    let statement = prepared.get(op.stmt.name)
    if (!statement) prepared.set(op.stmt.name, (statement = db.prepare(op.stmt.sqlite)))
    const params = op.params.map(sqliteValue)
    if (op.mode === 'all') return statement.all(...params)
    if (op.mode === 'get') return statement.get(...params)
    statement.run(...params)
    return undefined
  }
  const drive = <T>(work: Work<T>): T => {
    let step = work.next()
    while (!step.done) step = work.next(run(step.value))
    return step.value
  }
  const transaction = db.transaction(<T>(make: () => Work<T>) => drive(make()))
  return {
    isPg: false,
    read: async (make) => drive(make()),
    write: async (make) => transaction.immediate(make) as any,
    close: async () => db.close()
  }
}

function pgDriver(url: string): Driver {
  // Dates as 'YYYY-MM-DD' (not local midnight), bigint figures and counts as numbers.
  pg.types.setTypeParser(1082, (value: string) => value)
  pg.types.setTypeParser(20, (value: string) => Number(value))
  const pool = new pg.Pool({ connectionString: url, max: 10, options: '-c statement_timeout=10000' })
  const texts = new Map<string, string>()
  const textOf = (s: Stmt) => {
    let text = texts.get(s.name)
    if (text === undefined) {
      let n = 0
      texts.set(s.name, (text = s.pg!.replace(/\?/g, () => `$${++n}`)))
    }
    return text
  }
  const run = async (client: pg.Pool | pg.PoolClient, op: Op) => {
    if (op.stmt.pg === null) return undefined
    const result = await client.query({ name: op.stmt.name, text: textOf(op.stmt), values: op.params })
    return op.mode === 'all' ? result.rows : op.mode === 'get' ? result.rows[0] : undefined
  }
  const drive = async <T>(client: pg.Pool | pg.PoolClient, work: Work<T>): Promise<T> => {
    let step = work.next()
    while (!step.done) step = work.next(await run(client, step.value))
    return step.value
  }
  return {
    isPg: true,
    read: async (make) => {
      const client = await pool.connect()
      try {
        return await drive(client, make())
      } finally {
        client.release()
      }
    },
    write: async (make) => {
      const client = await pool.connect()
      try {
        await client.query('BEGIN')
        const result = await drive(client, make())
        await client.query('COMMIT')
        return result
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined)
        throw error
      } finally {
        client.release()
      }
    },
    close: () => pool.end()
  }
}

const databaseUrl = process.env.DATABASE_URL!
const db: Driver = databaseUrl.startsWith('postgres')
  ? pgDriver(databaseUrl)
  : sqliteDriver(databaseUrl.replace(/^sqlite:\/\//, ''))

// ---------------------------------------------------------------------------------------------
// Values and calendar
// ---------------------------------------------------------------------------------------------

const iso = (value: unknown) =>
  value === null || value === undefined
    ? null
    : value instanceof Date
      ? value.toISOString()
      : typeof value === 'string' && value.length === 24 && value.endsWith('Z')
        ? value
        : new Date(value as string).toISOString()
const millis = (value: unknown) => (value instanceof Date ? value.getTime() : Date.parse(value as string))
const json = (value: unknown) =>
  value === null || value === undefined ? null : typeof value === 'string' ? JSON.parse(value) : value
const num = (value: unknown) => (value === null || value === undefined ? null : Number(value))
const MINUTE = 60_000
/** Minutes rounded to 2 decimals (CONTRACT §4). */
const minutes = (ms: unknown) =>
  ms === null || ms === undefined ? null : Math.round((Number(ms) / MINUTE + Number.EPSILON) * 100) / 100
const dayText = (value: unknown) =>
  value === null || value === undefined
    ? null
    : value instanceof Date
      ? value.toISOString().slice(0, 10)
      : String(value).slice(0, 10)

const dayFormats = new Map<string, Intl.DateTimeFormat>()
/** The calendar day of an instant in a timezone. */
function calendarDay(ms: number, zone: string): string {
  let format = dayFormats.get(zone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' })
    dayFormats.set(zone, format)
  }
  return format.format(ms)
}
const offsetFormats = new Map<string, Intl.DateTimeFormat>()
/** The zone's offset from UTC at an instant, ms. */
function offsetAt(ms: number, zone: string): number {
  let format = offsetFormats.get(zone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric'
    })
    offsetFormats.set(zone, format)
  }
  const p = Object.fromEntries(format.formatToParts(ms).map((part) => [part.type, part.value]))
  const local = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second)
  return local - Math.floor(ms / 1000) * 1000
}
const midnights = new Map<string, number>()
/** The instant a calendar day starts in a zone. */
function startOfDay(day: string, zone: string): number {
  const key = `${zone} ${day}`
  let at = midnights.get(key)
  if (at === undefined) {
    const utc = Date.parse(`${day}T00:00:00Z`)
    at = utc - offsetAt(utc, zone)
    at = utc - offsetAt(at, zone)
    if (midnights.size > 10_000) midnights.clear()
    midnights.set(key, at)
  }
  return at
}
const addDays = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * 86400_000).toISOString().slice(0, 10)
const dayBounds = (day: string, zone: string) => ({
  start: startOfDay(day, zone),
  end: startOfDay(addDays(day, 1), zone)
})
const weekdayIndex = (day: string) => (new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7
const weekStartOf = (day: string) => addDays(day, -weekdayIndex(day))
const monthOf = (day: string) => `${day.slice(0, 8)}01`
const daysInMonth = (month: string) => new Date(Date.UTC(+month.slice(0, 4), +month.slice(5, 7), 0)).getUTCDate()
const lastDayOfMonth = (month: string) => `${month.slice(0, 8)}${String(daysInMonth(month)).padStart(2, '0')}`
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']
const SHORT_WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']

/** Timestamps in bodies and filters: ISO 8601 with Z or an offset, 1970..2100 (CONTRACT §3, §10.3). */
const ISO_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,9})?)?(Z|[+-]\d\d:?\d\d)$/
const LAST_INSTANT = Date.parse('2100-01-01T00:00:00Z')
function timestamp(field: string, value: unknown): number {
  if (typeof value !== 'string' || !ISO_TIMESTAMP.test(value)) throw badRequest(field, 'must be an ISO 8601 date-time')
  const ms = Date.parse(value)
  if (!(ms >= 0 && ms <= LAST_INSTANT)) throw badRequest(field, 'must lie in 1970-01-01T00:00Z..2100-01-01T00:00Z')
  return ms
}
const INT32 = 2 ** 31 - 1
function integer(field: string, value: unknown, min = 1): number {
  const n = typeof value === 'string' && /^-?\d{1,10}$/.test(value) ? Number(value) : value
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > INT32)
    throw badRequest(field, 'must be an integer')
  return n
}
function text(field: string, value: unknown, max = 255): string | null {
  if (value === null || value === undefined) return null
  if (typeof value !== 'string') throw badRequest(field, 'must be a string')
  if (value.length > max) throw badRequest(field, `must be at most ${max} characters`)
  return value
}
function onlyFields(body: Row, allowed: Set<string>, resource: string) {
  const unknown = Object.keys(body).filter((key) => !allowed.has(key))
  if (unknown.length)
    throw new HttpError(400, 'BadRequest', `Invalid body: ${unknown.join(', ')}`, {
      validationErrors: Object.fromEntries(unknown.map((key) => [key, `is not a field of ${resource}`]))
    })
}

// ---------------------------------------------------------------------------------------------
// Authentication, rate limit and usage (CONTRACT §2, §8, §10)
// ---------------------------------------------------------------------------------------------

interface Principal {
  apiKeyId: number
  companyId: number
  userId: number
  timezone: string
  scopes: string[]
}

const SQL_KEY = stmt(
  'auth_key',
  'select k.id, k.company_id, k.user_id, k.key_hash, k.scopes, c.timezone from api_keys k ' +
    'join users u on u.id = k.user_id and u.company_id = k.company_id ' +
    'join companies c on c.id = k.company_id ' +
    'where k.key_hash = ? and k.revoked_at is null and u.deactivated_at is null'
)
const KEY_PATTERN = /^Bearer\s+(ck_[A-Za-z0-9_-]{43})\s*$/i
const unauthenticated = () => new HttpError(401, 'NotAuthenticated', 'Invalid API key')

async function authenticate(header: string | undefined): Promise<Principal> {
  const match = KEY_PATTERN.exec(header ?? '')
  if (!match) throw unauthenticated()
  const hash = crypto.createHash('sha256').update(match[1]).digest('hex')
  const row = await db.read(() => get(SQL_KEY, [hash]))
  if (!row || !crypto.timingSafeEqual(Buffer.from(String(row.key_hash), 'hex'), Buffer.from(hash, 'hex')))
    throw unauthenticated()
  return {
    apiKeyId: Number(row.id),
    companyId: Number(row.company_id),
    userId: Number(row.user_id),
    timezone: row.timezone,
    scopes: (json(row.scopes) as string[] | null) ?? ['*:write']
  }
}

/** `<collection>:read|write`, `*` for any collection; write implies read (CONTRACT §10.1). */
function requireScope(principal: Principal, collection: string, access: 'read' | 'write') {
  const ok = principal.scopes.some((scope) => {
    const [on, level] = scope.split(':')
    return (on === '*' || on === collection) && (level === 'write' || level === access)
  })
  if (!ok) throw new HttpError(403, 'Forbidden', `The API key lacks the scope ${collection}:${access}`)
}

const RATE_LIMIT_PER_KEY = Number(process.env.RATE_LIMIT_PER_KEY ?? 6000)
const windows = new Map<number, { resetAt: number; count: number }>()
/** Fixed one-minute window per key; the headers of every /v1 response (CONTRACT §10.2). */
function rateLimit(apiKeyId: number, now: number): Record<string, string> {
  let window = windows.get(apiKeyId)
  if (!window || window.resetAt <= now) windows.set(apiKeyId, (window = { resetAt: now + 60_000, count: 0 }))
  window.count++
  const reset = String(Math.ceil((window.resetAt - now) / 1000))
  if (window.count > RATE_LIMIT_PER_KEY)
    throw Object.assign(new HttpError(429, 'TooManyRequests', 'Too many requests'), { retryAfter: reset })
  return {
    'ratelimit-limit': String(RATE_LIMIT_PER_KEY),
    'ratelimit-remaining': String(Math.max(0, RATE_LIMIT_PER_KEY - window.count)),
    'ratelimit-reset': reset
  }
}

/** Requests per key and major version with the last use (CONTRACT §8), written every 5 s. */
const usage = new Map<number, { companyId: number; count: number; lastUsedAt: string }>()
const SQL_USAGE = stmt(
  'usage_upsert',
  'insert into api_usage (company_id, api_key_id, version, request_count, last_used_at) values (?, ?, ?, ?, ?) ' +
    'on conflict (company_id, api_key_id, version) do update set request_count = api_usage.request_count + excluded.request_count, ' +
    'last_used_at = excluded.last_used_at'
)
function countUsage(principal: Principal) {
  const entry = usage.get(principal.apiKeyId)
  if (entry) {
    entry.count++
    entry.lastUsedAt = new Date().toISOString()
  } else
    usage.set(principal.apiKeyId, { companyId: principal.companyId, count: 1, lastUsedAt: new Date().toISOString() })
}
async function flushUsage() {
  if (usage.size === 0) return
  const entries = [...usage]
  usage.clear()
  await db.write(function* () {
    for (const [apiKeyId, { companyId, count, lastUsedAt }] of entries)
      yield* exec(SQL_USAGE, [companyId, apiKeyId, 'v1', count, lastUsedAt])
  })
}

// ---------------------------------------------------------------------------------------------
// Records as REST answers them
// ---------------------------------------------------------------------------------------------

const ADDRESS_KEYS = [
  'supplement',
  'street',
  'clarification',
  'zip',
  'city',
  'state',
  'country',
  'externalId',
  'latitude',
  'longitude'
]
const address = (value: unknown) => {
  const stored = json(value) as Row | null
  return stored && Object.fromEntries(ADDRESS_KEYS.map((key) => [key, stored[key] ?? null]))
}

const assignment = (r: Row) => ({
  id: r.id,
  number: r.number,
  name: r.name,
  comment: r.comment,
  notesBackOffice: r.notes_back_office,
  color: r.color,
  address: address(r.address),
  customerId: r.customer_id,
  projectId: r.project_id,
  typeId: r.type_id,
  responsibleUserId: r.responsible_user_id,
  statusId: r.status_id,
  externalId: r.external_id,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at)
})

const customer = (r: Row) => ({
  id: r.id,
  number: r.number,
  companyName: r.company_name,
  externalId: r.external_id,
  title: r.title,
  salutation: r.salutation,
  firstName: r.first_name,
  surname: r.surname,
  telephones: json(r.telephones),
  emails: json(r.emails),
  urls: json(r.urls),
  billingAddress: address(r.billing_address),
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at)
})

const timeEntry = (r: Row, pauses: Row[] = []) => ({
  id: r.id,
  typeId: r.type_id,
  startsAt: iso(r.starts_at),
  endsAt: iso(r.ends_at),
  duration: minutes(r.worked_ms),
  pausedAt: iso(r.paused_at),
  pauses: pauses.map((p) => ({ startsAt: iso(p.starts_at), endsAt: iso(p.ends_at) })),
  note: r.note,
  userId: r.user_id,
  assignmentId: r.assignment_id,
  eventId: r.event_id,
  eventTypeId: r.event_type_id,
  startLatitude: num(r.start_latitude),
  startLongitude: num(r.start_longitude),
  startTrackingError: r.start_tracking_error,
  endLatitude: num(r.end_latitude),
  endLongitude: num(r.end_longitude),
  endTrackingError: r.end_tracking_error,
  externalId: r.external_id,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at)
})

const PERIOD_COUNTS = [
  ['hasMultipleDayTimeEntryCount', 'has_multiple_day_time_entry_count'],
  ['recomputableCount', 'recomputable_count'],
  ['hasOpenTimeEntryCount', 'has_open_time_entry_count']
]
const periodCounts = (r: Row) => Object.fromEntries(PERIOD_COUNTS.map(([api, column]) => [api, Number(r[column])]))

const sheetDay = (r: Row) => ({
  id: r.id,
  userId: r.user_id,
  day: dayText(r.day),
  status: r.status,
  note: r.note,
  declinedNote: r.declined_note,
  startsAt: iso(r.starts_at),
  endsAt: iso(r.ends_at),
  breakTime: minutes(r.break_time_ms),
  duration: minutes(r.duration_ms),
  expectedDuration: minutes(r.expected_duration_ms),
  breakTimeErrorType: r.break_time_error_type,
  breakTimeErrorExpected: minutes(r.break_time_error_expected_ms),
  breakTimeErrorValue: minutes(r.break_time_error_value_ms),
  breakTimeErrorDurationMin: minutes(r.break_time_error_duration_min_ms),
  durationErrorExpected: minutes(r.duration_error_expected_ms),
  durationErrorValue: minutes(r.duration_error_value_ms),
  submittedAt: iso(r.submitted_at),
  submittedFirstAt: iso(r.submitted_first_at),
  approvedAt: iso(r.approved_at),
  approvedById: r.approved_by_id,
  declinedAt: iso(r.declined_at),
  declinedById: r.declined_by_id,
  manipulatedAt: iso(r.manipulated_at),
  manipulatedById: r.manipulated_by_id,
  externalId: r.external_id,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at)
})

const week = (r: Row) => ({
  id: r.id,
  userId: r.user_id,
  weekStart: dayText(r.week_start),
  status: r.status,
  submittedCount: Number(r.submitted_count),
  approvedCount: Number(r.approved_count),
  declinedCount: Number(r.declined_count),
  submittedAt: iso(r.submitted_at),
  approvedAt: iso(r.approved_at),
  declinedAt: iso(r.declined_at),
  sumActual: minutes(r.sum_actual_ms),
  sumTarget: minutes(r.sum_target_ms),
  ...periodCounts(r),
  openTimeEntryEarliestDay: dayText(r.open_time_entry_earliest_day),
  computedAt: iso(r.computed_at),
  externalId: r.external_id,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at)
})

/** actual − target over the month's days up to today (CONTRACT §7.6). */
function currentDifferenceMs(month: string, daily: [number, number][], today: string) {
  let sum = 0
  daily.forEach(([actual, target], index) => {
    if (`${month.slice(0, 8)}${String(index + 1).padStart(2, '0')}` <= today) sum += actual - target
  })
  return sum
}

const month = (r: Row, timezone: string) => {
  const locked = r.locked_at !== null && r.locked_at !== undefined
  const monthDay = dayText(r.month)!
  return {
    id: r.id,
    userId: r.user_id,
    month: monthDay,
    status: r.status,
    note: r.note,
    declinedNote: r.declined_note,
    submittedCount: Number(r.submitted_count),
    approvedCount: Number(r.approved_count),
    declinedCount: Number(r.declined_count),
    submittedAt: iso(r.submitted_at),
    submittedFirstAt: iso(r.submitted_first_at),
    approvedAt: iso(r.approved_at),
    declinedAt: iso(r.declined_at),
    sumActual: minutes(locked ? r.sum_actual_locked_ms : r.sum_actual_computed_ms),
    sumTarget: minutes(locked ? r.sum_target_locked_ms : r.sum_target_computed_ms),
    sumActualComputed: minutes(r.sum_actual_computed_ms),
    sumTargetComputed: minutes(r.sum_target_computed_ms),
    carryIn: minutes(r.carry_in_ms),
    carryInComputed: minutes(r.carry_in_computed_ms),
    carryOut: minutes(r.carry_out_ms),
    carryOutComputed: minutes(r.carry_out_computed_ms),
    carryOutForfeited: minutes(r.carry_out_forfeited_ms),
    carryInCorrectionType: r.carry_in_correction_type,
    carryOutCorrectionType: r.carry_out_correction_type,
    lockedAt: iso(r.locked_at),
    sumActualLocked: minutes(r.sum_actual_locked_ms),
    sumTargetLocked: minutes(r.sum_target_locked_ms),
    carryInLocked: minutes(r.carry_in_locked_ms),
    carryOutLocked: minutes(r.carry_out_locked_ms),
    currentDifference: minutes(
      currentDifferenceMs(
        monthDay,
        (json(r.daily_figures) as [number, number][]) ?? [],
        calendarDay(Date.now(), timezone)
      )
    ),
    ...periodCounts(r),
    openTimeEntryEarliestDay: dayText(r.open_time_entry_earliest_day),
    computedAt: iso(r.computed_at),
    externalId: r.external_id,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at)
  }
}

// ---------------------------------------------------------------------------------------------
// The event log (CONTRACT §13.1): one row per record created or changed, in the write's transaction
// ---------------------------------------------------------------------------------------------

interface NewEvent {
  type: string
  data: object
}
const eventInserts = new Map<number, Stmt>()
/** One multi-row insert; on PostgreSQL it first takes the company's log lock shared (src/events/event-log.ts). */
function eventInsert(count: number): Stmt {
  let s = eventInserts.get(count)
  if (!s) {
    const values = Array.from({ length: count }, () => '(?, ?, ?, ?, ?, ?, ?)').join(', ')
    const pgValues = Array.from({ length: count }, () => '(?::integer, ?::timestamptz, ?, ?, ?, ?, ?)').join(', ')
    const columns = 'company_id, occurred_at, type, scope, data, actor, request_id'
    s = stmt(
      `event_insert_${count}`,
      `insert into event_log (${columns}) values ${values}`,
      `with appending as materialized (select pg_advisory_xact_lock_shared(${0x63636c67}, ?::integer)) ` +
        `insert into event_log (${columns}) select v.* from (values ${pgValues}) as v(${columns}) cross join appending returning id`
    )
    eventInserts.set(count, s)
  }
  return s
}

function* appendEvents(principal: Principal, requestId: string, events: NewEvent[]): Work<void> {
  if (events.length === 0) return
  const now = new Date().toISOString()
  const actor = JSON.stringify({ apiKeyId: principal.apiKeyId })
  const values = events.flatMap((e) => [
    principal.companyId,
    now,
    e.type,
    e.type.slice(0, e.type.lastIndexOf('.')),
    JSON.stringify(e.data),
    actor,
    requestId
  ])
  const s = eventInsert(events.length)
  if (!db.isPg) return yield* exec(s, values)
  yield* all(s, [principal.companyId, ...values])
}

// ---------------------------------------------------------------------------------------------
// Lists (CONTRACT §3.1)
// ---------------------------------------------------------------------------------------------

interface Paging {
  page: number
  size: number
}
function paging(query: URLSearchParams): Paging {
  const page = query.has('page') ? integer('page', query.get('page'), 0) : 0
  const size = query.has('size') ? integer('size', query.get('size'), 1) : 10
  if (size > 20) throw badRequest('size', 'must be 1..20')
  return { page, size }
}
function onlyParams(query: URLSearchParams, allowed: Set<string>) {
  for (const key of query.keys())
    if (!allowed.has(key))
      throw badRequest(key, 'is not a query parameter of this list (unknown, or not served by the platform)')
}
function* list(
  page: Stmt,
  count: Stmt,
  params: unknown[],
  { page: n, size }: Paging,
  decode: (r: Row) => object
): Work<object> {
  const rows = yield* all(page, [...params, size, n * size])
  const total = Number((yield* get(count, params))!.total)
  return { page: n, pages: Math.ceil(total / size), size, total, items: rows.map(decode) }
}

const SQL = {
  assignment: stmt('assignment_get', 'select * from assignments where company_id = ? and id = ?'),
  byResponsible: stmt(
    'assignments_by_responsible',
    'select * from assignments where company_id = ? and responsible_user_id = ? order by id limit ? offset ?'
  ),
  byResponsibleCount: stmt(
    'assignments_by_responsible_count',
    'select count(*) as total from assignments where company_id = ? and responsible_user_id = ?'
  ),
  // `$like` through the trigram index: FTS5's trigram table on SQLite, pg_trgm (ILIKE) on PostgreSQL.
  // `$like` through the trigram index: on SQLite a phrase query of FTS5's trigram table (each
  // literal of the pattern, case-folded), the pattern rechecked on the row; pg_trgm (ILIKE) on PostgreSQL.
  byName: stmt(
    'assignments_by_name',
    'select * from assignments where company_id = ? and id in (select rowid from assignments_name_fts where assignments_name_fts match ?) ' +
      "and name like ? escape '\\' order by id limit ? offset ?",
    'select * from assignments where company_id = ? and cast(? as text) is not null and name ilike ? order by id limit ? offset ?'
  ),
  byNameCount: stmt(
    'assignments_by_name_count',
    'select count(*) as total from assignments where company_id = ? and id in (select rowid from assignments_name_fts where assignments_name_fts match ?) ' +
      "and name like ? escape '\\'",
    'select count(*) as total from assignments where company_id = ? and cast(? as text) is not null and name ilike ?'
  ),
  // Patterns the trigram table cannot serve (a literal shorter than 3 characters, an escape).
  byNameScan: stmt(
    'assignments_by_name_scan',
    "select * from assignments where company_id = ? and name like ? escape '\\' order by id limit ? offset ?",
    'select * from assignments where company_id = ? and name ilike ? order by id limit ? offset ?'
  ),
  byNameScanCount: stmt(
    'assignments_by_name_scan_count',
    "select count(*) as total from assignments where company_id = ? and name like ? escape '\\'",
    'select count(*) as total from assignments where company_id = ? and name ilike ?'
  ),
  entriesOfUser: stmt(
    'time_entries_by_user_range',
    'select * from time_entries where company_id = ? and user_id = ? and starts_at >= ? and starts_at < ? order by id limit ? offset ?'
  ),
  entriesOfUserCount: stmt(
    'time_entries_by_user_range_count',
    'select count(*) as total from time_entries where company_id = ? and user_id = ? and starts_at >= ? and starts_at < ?'
  ),
  pausesOf: stmt(
    'time_entry_pauses_of',
    'select time_entry_id, starts_at, ends_at from time_entry_pauses where company_id = ? and time_entry_id = ? order by starts_at'
  )
}

/** `$like` syntax (CONTRACT §3.1, §10.3): a backslash escapes `%`, `_` and itself; a lone trailing one is a 400. */
function likePattern(field: string, pattern: string) {
  if (/(^|[^\\])(\\\\)*\\$/.test(pattern)) throw badRequest(field, 'ends in a lone backslash')
  return pattern
}

function* listAssignments(principal: Principal, query: URLSearchParams): Work<object> {
  onlyParams(query, new Set(['page', 'size', 'responsibleUserId', 'name[$like]']))
  const paged = paging(query)
  const like = query.get('name[$like]')
  if (like !== null) {
    const pattern = likePattern('name[$like]', like)
    const literals = pattern.split(/[%_]/).filter(Boolean)
    const indexed =
      !pattern.includes('\\') && !pattern.includes('_') && literals.length > 0 && literals.every((l) => l.length >= 3)
    const phrases = literals.map((l) => `"${l.replace(/"/g, '""')}"`).join(' AND ')
    return yield* indexed
      ? list(SQL.byName, SQL.byNameCount, [principal.companyId, phrases, pattern], paged, assignment)
      : list(SQL.byNameScan, SQL.byNameScanCount, [principal.companyId, pattern], paged, assignment)
  }
  const user = integer('responsibleUserId', query.get('responsibleUserId'))
  return yield* list(SQL.byResponsible, SQL.byResponsibleCount, [principal.companyId, user], paged, assignment)
}

function* listTimeEntries(principal: Principal, query: URLSearchParams): Work<object> {
  onlyParams(query, new Set(['page', 'size', 'userId', 'startsAt[$gte]', 'startsAt[$lt]']))
  const paged = paging(query)
  const userId = integer('userId', query.get('userId'))
  const from = new Date(timestamp('startsAt[$gte]', query.get('startsAt[$gte]'))).toISOString()
  const to = new Date(timestamp('startsAt[$lt]', query.get('startsAt[$lt]'))).toISOString()
  const page = (yield* list(
    SQL.entriesOfUser,
    SQL.entriesOfUserCount,
    [principal.companyId, userId, from, to],
    paged,
    (r) => r
  )) as { items: Row[] }
  // Closed pauses are rows of their own; an entry's are read only when it has had a pause.
  const items = []
  for (const r of page.items)
    items.push(
      timeEntry(
        r,
        r.worked_ms !== null && millis(r.ends_at) - millis(r.starts_at) !== Number(r.worked_ms)
          ? yield* all(SQL.pausesOf, [principal.companyId, r.id])
          : []
      )
    )
  return { ...page, items }
}

// ---------------------------------------------------------------------------------------------
// Time sheets: schedules, day figures, weeks, months, the carry chain (CONTRACT §7, §11)
// ---------------------------------------------------------------------------------------------

const SHEETS = {
  user: stmt(
    'sheet_user',
    'select id, deactivated_at, employed_from, opening_balance from users where company_id = ? and id = ?'
  ),
  lockUser: pgOnly('sheet_lock_user', 'select id from users where company_id = ? and id = ? for no key update'),
  companyVersion: stmt(
    'sheet_company_version',
    'select valid_from, target_minutes, break_rules, max_daily_minutes, carry_over_cap_minutes from company_working_times ' +
      'where company_id = ? and valid_from <= ? order by valid_from desc limit 1'
  ),
  firstCompanyVersion: stmt(
    'sheet_company_first_version',
    'select valid_from, target_minutes, break_rules, max_daily_minutes, carry_over_cap_minutes from company_working_times ' +
      'where company_id = ? order by valid_from limit 1'
  ),
  userVersion: stmt(
    'sheet_user_version',
    'select targets from user_working_times where company_id = ? and user_id = ? and valid_from <= ? order by valid_from desc limit 1'
  ),
  absences: stmt(
    'sheet_absences',
    'select a.starts_at, a.ends_at, a.compensation_declined_at, t.is_absence_hourly, t.count_as_working_time, t.need_compensation ' +
      "from user_absences a join user_absence_types t on t.id = a.type_id where a.company_id = ? and a.user_id = ? and a.status = 'approved' " +
      'and a.starts_at < ? and a.ends_at > ?'
  ),
  entriesBetween: stmt(
    'sheet_entries_between',
    'select starts_at, ends_at, worked_ms from time_entries where company_id = ? and user_id = ? and starts_at >= ? and starts_at < ?'
  ),
  dayRow: stmt('sheet_day_row', 'select * from time_sheet_days where company_id = ? and user_id = ? and day = ?'),
  dayRows: stmt(
    'sheet_day_rows',
    'select * from time_sheet_days where company_id = ? and user_id = ? and day >= ? and day <= ? order by day'
  ),
  updateDayFigures: stmt(
    'sheet_day_update_figures',
    'update time_sheet_days set starts_at = ?, ends_at = ?, break_time_ms = ?, duration_ms = ?, expected_duration_ms = ?, ' +
      'break_time_error_type = ?, break_time_error_expected_ms = ?, break_time_error_value_ms = ?, break_time_error_duration_min_ms = ?, ' +
      'duration_error_expected_ms = ?, duration_error_value_ms = ?, updated_at = ? where company_id = ? and id = ? returning *'
  ),
  insertDay: stmt(
    'sheet_day_insert',
    'insert into time_sheet_days (company_id, user_id, day, status, starts_at, ends_at, break_time_ms, duration_ms, expected_duration_ms, ' +
      'break_time_error_type, break_time_error_expected_ms, break_time_error_value_ms, break_time_error_duration_min_ms, ' +
      "duration_error_expected_ms, duration_error_value_ms, created_at, updated_at) values (?, ?, ?, 'draft', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning *"
  ),
  weekRow: stmt(
    'sheet_week_row',
    'select * from time_sheet_weeks where company_id = ? and user_id = ? and week_start = ?'
  ),
  weekById: stmt('sheet_week_by_id', 'select * from time_sheet_weeks where company_id = ? and id = ?'),
  updateWeekFigures: stmt(
    'sheet_week_update_figures',
    'update time_sheet_weeks set sum_actual_ms = ?, sum_target_ms = ?, has_multiple_day_time_entry_count = ?, has_open_time_entry_count = ?, ' +
      'open_time_entry_earliest_day = ?, computed_at = ?, updated_at = ? where company_id = ? and id = ? returning *'
  ),
  monthChain: stmt(
    'sheet_month_chain',
    'select * from time_sheet_months where company_id = ? and user_id = ? and month >= ? order by month'
  ),
  previousMonth: stmt(
    'sheet_previous_month',
    'select month, carry_out_ms from time_sheet_months where company_id = ? and user_id = ? and month < ? order by month desc limit 1'
  ),
  updateMonth: stmt(
    'sheet_month_update',
    'update time_sheet_months set sum_actual_computed_ms = ?, sum_target_computed_ms = ?, daily_figures = ?, ' +
      'has_multiple_day_time_entry_count = ?, has_open_time_entry_count = ?, open_time_entry_earliest_day = ?, ' +
      'carry_in_computed_ms = ?, carry_in_ms = ?, carry_out_computed_ms = ?, carry_out_ms = ?, carry_out_forfeited_ms = ?, ' +
      'carry_in_correction_type = ?, carry_out_correction_type = ?, computed_at = ?, updated_at = ? where company_id = ? and id = ? returning *'
  )
}

interface Model {
  targets: number[]
  breakRules: { afterMinutes: number; minBreakMinutes: number }[]
  maxDailyMinutes: number
  capMinutes: number | null
}

interface Account {
  employedFrom: string
  openingBalanceMs: number
}

/** The model in effect on `day`: the user's latest targets, else the company's version (CONTRACT §11.2). */
function* modelOn(companyId: number, userId: number, account: Account, day: string): Work<Model> {
  const version =
    (yield* get(SHEETS.companyVersion, [companyId, day])) ?? (yield* get(SHEETS.firstCompanyVersion, [companyId]))!
  const own = yield* get(SHEETS.userVersion, [companyId, userId, day])
  const company = json(version.target_minutes) as Record<string, number>
  const targets =
    day < account.employedFrom
      ? [0, 0, 0, 0, 0, 0, 0]
      : own
        ? SHORT_WEEKDAYS.map((d) => Number((json(own.targets) as Row)[d]))
        : WEEKDAYS.map((d) => Number(company[d]))
  return {
    targets,
    breakRules: json(version.break_rules) as Model['breakRules'],
    maxDailyMinutes: Number(version.max_daily_minutes),
    capMinutes: num(version.carry_over_cap_minutes)
  }
}

interface Entry {
  startsAt: number
  endsAt: number | null
  workedMs: number | null
}

/** A calendar day's figures (CONTRACT §7.4, §11.5) and the flags its week and month count. */
interface DayFigures {
  startsAt: number | null
  endsAt: number | null
  breakTimeMs: number | null
  durationMs: number
  expectedDurationMs: number
  breakTimeErrorType: string | null
  breakTimeErrorExpectedMs: number | null
  breakTimeErrorValueMs: number | null
  breakTimeErrorDurationMinMs: number | null
  durationErrorExpectedMs: number | null
  durationErrorValueMs: number | null
  open: boolean
  multiDay: boolean
}

function figuresOf(
  day: string,
  zone: string,
  entries: Entry[],
  absences: Row[],
  model: Model,
  overrides: Row | undefined
): DayFigures {
  const { start, end } = dayBounds(day, zone)
  let worked = 0
  let first: number | null = null
  let lastEnd: number | null = null
  let runningStart: number | null = null
  let multiDay = false
  for (const e of entries) {
    if (first === null || e.startsAt < first) first = e.startsAt
    if (e.endsAt === null) runningStart = runningStart === null ? e.startsAt : Math.min(runningStart, e.startsAt)
    else {
      worked += e.workedMs ?? 0
      if (lastEnd === null || e.endsAt > lastEnd) lastEnd = e.endsAt
      if (e.endsAt > end) multiDay = true
    }
  }
  // Absences: a daily type acts on the whole target, an hourly one by the minutes it covers.
  const targetMs = model.targets[weekdayIndex(day)] * MINUTE
  let reduced = 0
  let credit = 0
  for (const a of absences) {
    const covered = Math.min(millis(a.ends_at), end) - Math.max(millis(a.starts_at), start)
    if (covered <= 0) continue
    const effect = a.is_absence_hourly ? Math.min(covered, targetMs) : targetMs
    if (a.count_as_working_time) credit += effect
    else if (!a.need_compensation || a.compensation_declined_at) reduced += effect
  }
  const expectedDurationMs = Math.max(0, targetMs - reduced)
  const creditedMs = Math.min(credit, expectedDurationMs)
  const endsAt = runningStart === null ? lastEnd : null
  const breakEnd = runningStart ?? endsAt
  const computedBreak = first !== null && breakEnd !== null ? Math.max(0, breakEnd - first - worked) : null
  const durationMs = num(overrides?.manual_duration_ms) ?? worked + creditedMs
  const breakTimeMs = num(overrides?.manual_break_time_ms) ?? computedBreak
  const workMs = Math.max(0, durationMs - creditedMs)
  let rule: Model['breakRules'][number] | null = null
  for (const r of model.breakRules)
    if (workMs / MINUTE > r.afterMinutes && (!rule || r.afterMinutes > rule.afterMinutes)) rule = r
  const breakMs = breakTimeMs ?? 0
  const breakShort = rule !== null && breakMs < rule.minBreakMinutes * MINUTE
  const tooLong = workMs > model.maxDailyMinutes * MINUTE
  return {
    startsAt: overrides?.manual_starts_at ? millis(overrides.manual_starts_at) : first,
    endsAt: overrides?.manual_ends_at ? millis(overrides.manual_ends_at) : endsAt,
    breakTimeMs,
    durationMs,
    expectedDurationMs,
    breakTimeErrorType: breakShort ? (breakMs > 0 ? 'tooShort' : 'missing') : null,
    breakTimeErrorExpectedMs: breakShort ? rule!.minBreakMinutes * MINUTE : null,
    breakTimeErrorValueMs: breakShort ? breakMs : null,
    breakTimeErrorDurationMinMs: breakShort ? rule!.afterMinutes * MINUTE : null,
    durationErrorExpectedMs: tooLong ? model.maxDailyMinutes * MINUTE : null,
    durationErrorValueMs: tooLong ? workMs : null,
    open: runningStart !== null,
    multiDay
  }
}

const isoOf = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())
const figureValues = (f: DayFigures) => [
  isoOf(f.startsAt),
  isoOf(f.endsAt),
  f.breakTimeMs,
  f.durationMs,
  f.expectedDurationMs,
  f.breakTimeErrorType,
  f.breakTimeErrorExpectedMs,
  f.breakTimeErrorValueMs,
  f.breakTimeErrorDurationMinMs,
  f.durationErrorExpectedMs,
  f.durationErrorValueMs
]
const entriesOf = (rows: Row[]): Entry[] =>
  rows.map((r) => ({
    startsAt: millis(r.starts_at),
    endsAt: r.ends_at === null ? null : millis(r.ends_at),
    workedMs: num(r.worked_ms)
  }))

interface DayChange {
  day: string
  before: DayFigures
  after: DayFigures
}

/** A carry link (CONTRACT §7.6): previous carry-out in, manual values and the cap applied. */
function carryOf(row: Row, carryInComputedMs: number, sumActual: number, sumTarget: number, capMinutes: number | null) {
  const manualIn = num(row.carry_in_manual_ms)
  const manualOut = num(row.carry_out_manual_ms)
  if (row.locked_at) {
    const carryIn = Number(row.carry_in_locked_ms)
    const carryOut = Number(row.carry_out_locked_ms)
    const computedOut = carryIn + Number(row.sum_actual_locked_ms) - Number(row.sum_target_locked_ms)
    const capped = manualOut === null && carryOut < computedOut
    return {
      carryInComputedMs,
      carryIn,
      computedOut,
      carryOut,
      forfeited: capped ? computedOut - carryOut : 0,
      manualIn,
      manualOut,
      capped
    }
  }
  const carryIn = manualIn ?? carryInComputedMs
  const computedOut = carryIn + sumActual - sumTarget
  const capMs = capMinutes === null ? null : capMinutes * MINUTE
  const capped = manualOut === null && capMs !== null && computedOut > capMs
  const carryOut = manualOut ?? (capped ? capMs! : computedOut)
  return {
    carryInComputedMs,
    carryIn,
    computedOut,
    carryOut,
    forfeited: capped ? computedOut - carryOut : 0,
    manualIn,
    manualOut,
    capped
  }
}

/**
 * After days changed figures: each month row of those days gets its daily figures, sums and
 * flags, and the carry chain runs forward from the first of them to the end of the user's months
 * (a locked month keeps its snapshot and ends the chain). Returns the changed month rows.
 */
function* recomputeMonths(companyId: number, userId: number, account: Account, changes: DayChange[]): Work<Row[]> {
  if (changes.length === 0) return []
  const months = [...new Set(changes.map((c) => monthOf(c.day)))].sort()
  const chain = yield* all(SHEETS.monthChain, [companyId, userId, months[0]])
  if (chain.length === 0) return []
  const chainStart = monthOf(account.employedFrom)
  const before = yield* get(SHEETS.previousMonth, [companyId, userId, months[0]])
  let previous: { month: string; carryOut: number } | null = before
    ? { month: dayText(before.month)!, carryOut: Number(before.carry_out_ms) }
    : null
  const changed: Row[] = []
  const now = new Date().toISOString()
  for (const row of chain) {
    const monthDay = dayText(row.month)!
    const own = changes.filter((c) => monthOf(c.day) === monthDay)
    let daily = (json(row.daily_figures) as [number, number][] | null) ?? []
    let multi = Number(row.has_multiple_day_time_entry_count)
    let open = Number(row.has_open_time_entry_count)
    let earliest = dayText(row.open_time_entry_earliest_day)
    if (own.length) {
      daily =
        daily.length === daysInMonth(monthDay)
          ? [...daily]
          : Array.from({ length: daysInMonth(monthDay) }, (_, i) => daily[i] ?? [0, 0])
      for (const c of own) {
        daily[Number(c.day.slice(8, 10)) - 1] = [c.after.durationMs, c.after.expectedDurationMs]
        multi += Number(c.after.multiDay) - Number(c.before.multiDay)
        open += Number(c.after.open) - Number(c.before.open)
        if (c.after.open && (earliest === null || c.day < earliest)) earliest = c.day
        if (!c.after.open && c.before.open && earliest === c.day) earliest = null
      }
    }
    const sumActual = own.length ? daily.reduce((s, d) => s + d[0], 0) : Number(row.sum_actual_computed_ms)
    const sumTarget = own.length ? daily.reduce((s, d) => s + d[1], 0) : Number(row.sum_target_computed_ms)
    const carryInComputed =
      monthDay < chainStart
        ? 0
        : monthDay === chainStart || previous === null || previous.month < chainStart
          ? account.openingBalanceMs
          : previous.carryOut
    // The cap of the version in effect on the month's last day.
    const model = yield* modelOn(companyId, userId, account, lastDayOfMonth(monthDay))
    const c = carryOf(row, carryInComputed, sumActual, sumTarget, model.capMinutes)
    previous = { month: monthDay, carryOut: c.carryOut }
    const values = [
      sumActual,
      sumTarget,
      JSON.stringify(daily),
      multi,
      open,
      open > 0 ? earliest : null,
      c.carryInComputedMs,
      c.carryIn,
      c.computedOut,
      c.carryOut,
      c.forfeited,
      c.manualIn !== null ? 'manual' : null,
      c.manualOut !== null ? 'manual' : c.capped ? 'capped' : null
    ]
    const stored = [
      Number(row.sum_actual_computed_ms),
      Number(row.sum_target_computed_ms),
      JSON.stringify(json(row.daily_figures) ?? []),
      Number(row.has_multiple_day_time_entry_count),
      Number(row.has_open_time_entry_count),
      dayText(row.open_time_entry_earliest_day),
      Number(row.carry_in_computed_ms),
      Number(row.carry_in_ms),
      Number(row.carry_out_computed_ms),
      Number(row.carry_out_ms),
      Number(row.carry_out_forfeited_ms),
      row.carry_in_correction_type,
      row.carry_out_correction_type
    ]
    if (values.some((v, i) => v !== stored[i])) {
      if (row.locked_at && own.length)
        throw conflict(`The time sheet month ${monthDay} of user ${userId} is approved and locked`)
      changed.push((yield* get(SHEETS.updateMonth, [...values, now, now, companyId, row.id]))!)
    } else if (own.length === 0 && months.every((m) => m < monthDay)) {
      // Past the changed months an unchanged carry changes nothing further on.
      break
    }
    if (row.locked_at && months.every((m) => m <= monthDay)) break
  }
  return changed
}

/** The week row of each changed day: sums and flags by the days' differences. */
function* recomputeWeeks(companyId: number, userId: number, changes: DayChange[]): Work<Row[]> {
  const changed: Row[] = []
  const now = new Date().toISOString()
  for (const weekStart of [...new Set(changes.map((c) => weekStartOf(c.day)))]) {
    const row = yield* get(SHEETS.weekRow, [companyId, userId, weekStart])
    if (!row) continue
    let actual = Number(row.sum_actual_ms)
    let target = Number(row.sum_target_ms)
    let multi = Number(row.has_multiple_day_time_entry_count)
    let open = Number(row.has_open_time_entry_count)
    let earliest = dayText(row.open_time_entry_earliest_day)
    for (const c of changes.filter((x) => weekStartOf(x.day) === weekStart)) {
      actual += c.after.durationMs - c.before.durationMs
      target += c.after.expectedDurationMs - c.before.expectedDurationMs
      multi += Number(c.after.multiDay) - Number(c.before.multiDay)
      open += Number(c.after.open) - Number(c.before.open)
      if (c.after.open && (earliest === null || c.day < earliest)) earliest = c.day
      if (!c.after.open && c.before.open && earliest === c.day) earliest = null
    }
    changed.push(
      (yield* get(SHEETS.updateWeekFigures, [
        actual,
        target,
        multi,
        open,
        open > 0 ? earliest : null,
        now,
        now,
        companyId,
        row.id
      ]))!
    )
  }
  return changed
}

// ---------------------------------------------------------------------------------------------
// Writes
// ---------------------------------------------------------------------------------------------

const CUSTOMER_FIELDS = new Set([
  'number',
  'companyName',
  'externalId',
  'title',
  'salutation',
  'firstName',
  'surname',
  'telephones',
  'emails',
  'urls',
  'billingAddress'
])
const ADDRESS_FIELDS = new Set(ADDRESS_KEYS)
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

function contactList(field: string, value: unknown, valueKey: string, check?: (v: string) => boolean) {
  if (value === null || value === undefined) return null
  if (!Array.isArray(value) || value.length > 100) throw badRequest(field, 'must be an array of at most 100 items')
  let defaults = 0
  const items = value.map((item, i) => {
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw badRequest(`${field}.${i}`, 'must be an object')
    onlyFields(item, new Set(['label', 'isDefault', valueKey]), field)
    const v = text(`${field}.${i}.${valueKey}`, item[valueKey])
    if (v === null || (check && !check(v)))
      throw badRequest(`${field}.${i}.${valueKey}`, 'is required and must be valid')
    if (item.isDefault !== undefined && typeof item.isDefault !== 'boolean')
      throw badRequest(`${field}.${i}.isDefault`, 'must be a boolean')
    if (item.isDefault) defaults++
    const out: Row = {}
    if (item.label !== undefined) out.label = text(`${field}.${i}.label`, item.label)
    if (item.isDefault !== undefined) out.isDefault = item.isDefault
    out[valueKey] = v
    return out
  })
  if (defaults > 1) throw badRequest(field, 'at most one item may be isDefault')
  return items
}

function addressOf(field: string, value: unknown) {
  if (value === null || value === undefined) return null
  if (typeof value !== 'object' || Array.isArray(value)) throw badRequest(field, 'must be an object')
  onlyFields(value as Row, ADDRESS_FIELDS, 'Address')
  const out: Row = {}
  for (const [key, v] of Object.entries(value as Row)) {
    if (key === 'latitude' || key === 'longitude') {
      const limit = key === 'latitude' ? 90 : 180
      if (v !== null && (typeof v !== 'number' || Math.abs(v) > limit))
        throw badRequest(`${field}.${key}`, `must be -${limit}..${limit}`)
      out[key] = v
    } else out[key] = text(`${field}.${key}`, v)
  }
  return out
}

const SQL_INSERT_CUSTOMER = stmt(
  'customer_insert',
  'insert into customers (company_id, number, company_name, external_id, title, salutation, first_name, surname, telephones, emails, urls, ' +
    'billing_address, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning *'
)

function createCustomer(principal: Principal, body: Row, requestId: string) {
  onlyFields(body, CUSTOMER_FIELDS, 'Customer')
  const values = {
    number: text('number', body.number),
    companyName: text('companyName', body.companyName),
    externalId: text('externalId', body.externalId),
    title: text('title', body.title),
    salutation: text('salutation', body.salutation),
    firstName: text('firstName', body.firstName),
    surname: text('surname', body.surname)
  }
  if (values.companyName === null && values.surname === null)
    throw badRequest('companyName', 'companyName or surname is required')
  const telephones = contactList('telephones', body.telephones, 'telephoneNumber')
  const emails = contactList('emails', body.emails, 'emailAddress', (v) => EMAIL.test(v))
  const urls = contactList('urls', body.urls, 'url')
  const billing = addressOf('billingAddress', body.billingAddress)
  const document = (v: unknown) => (v === null ? null : JSON.stringify(v))
  return db.write(function* () {
    const now = new Date().toISOString()
    const row = (yield* get(SQL_INSERT_CUSTOMER, [
      principal.companyId,
      ...Object.values(values),
      document(telephones),
      document(emails),
      document(urls),
      document(billing),
      now,
      now
    ]))!
    const created = customer(row)
    yield* appendEvents(principal, requestId, [{ type: 'customers.created', data: created }])
    return created
  })
}

const TIME_ENTRY_FIELDS = new Set([
  'userId',
  'typeId',
  'assignmentId',
  'eventId',
  'startsAt',
  'endsAt',
  'note',
  'startLatitude',
  'startLongitude',
  'startTrackingError',
  'endLatitude',
  'endLongitude',
  'endTrackingError',
  'externalId'
])
const ENTRY = {
  type: stmt(
    'entry_type',
    'select id, is_unassigned, event_type_id, deactivated_at from time_entry_types where company_id = ? and id = ?'
  ),
  event: stmt(
    'entry_event',
    'select id, assignment_id, type_id from assignment_events where company_id = ? and id = ?'
  ),
  assignment: stmt('entry_assignment', 'select id from assignments where company_id = ? and id = ?'),
  // Entries span at most 24 h and a user has at most one running entry: two index look-ups.
  overlapping: stmt(
    'entry_overlapping',
    'select id from time_entries where company_id = ? and user_id = ? and starts_at > ? and starts_at < ? and ends_at > ? limit 1'
  ),
  running: stmt(
    'entry_running',
    'select id, starts_at from time_entries where company_id = ? and user_id = ? and ends_at is null'
  ),
  lockedMonth: stmt(
    'entry_locked_month',
    'select locked_at from time_sheet_months where company_id = ? and user_id = ? and month = ?'
  ),
  insert: stmt(
    'entry_insert',
    'insert into time_entries (company_id, user_id, type_id, assignment_id, event_id, event_type_id, starts_at, ends_at, worked_ms, note, ' +
      'start_latitude, start_longitude, start_tracking_error, end_latitude, end_longitude, end_tracking_error, external_id, created_at, updated_at) ' +
      'values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning *'
  )
}

function createTimeEntry(principal: Principal, body: Row, requestId: string) {
  const { companyId, timezone } = principal
  onlyFields(body, TIME_ENTRY_FIELDS, 'TimeEntry')
  const userId = integer('userId', body.userId)
  const typeId = integer('typeId', body.typeId)
  const eventId = body.eventId === undefined || body.eventId === null ? null : integer('eventId', body.eventId)
  let assignmentId =
    body.assignmentId === undefined || body.assignmentId === null ? null : integer('assignmentId', body.assignmentId)
  const start = timestamp('startsAt', body.startsAt)
  const end = body.endsAt === undefined || body.endsAt === null ? null : timestamp('endsAt', body.endsAt)
  if (end !== null && end < start) throw badRequest('endsAt', 'must not be before startsAt')
  if (end !== null && end - start > 86400_000) throw badRequest('endsAt', 'an entry spans at most 24 hours')
  const note = text('note', body.note, 10_000)
  const coordinate = (field: string, limit: number) => {
    const v = body[field]
    if (v === undefined || v === null) return null
    if (typeof v !== 'number' || Math.abs(v) > limit) throw badRequest(field, `must be -${limit}..${limit}`)
    return v
  }
  const location = [
    coordinate('startLatitude', 90),
    coordinate('startLongitude', 180),
    text('startTrackingError', body.startTrackingError),
    coordinate('endLatitude', 90),
    coordinate('endLongitude', 180),
    text('endTrackingError', body.endTrackingError)
  ]
  const externalId = text('externalId', body.externalId)
  const day = calendarDay(start, timezone)
  return db.write(function* () {
    const user = yield* get(SHEETS.user, [companyId, userId])
    if (!user || user.deactivated_at) throw badRequest('userId', 'no such active user')
    const type = yield* get(ENTRY.type, [companyId, typeId])
    if (!type || type.deactivated_at) throw badRequest('typeId', 'no such active time entry type')
    let eventTypeId: number | null = null
    if (eventId !== null) {
      const event = yield* get(ENTRY.event, [companyId, eventId])
      if (!event) throw badRequest('eventId', 'no such event')
      if (assignmentId !== null && assignmentId !== Number(event.assignment_id))
        throw badRequest('assignmentId', "is not the event's assignment")
      assignmentId = Number(event.assignment_id)
      eventTypeId = Number(event.type_id)
    } else if (assignmentId !== null && !(yield* get(ENTRY.assignment, [companyId, assignmentId])))
      throw badRequest('assignmentId', 'no such assignment')
    if (type.is_unassigned && (assignmentId !== null || eventId !== null))
      throw badRequest('typeId', 'an unassigned type forbids assignmentId and eventId')
    yield* exec(SHEETS.lockUser, [companyId, userId])
    // The day of the entry must not be approved nor its month locked (CONTRACT §7.2).
    const dayRow = yield* get(SHEETS.dayRow, [companyId, userId, day])
    if (dayRow?.status === 'approved')
      throw conflict(`The time sheet of user ${userId} is approved for ${day}`, { days: [day] })
    const monthRow = yield* get(ENTRY.lockedMonth, [companyId, userId, monthOf(day)])
    if (monthRow?.locked_at) throw conflict(`The time sheet month ${monthOf(day)} of user ${userId} is locked`)
    const startIso = new Date(start).toISOString()
    const endIso = end === null ? null : new Date(end).toISOString()
    const overlap = yield* get(ENTRY.overlapping, [
      companyId,
      userId,
      new Date(start - 86400_000).toISOString(),
      endIso ?? '9999',
      startIso
    ])
    const running = yield* get(ENTRY.running, [companyId, userId])
    if (overlap || (running && (end === null || millis(running.starts_at) < end)))
      throw conflict(
        end === null && running
          ? 'The user already has a running time entry'
          : 'The time entry overlaps another one of the user'
      )
    // The day's entries before the insert, for its figures before and after.
    const bounds = dayBounds(day, timezone)
    const entries = entriesOf(
      yield* all(SHEETS.entriesBetween, [
        companyId,
        userId,
        new Date(bounds.start).toISOString(),
        new Date(bounds.end).toISOString()
      ])
    )
    const now = new Date().toISOString()
    const inserted = (yield* get(ENTRY.insert, [
      companyId,
      userId,
      typeId,
      assignmentId,
      eventId,
      eventTypeId,
      startIso,
      endIso,
      end === null ? null : end - start,
      note,
      ...location,
      externalId,
      now,
      now
    ]))!
    const account = {
      employedFrom: dayText(user.employed_from) ?? '1970-01-01',
      openingBalanceMs: Math.round(Number(user.opening_balance ?? 0) * MINUTE)
    }
    const model = yield* modelOn(companyId, userId, account, day)
    const absences = yield* all(SHEETS.absences, [
      companyId,
      userId,
      new Date(bounds.end).toISOString(),
      new Date(bounds.start).toISOString()
    ])
    const change: DayChange = {
      day,
      before: figuresOf(day, timezone, entries, absences, model, dayRow),
      after: figuresOf(
        day,
        timezone,
        [...entries, { startsAt: start, endsAt: end, workedMs: end === null ? null : end - start }],
        absences,
        model,
        dayRow
      )
    }
    const created = timeEntry(inserted)
    const events: NewEvent[] = [{ type: 'time-entries.created', data: created }]
    if (dayRow) {
      const updated = (yield* get(SHEETS.updateDayFigures, [...figureValues(change.after), now, companyId, dayRow.id]))!
      events.push({ type: 'time-sheet-days.patched', data: sheetDay(updated) })
    }
    for (const row of yield* recomputeWeeks(companyId, userId, [change]))
      events.push({ type: 'time-sheet-weeks.patched', data: week(row) })
    for (const row of yield* recomputeMonths(companyId, userId, account, [change]))
      events.push({ type: 'time-sheet-months.patched', data: month(row, timezone) })
    yield* appendEvents(principal, requestId, events)
    return created
  })
}

const STATUSES = ['draft', 'submitted', 'approved', 'declined']
const MOVES: Record<string, string[]> = {
  draft: ['submitted'],
  submitted: ['approved', 'declined', 'draft'],
  declined: ['submitted', 'draft'],
  approved: ['draft']
}
const WEEK = {
  moveDays: stmt(
    'week_move_days',
    'update time_sheet_days set status = ?, submitted_at = case when ? then ? else submitted_at end, ' +
      'submitted_first_at = case when ? then coalesce(submitted_first_at, ?) else submitted_first_at end, ' +
      'approved_at = case when ? then ? when ? then null else approved_at end, approved_by_id = case when ? then ? when ? then null else approved_by_id end, ' +
      'declined_at = case when ? then ? when ? then null else declined_at end, declined_by_id = case when ? then ? when ? then null else declined_by_id end, ' +
      'updated_at = ? where company_id = ? and user_id = ? and day >= ? and day <= ? and status in (?, ?, ?) returning *'
  ),
  // The counts of the days, for the week and its months (a missing day is a draft).
  statusCounts: stmt(
    'week_status_counts',
    "select sum(case when status = 'submitted' then 1 else 0 end) as submitted, sum(case when status = 'approved' then 1 else 0 end) as approved, " +
      "sum(case when status = 'declined' then 1 else 0 end) as declined, sum(case when recomputable then 1 else 0 end) as recomputable, count(*) as days, " +
      "max(submitted_at) as submitted_at, max(approved_at) as approved_at, max(case when status = 'declined' then declined_at end) as declined_at " +
      'from time_sheet_days where company_id = ? and user_id = ? and day >= ? and day <= ?'
  ),
  updateWeek: stmt(
    'week_update_status',
    'update time_sheet_weeks set status = ?, submitted_at = ?, approved_at = ?, declined_at = ?, submitted_count = ?, approved_count = ?, ' +
      'declined_count = ?, recomputable_count = ?, computed_at = ?, updated_at = ? where company_id = ? and id = ? returning *'
  ),
  monthOf: stmt('week_month_row', 'select * from time_sheet_months where company_id = ? and user_id = ? and month = ?'),
  updateMonthCounts: stmt(
    'week_month_counts',
    'update time_sheet_months set submitted_count = ?, approved_count = ?, declined_count = ?, recomputable_count = ?, computed_at = ?, updated_at = ? ' +
      'where company_id = ? and id = ? returning *'
  )
}

function patchWeek(principal: Principal, id: number, body: Row, requestId: string) {
  const { companyId, timezone } = principal
  onlyFields(body, new Set(['status', 'externalId']), 'TimeSheetWeek')
  const to = body.status
  if (to !== undefined && !STATUSES.includes(to)) throw badRequest('status', `must be one of ${STATUSES.join(', ')}`)
  // externalId is a plain column of the week; the scenarios never send it.
  if (body.externalId !== undefined) throw badRequest('externalId', 'is not served by the platform')
  return db.write(function* () {
    const existing = yield* get(SHEETS.weekById, [companyId, id])
    if (!existing) throw notFound(`No time sheet week ${id}`)
    const userId = Number(existing.user_id)
    yield* exec(SHEETS.lockUser, [companyId, userId])
    const first = dayText(existing.week_start)!
    const last = addDays(first, 6)
    const days = Array.from({ length: 7 }, (_, i) => addDays(first, i))
    let rows = yield* all(SHEETS.dayRows, [companyId, userId, first, last])
    const events: NewEvent[] = []
    const now = new Date().toISOString()
    // Missing day rows are created with their computed figures first (CONTRACT §7.5).
    if (to !== undefined && rows.length < 7) {
      const user = (yield* get(SHEETS.user, [companyId, userId]))!
      const account = {
        employedFrom: dayText(user.employed_from) ?? '1970-01-01',
        openingBalanceMs: Math.round(Number(user.opening_balance ?? 0) * MINUTE)
      }
      const have = new Set(rows.map((r) => dayText(r.day)))
      const { start } = dayBounds(first, timezone)
      const { end } = dayBounds(last, timezone)
      const entries = entriesOf(yield* all(SHEETS.entriesBetween, [companyId, userId, isoOf(start), isoOf(end)]))
      const absences = yield* all(SHEETS.absences, [companyId, userId, isoOf(end), isoOf(start)])
      for (const day of days.filter((d) => !have.has(d))) {
        const b = dayBounds(day, timezone)
        const model = yield* modelOn(companyId, userId, account, day)
        const own = entries.filter((e) => e.startsAt >= b.start && e.startsAt < b.end)
        const f = figuresOf(day, timezone, own, absences, model, undefined)
        const row = (yield* get(SHEETS.insertDay, [companyId, userId, day, ...figureValues(f), now, now]))!
        events.push({ type: 'time-sheet-days.created', data: sheetDay(row) })
      }
      rows = yield* all(SHEETS.dayRows, [companyId, userId, first, last])
    }
    // The move, from the week's derived status (CONTRACT §7.5, §11.3, §11.6).
    const statuses = rows.map((r) => r.status as string)
    const from = statuses.every((s) => s === 'approved')
      ? 'approved'
      : statuses.some((s) => s === 'declined')
        ? 'declined'
        : statuses.every((s) => s === 'submitted' || s === 'approved')
          ? 'submitted'
          : 'draft'
    let moved: Row[] = []
    if (to !== undefined && (to !== from || (to === 'draft' && statuses.some((s) => s !== 'draft')))) {
      if (to !== from && !MOVES[from].includes(to))
        throw conflict(`A time sheet week cannot move from ${from} to ${to}`)
      const movingFrom =
        to === 'submitted'
          ? ['draft', 'declined']
          : to === 'approved' || to === 'declined'
            ? ['submitted']
            : ['submitted', 'approved', 'declined']
      const moving = rows.filter((r) => movingFrom.includes(r.status))
      const today = calendarDay(Date.now(), timezone)
      if (to === 'submitted' || to === 'approved') {
        const future = rows
          .filter((r) => r.status !== 'approved' && dayText(r.day)! > today)
          .map((r) => dayText(r.day)!)
        if (future.length)
          throw conflict(`Days after today (${today}) cannot be ${to}: ${future.join(', ')}`, { days: future })
      }
      if (to === 'approved') {
        const others = rows.filter((r) => r.status === 'draft' || r.status === 'declined')
        if (others.length)
          throw conflict(`Every day must be submitted or approved before approving`, {
            days: others.map((r) => dayText(r.day))
          })
      }
      if (to === 'submitted') {
        const running = yield* get(ENTRY.running, [companyId, userId])
        if (running && moving.some((r) => dayText(r.day) === calendarDay(millis(running.starts_at), timezone)))
          throw conflict('A day with a running time entry cannot be submitted')
      }
      if (to === 'draft') {
        for (const m of new Set(moving.map((r) => monthOf(dayText(r.day)!)))) {
          if ((yield* get(ENTRY.lockedMonth, [companyId, userId, m]))?.locked_at)
            throw conflict(`The month ${m} is approved and locked`)
        }
      }
      const set = (status: string) => to === status
      const leave = (status: string) => to !== status
      const [a, b, c] = [...movingFrom, movingFrom[0], movingFrom[0]]
      moved = yield* all(WEEK.moveDays, [
        to,
        set('submitted'),
        now,
        set('submitted'),
        now,
        set('approved'),
        now,
        leave('approved'),
        set('approved'),
        principal.userId,
        leave('approved'),
        set('declined'),
        now,
        leave('declined'),
        set('declined'),
        principal.userId,
        leave('declined'),
        now,
        companyId,
        userId,
        first,
        last,
        a,
        b,
        c
      ])
      for (const row of moved) events.push({ type: 'time-sheet-days.patched', data: sheetDay(row) })
      // A reopened day that was frozen while approved is recomputed (CONTRACT §11.6).
      const reopened = moved.filter((r) => r.recomputable && to === 'draft')
      if (reopened.length) throw conflict('The platform does not recompute reopened frozen days')
    }
    // The week's status, timestamps and counts, and its months' counts, by SQL over the day rows.
    const counts = (yield* get(WEEK.statusCounts, [companyId, userId, first, last]))!
    const newStatuses = (yield* all(SHEETS.dayRows, [companyId, userId, first, last])).map((r) => r.status as string)
    const status =
      newStatuses.length === 7 && newStatuses.every((s) => s === 'approved')
        ? 'approved'
        : newStatuses.some((s) => s === 'declined')
          ? 'declined'
          : newStatuses.length === 7 && newStatuses.every((s) => s === 'submitted' || s === 'approved')
            ? 'submitted'
            : 'draft'
    const weekRow = (yield* get(WEEK.updateWeek, [
      status,
      status === 'draft' ? null : iso(counts.submitted_at),
      status === 'approved' ? iso(counts.approved_at) : null,
      status === 'declined' ? iso(counts.declined_at) : null,
      Number(counts.submitted ?? 0),
      Number(counts.approved ?? 0),
      Number(counts.declined ?? 0),
      Number(counts.recomputable ?? 0),
      now,
      now,
      companyId,
      id
    ]))!
    events.push({ type: 'time-sheet-weeks.patched', data: week(weekRow) })
    if (moved.length) {
      for (const m of new Set([monthOf(first), monthOf(last)])) {
        const monthRow = yield* get(WEEK.monthOf, [companyId, userId, m])
        if (!monthRow) continue
        const mc = (yield* get(WEEK.statusCounts, [companyId, userId, m, lastDayOfMonth(m)]))!
        const updated = (yield* get(WEEK.updateMonthCounts, [
          Number(mc.submitted ?? 0),
          Number(mc.approved ?? 0),
          Number(mc.declined ?? 0),
          Number(mc.recomputable ?? 0),
          now,
          now,
          companyId,
          monthRow.id
        ]))!
        events.push({ type: 'time-sheet-months.patched', data: month(updated, timezone) })
      }
    }
    yield* appendEvents(principal, requestId, events)
    return week(weekRow)
  })
}

// ---------------------------------------------------------------------------------------------
// By-user month look-up (CONTRACT §7.7) of an existing month row
// ---------------------------------------------------------------------------------------------

const SQL_MONTH = stmt(
  'month_by_user',
  'select * from time_sheet_months where company_id = ? and user_id = ? and month = ?'
)
const SQL_USER_EXISTS = stmt('user_exists', 'select id from users where company_id = ? and id = ?')

function* monthByUser(principal: Principal, query: URLSearchParams): Work<object> {
  onlyParams(query, new Set(['userId', 'month']))
  const userId = integer('userId', query.get('userId'))
  const value = query.get('month') ?? ''
  if (!/^\d{4}-\d\d-01$/.test(value) || Number.isNaN(Date.parse(value)))
    throw badRequest('month', 'must be the first day of a month (YYYY-MM-DD)')
  const today = calendarDay(Date.now(), principal.timezone)
  const horizon = new Date(Date.UTC(+today.slice(0, 4), +today.slice(5, 7) - 1 + 3, +today.slice(8, 10)))
    .toISOString()
    .slice(0, 10)
  if (value > horizon) throw badRequest('month', 'lies more than 3 months after today')
  if (!(yield* get(SQL_USER_EXISTS, [principal.companyId, userId]))) throw notFound(`No user ${userId}`)
  const row = yield* get(SQL_MONTH, [principal.companyId, userId, value])
  // Creating a missing month (with the gap-free chain) is not served: the bench reads seeded months.
  if (!row) throw notFound('The platform serves existing months only')
  return month(row, principal.timezone)
}

// ---------------------------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------------------------

const MAX_BODY = 1024 * 1024

async function readBody(req: http.IncomingMessage): Promise<Row> {
  const type = req.headers['content-type'] ?? ''
  if (!/^application\/json\b/i.test(type)) throw new HttpError(415, 'UnsupportedMediaType', 'The body must be JSON')
  const chunks: Buffer[] = []
  let length = 0
  for await (const chunk of req) {
    length += (chunk as Buffer).length
    if (length > MAX_BODY) throw new HttpError(413, 'PayloadTooLarge', 'The body is larger than 1 MiB')
    chunks.push(chunk as Buffer)
  }
  let body: unknown
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
  } catch {
    throw new HttpError(400, 'BadRequest', 'Malformed JSON')
  }
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new HttpError(400, 'BadRequest', 'The body must be a JSON object')
  return body as Row
}

const ONE_ASSIGNMENT = /^\/v1\/assignments\/([^/]+)$/
const ONE_WEEK = /^\/v1\/time-sheet-weeks\/([^/]+)$/

async function route(req: http.IncomingMessage, principal: Principal, requestId: string): Promise<[number, unknown]> {
  const url = req.url ?? '/'
  const q = url.indexOf('?')
  const pathname = q < 0 ? url : url.slice(0, q)
  const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1))
  const method = req.method
  let match = ONE_ASSIGNMENT.exec(pathname)
  if (match && method === 'GET') {
    requireScope(principal, 'assignments', 'read')
    if (query.size) onlyParams(query, new Set())
    const id = integer('id', match[1])
    const row = await db.read(() => get(SQL.assignment, [principal.companyId, id]))
    if (!row) throw notFound(`No record found for id '${id}'`)
    return [200, assignment(row)]
  }
  if (pathname === '/v1/assignments' && method === 'GET') {
    requireScope(principal, 'assignments', 'read')
    return [200, await db.read(() => listAssignments(principal, query))]
  }
  if (pathname === '/v1/time-entries' && method === 'GET') {
    requireScope(principal, 'time-entries', 'read')
    return [200, await db.read(() => listTimeEntries(principal, query))]
  }
  if (pathname === '/v1/time-entries' && method === 'POST') {
    requireScope(principal, 'time-entries', 'write')
    return [201, await createTimeEntry(principal, await readBody(req), requestId)]
  }
  if (pathname === '/v1/customers' && method === 'POST') {
    requireScope(principal, 'customers', 'write')
    return [201, await createCustomer(principal, await readBody(req), requestId)]
  }
  if (pathname === '/v1/time-sheet-months/by-user' && method === 'GET') {
    requireScope(principal, 'time-sheet-months', 'read')
    return [200, await db.read(() => monthByUser(principal, query))]
  }
  match = ONE_WEEK.exec(pathname)
  if (match && method === 'PATCH') {
    requireScope(principal, 'time-sheet-weeks', 'write')
    const id = integer('id', match[1])
    return [200, await patchWeek(principal, id, await readBody(req), requestId)]
  }
  throw notFound(`Not served by the platform: ${method} ${pathname}`)
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string>) {
  const payload = JSON.stringify(body)
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload)
  })
  res.end(payload)
}

function serve() {
  const server = http.createServer(async (req, res) => {
    const headers: Record<string, string> = {}
    const requestId = (req.headers['x-request-id'] as string | undefined) ?? crypto.randomUUID()
    headers['x-request-id'] = requestId
    try {
      const principal = await authenticate(req.headers.authorization)
      Object.assign(headers, rateLimit(principal.apiKeyId, Date.now()))
      countUsage(principal)
      const [status, body] = await route(req, principal, requestId)
      send(res, status, body, headers)
    } catch (error) {
      if (error instanceof HttpError) {
        if (error.status === 401) headers['www-authenticate'] = 'Bearer'
        if (error.status === 429) headers['retry-after'] = (error as HttpError & { retryAfter: string }).retryAfter
        send(
          res,
          error.status,
          {
            name: error.errorName,
            message: error.message,
            code: error.status,
            className: CLASS_NAMES[error.status] ?? 'error',
            data: error.data ?? {}
          },
          headers
        )
      } else {
        process.stderr.write(`platform: ${(error as Error).stack}\n`)
        send(
          res,
          500,
          { name: 'GeneralError', message: 'Internal error', code: 500, className: 'general-error', data: {} },
          headers
        )
      }
    }
  })
  server.keepAliveTimeout = 65000
  const flush = setInterval(
    () => flushUsage().catch((error) => process.stderr.write(`platform: usage ${error}\n`)),
    5000
  )
  server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
    const address = server.address()
    process.stdout.write(`platform listening on ${typeof address === 'object' && address ? address.port : ''}\n`)
  })
  process.once('SIGTERM', () => {
    clearInterval(flush)
    server.close()
    server.closeAllConnections()
    void flushUsage()
      .catch(() => undefined)
      .then(() => db.close())
      .then(() => process.exit(0))
  })
}

const workers = Number(process.env.WEB_CONCURRENCY ?? 1)
if (cluster.isPrimary && workers > 1) {
  void db.close()
  for (let i = 0; i < workers; i++) cluster.fork()
  process.once('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM')
    cluster.on('exit', () => Object.keys(cluster.workers ?? {}).length === 0 && process.exit(0))
  })
} else {
  serve()
}
