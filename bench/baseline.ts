import cluster from 'node:cluster'
import crypto from 'node:crypto'
import http from 'node:http'
import type { Knex } from 'knex'
import { camelCase, createKnex } from '../src/db/knex'
import { pgNarrowedLikes, searchCandidates } from '../src/db/search-index'
import { fts5Trigrams, pgTrgmTrigrams, TrigramStatistics } from '../src/db/search-terms'
import { likeToGlob, needsGlob } from '../src/db/sqlite-like'
import { calendarDay } from '../src/timesheets/calendar'
import { currentDifferenceMs } from '../src/timesheets/aggregates'
import { MINUTE_MS, roundMinutes } from '../src/timesheets/durations'
import { moveWeek } from '../src/timesheets/fan-out'
import { horizonOf, isFirstOfMonth, today } from '../src/timesheets/periods'
import { assertDaysWritable, lockUserTime, recomputeDays } from '../src/timesheets/recompute'
import { dayOf } from '../src/timesheets/sheet-rows'
import { SHEET_STATUSES, SheetStatus } from '../src/timesheets/workflow'

/**
 * The raw baseline: plain node:http, no framework, the same knex instance configuration and
 * the same SQL statements the service runs for each scenario (copied from its query log), and
 * the same JSON shapes. The time-sheet work (the user lock, the approved-day check, the
 * recomputation, the week fan-out) is the service's own module from src/timesheets, called
 * directly: it is domain work, not framework, and must cost the same on both sides. What remains
 * between the two is the framework's cost: koa, Feathers hooks, validation, the codec, error
 * mapping, logging, the security middleware and the realtime events.
 * Bodies are checked only as far as the scenario needs; the baseline is not an API.
 *
 * Env: DATABASE_URL, PORT, HOST, WEB_CONCURRENCY.
 */
type Row = Record<string, any>
type Principal = { companyId: number; userId: number; timezone: string }

class HttpError extends Error {
  constructor(readonly status: number) {
    super(String(status))
  }
}

const url = process.env.DATABASE_URL!
const isPg = url.startsWith('postgres')
const db: Knex = createKnex(url)

/**
 * Rows of a raw statement on either driver, with camelCase keys as the service's knex hook gives
 * them (knex.raw returns pg's result object, which the hook leaves alone).
 */
async function rows(sql: string, bindings: Knex.Value[], trx: Knex | Knex.Transaction = db): Promise<Row[]> {
  const result = await trx.raw(sql, bindings)
  if (!isPg) return result
  return (result.rows as Row[]).map((row) =>
    Object.fromEntries(Object.entries(row).map(([key, value]) => [camelCase(key), value]))
  )
}

const iso = (value: unknown) =>
  value === null || value === undefined
    ? null
    : value instanceof Date
      ? value.toISOString()
      : new Date(value as string).toISOString()
const json = (value: unknown) =>
  value === null || value === undefined ? null : typeof value === 'string' ? JSON.parse(value) : value
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
const num = (value: unknown) => (value === null || value === undefined ? null : Number(value))

// The statement of the apiKey strategy (src/auth/authentication.ts), as knex renders it.
const q = (sql: string) => (isPg ? sql : sql.replace(/"/g, '`'))
const SQL = {
  principal: q(
    'select "companies"."id" as "company_id", "companies"."name" as "company_name", "companies"."country", "companies"."timezone", ' +
      '"users"."id" as "user_id", "users"."full_name", "users"."email", "roles"."type" as "role_type", "api_keys"."id" as "api_key_id", "api_keys"."key_hash" ' +
      'from "api_keys" inner join "users" on "users"."id" = "api_keys"."user_id" and "users"."company_id" = "api_keys"."company_id" ' +
      'inner join "companies" on "companies"."id" = "users"."company_id" inner join "roles" on "roles"."id" = "users"."role_id" ' +
      'where "users"."deactivated_at" is null and "api_keys"."key_hash" = ? and "api_keys"."revoked_at" is null limit ?'
  )
}

async function authenticate(req: http.IncomingMessage): Promise<Principal> {
  const match = /^Bearer\s+(ck_[A-Za-z0-9_-]{43})\s*$/i.exec(req.headers.authorization ?? '')
  if (!match) throw new HttpError(401)
  const hash = crypto.createHash('sha256').update(match[1]).digest('hex')
  const [row] = await rows(SQL.principal, [hash, 1])
  if (!row || !crypto.timingSafeEqual(Buffer.from(row.keyHash, 'hex'), Buffer.from(hash, 'hex')))
    throw new HttpError(401)
  return { companyId: row.companyId, userId: row.userId, timezone: row.timezone }
}

const assignment = (r: Row) => ({
  id: r.id,
  number: r.number,
  name: r.name,
  comment: r.comment,
  notesBackOffice: r.notesBackOffice,
  color: r.color,
  address: address(r.address),
  customerId: r.customerId,
  projectId: r.projectId,
  typeId: r.typeId,
  responsibleUserId: r.responsibleUserId,
  statusId: r.statusId,
  externalId: r.externalId,
  createdAt: iso(r.createdAt),
  updatedAt: iso(r.updatedAt)
})

const TELEPHONE_KEYS = ['label', 'isDefault', 'telephoneNumber']
const customer = (r: Row) => ({
  id: r.id,
  number: r.number,
  companyName: r.companyName,
  externalId: r.externalId,
  title: r.title,
  salutation: r.salutation,
  firstName: r.firstName,
  surname: r.surname,
  telephones:
    (json(r.telephones) as Row[] | null)?.map((t) =>
      Object.fromEntries(
        TELEPHONE_KEYS.filter((k) => k === 'telephoneNumber' || t[k] !== undefined).map((k) => [k, t[k]])
      )
    ) ?? null,
  emails: json(r.emails),
  urls: json(r.urls),
  billingAddress: address(r.billingAddress),
  createdAt: iso(r.createdAt),
  updatedAt: iso(r.updatedAt)
})

const timeEntry = (r: Row) => ({
  id: r.id,
  typeId: r.typeId,
  startsAt: iso(r.startsAt),
  endsAt: iso(r.endsAt),
  duration: r.workedMs === null ? null : Math.round((Number(r.workedMs) / 60000 + Number.EPSILON) * 100) / 100,
  pausedAt: iso(r.pausedAt),
  note: r.note,
  userId: r.userId,
  assignmentId: r.assignmentId,
  eventId: r.eventId,
  eventTypeId: r.eventTypeId,
  startLatitude: num(r.startLatitude),
  startLongitude: num(r.startLongitude),
  startTrackingError: r.startTrackingError,
  endLatitude: num(r.endLatitude),
  endLongitude: num(r.endLongitude),
  endTrackingError: r.endTrackingError,
  externalId: r.externalId,
  createdAt: iso(r.createdAt),
  updatedAt: iso(r.updatedAt)
})

const minutes = (ms: unknown) => (ms === null || ms === undefined ? null : roundMinutes(Number(ms) / MINUTE_MS))
const count = (r: Row, name: string) => Number(r[name])
const PERIOD_COUNTS = ['hasMultipleDayTimeEntryCount', 'recomputableCount', 'hasOpenTimeEntryCount']

const week = (r: Row) => ({
  id: r.id,
  userId: r.userId,
  weekStart: dayOf(r.weekStart),
  status: r.status,
  submittedCount: count(r, 'submittedCount'),
  approvedCount: count(r, 'approvedCount'),
  declinedCount: count(r, 'declinedCount'),
  submittedAt: iso(r.submittedAt),
  approvedAt: iso(r.approvedAt),
  declinedAt: iso(r.declinedAt),
  sumActual: minutes(r.sumActualMs),
  sumTarget: minutes(r.sumTargetMs),
  ...Object.fromEntries(PERIOD_COUNTS.map((name) => [name, count(r, name)])),
  openTimeEntryEarliestDay: r.openTimeEntryEarliestDay === null ? null : dayOf(r.openTimeEntryEarliestDay),
  computedAt: iso(r.computedAt),
  externalId: r.externalId,
  createdAt: iso(r.createdAt),
  updatedAt: iso(r.updatedAt)
})

const month = (r: Row, timezone: string) => {
  const locked = r.lockedAt !== null && r.lockedAt !== undefined
  const daily = (typeof r.dailyFigures === 'string' ? JSON.parse(r.dailyFigures) : (r.dailyFigures ?? [])) as [
    number,
    number
  ][]
  return {
    id: r.id,
    userId: r.userId,
    month: dayOf(r.month),
    status: r.status,
    note: r.note,
    declinedNote: r.declinedNote,
    submittedCount: count(r, 'submittedCount'),
    approvedCount: count(r, 'approvedCount'),
    declinedCount: count(r, 'declinedCount'),
    submittedAt: iso(r.submittedAt),
    submittedFirstAt: iso(r.submittedFirstAt),
    approvedAt: iso(r.approvedAt),
    declinedAt: iso(r.declinedAt),
    sumActual: minutes(locked ? r.sumActualLockedMs : r.sumActualComputedMs),
    sumTarget: minutes(locked ? r.sumTargetLockedMs : r.sumTargetComputedMs),
    sumActualComputed: minutes(r.sumActualComputedMs),
    sumTargetComputed: minutes(r.sumTargetComputedMs),
    carryIn: minutes(r.carryInMs),
    carryInComputed: minutes(r.carryInComputedMs),
    carryOut: minutes(r.carryOutMs),
    carryOutComputed: minutes(r.carryOutComputedMs),
    carryOutForfeited: minutes(r.carryOutForfeitedMs),
    carryInCorrectionType: r.carryInCorrectionType,
    carryOutCorrectionType: r.carryOutCorrectionType,
    lockedAt: iso(r.lockedAt),
    sumActualLocked: minutes(r.sumActualLockedMs),
    sumTargetLocked: minutes(r.sumTargetLockedMs),
    carryInLocked: minutes(r.carryInLockedMs),
    carryOutLocked: minutes(r.carryOutLockedMs),
    currentDifference: minutes(currentDifferenceMs(dayOf(r.month), daily, today(timezone))),
    ...Object.fromEntries(PERIOD_COUNTS.map((name) => [name, count(r, name)])),
    openTimeEntryEarliestDay: r.openTimeEntryEarliestDay === null ? null : dayOf(r.openTimeEntryEarliestDay),
    computedAt: iso(r.computedAt),
    externalId: r.externalId,
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt)
  }
}

const positiveInt = (value: string | null) => {
  if (value === null || !/^\d{1,10}$/.test(value)) throw new HttpError(400)
  return Number(value)
}

/** The list envelope from the page query and the count query the service runs. */
async function list(
  table: string,
  where: string,
  bindings: Knex.Value[],
  size: number,
  decode: (r: Row) => object,
  from = `"${table}"`
) {
  const page = await rows(
    q(`select "${table}".* from ${from} where ${where} order by "${table}"."id" asc nulls last limit ?`),
    [...bindings, size]
  )
  const [{ total }] = await rows(q(`select count(*) as "total" from ${from} where ${where}`), bindings)
  return { page: 0, pages: Math.ceil(Number(total) / size), size, total: Number(total), items: page.map(decode) }
}

/** The service's sample of trigram counts, kept as long (src/db/search-terms.ts). */
const trigramStatistics = new TrigramStatistics(isPg ? pgTrgmTrigrams : fts5Trigrams)

/**
 * The service's `name[$like]` (src/resources/service.ts): ILIKE on PostgreSQL, looked up without
 * its frequent trigrams where it has any; on SQLite a GLOB for patterns with non-ASCII letters, and
 * the trigram index (looked up without them) where it is selective.
 */
async function searchAssignments(companyId: number, pattern: string, size: number) {
  if (isPg) {
    const [narrowed] = await pgNarrowedLikes(db, 'assignments', { name: { $like: pattern } }, trigramStatistics)
    const likes = narrowed
      ? [...narrowed.parts.map(() => '"assignments"."name" ilike ?'), `("assignments"."name" || '') ilike ?`]
      : ['"name" ilike ?']
    const bindings = narrowed ? [...narrowed.parts.map((part) => `%${part}%`), pattern] : [pattern]
    return list(
      'assignments',
      [...likes, '"assignments"."company_id" = ?'].join(' and '),
      [...bindings, companyId],
      size,
      assignment
    )
  }
  const glob = needsGlob(pattern)
  const where = [glob ? '"assignments"."name" GLOB ?' : '"name" like ?', '"assignments"."company_id" = ?']
  const bindings: Knex.Value[] = [glob ? likeToGlob(pattern) : pattern, companyId]
  const candidates = await searchCandidates(db, 'assignments', { name: { $like: pattern } }, trigramStatistics)
  if (candidates) {
    where.push(candidates.length ? `"assignments"."id" in (${candidates.map(() => '?').join(', ')})` : '1 = 0')
    bindings.push(...candidates)
  }
  return list(
    'assignments',
    where.join(' and '),
    bindings,
    size,
    assignment,
    candidates ? '"assignments" not indexed' : undefined
  )
}

async function readBody(req: http.IncomingMessage): Promise<Row> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400)
  return body
}

async function createCustomer(principal: Principal, body: Row) {
  if (typeof body.companyName !== 'string') throw new HttpError(400)
  const now = new Date().toISOString()
  return db.transaction(async (trx) => {
    const [inserted] = await trx('customers').insert(
      {
        billingAddress: JSON.stringify(body.billingAddress),
        companyId: principal.companyId,
        companyName: body.companyName,
        number: body.number,
        telephones: JSON.stringify(body.telephones),
        createdAt: now,
        updatedAt: now
      },
      ['id']
    )
    const [row] = await rows(
      q('select * from "customers" where "customers"."company_id" = ? and "customers"."id" = ? limit ?'),
      [principal.companyId, inserted.id ?? inserted, 1],
      trx
    )
    return customer(row)
  })
}

/**
 * The statements of a time-entry create with an event: the reference checks, the type and the
 * event, the user lock (PostgreSQL), the overlap range, the insert and the re-read.
 */
async function createTimeEntry(principal: Principal, body: Row) {
  const { companyId } = principal
  const start = Date.parse(body.startsAt)
  const end = Date.parse(body.endsAt)
  if (
    !Number.isInteger(body.userId) ||
    !Number.isInteger(body.typeId) ||
    !Number.isInteger(body.eventId) ||
    !(end >= start)
  )
    throw new HttpError(400)
  return db.transaction(async (trx) => {
    const [user] = await rows(
      q('select * from "users" where "company_id" = ? and "id" in (?)'),
      [companyId, body.userId],
      trx
    )
    const [type] = await rows(
      q('select * from "time_entry_types" where "company_id" = ? and "id" in (?)'),
      [companyId, body.typeId],
      trx
    )
    const [event] = await rows(
      q('select * from "assignment_events" where "company_id" = ? and "id" in (?)'),
      [companyId, body.eventId],
      trx
    )
    if (!user || user.deactivatedAt || !type || type.deactivatedAt || !event) throw new HttpError(400)
    await rows(
      q('select "is_unassigned", "event_type_id" from "time_entry_types" where "id" = ? and "company_id" = ? limit ?'),
      [body.typeId, companyId, 1],
      trx
    )
    const [ev] = await rows(
      q('select "assignment_id", "type_id" from "assignment_events" where "id" = ? and "company_id" = ? limit ?'),
      [body.eventId, companyId, 1],
      trx
    )
    const affected = { companyId, userId: body.userId as number, days: [calendarDay(start, principal.timezone)] }
    await lockUserTime(trx, affected)
    await assertDaysWritable(trx, affected)
    const others = await rows(
      q(
        'select "id", "starts_at", "ends_at" from "time_entries" where "company_id" = ? and "user_id" = ? and "starts_at" <= ? and ("ends_at" is null or "ends_at" >= ?)'
      ),
      [companyId, body.userId, new Date(end).toISOString(), new Date(start).toISOString()],
      trx
    )
    if (
      others.some((o) => Date.parse(o.startsAt) < end && start < (o.endsAt === null ? Infinity : Date.parse(o.endsAt)))
    )
      throw new HttpError(409)
    const now = new Date().toISOString()
    const [inserted] = await trx('time_entries').insert(
      {
        assignmentId: ev.assignmentId,
        companyId,
        createdAt: now,
        endsAt: new Date(end).toISOString(),
        eventId: body.eventId,
        eventTypeId: ev.typeId,
        startsAt: new Date(start).toISOString(),
        typeId: body.typeId,
        updatedAt: now,
        userId: body.userId,
        workedMs: end - start
      },
      ['id']
    )
    await recomputeDays(trx, affected)
    const [row] = await rows(
      q('select * from "time_entries" where "time_entries"."company_id" = ? and "time_entries"."id" = ? limit ?'),
      [companyId, inserted.id ?? inserted, 1],
      trx
    )
    return timeEntry(row)
  })
}

/** `GET /v1/time-sheet-months/by-user` of a month that has its row (the look-up of an existing period). */
async function monthByUser(principal: Principal, searchParams: URLSearchParams) {
  const { companyId, timezone } = principal
  const userId = positiveInt(searchParams.get('userId'))
  const value = searchParams.get('month') ?? ''
  if (!/^\d{4}-\d\d-\d\d$/.test(value) || !isFirstOfMonth(value) || value > horizonOf(timezone))
    throw new HttpError(400)
  const [user] = await rows(q('select "id" from "users" where "id" = ? and "company_id" = ? limit ?'), [
    userId,
    companyId,
    1
  ])
  if (!user) throw new HttpError(404)
  const [existing] = await rows(
    q('select "id" from "time_sheet_months" where "company_id" = ? and "user_id" = ? and "month" = ? limit ?'),
    [companyId, userId, value, 1]
  )
  if (!existing) throw new HttpError(404) // the benchmark asks for seeded months only
  const [row] = await rows(
    q(
      'select * from "time_sheet_months" where "time_sheet_months"."company_id" = ? and "time_sheet_months"."id" = ? limit ?'
    ),
    [companyId, existing.id, 1]
  )
  return month(row, timezone)
}

/**
 * `PATCH /v1/time-sheet-weeks/{id}` with a status: the row and the user lock, the write of the
 * week (its status is derived, so only updatedAt), the fan-out to the days with the
 * recomputation, the read of the moved and created rows for the events, and the re-read.
 */
async function patchWeek(principal: Principal, id: number, body: Row) {
  const { companyId } = principal
  const to = body.status as SheetStatus
  if (Object.keys(body).length !== 1 || !SHEET_STATUSES.includes(to)) throw new HttpError(400)
  return db.transaction(async (trx) => {
    const byId = q(
      'select * from "time_sheet_weeks" where "time_sheet_weeks"."company_id" = ? and "time_sheet_weeks"."id" = ? limit ?'
    )
    const [existing] = await rows(byId, [companyId, id, 1], trx)
    if (!existing) throw new HttpError(404)
    const owner = {
      companyId,
      userId: Number(existing.userId),
      actingUserId: principal.userId,
      timezone: principal.timezone
    }
    await lockUserTime(trx, owner)
    await rows(
      q('update "time_sheet_weeks" set "updated_at" = ? where "time_sheet_weeks"."company_id" = ? and "id" = ?'),
      [new Date().toISOString(), companyId, id],
      trx
    )
    const [current] = await rows(
      q('select * from "time_sheet_weeks" where "id" = ? and "company_id" = ? limit ?'),
      [id, companyId, 1],
      trx
    )
    const moved = await moveWeek(trx, owner, dayOf(current.weekStart), to)
    const announced: [string, number[]][] = [
      ['time_sheet_days', moved.created.days.map((r) => r.id)],
      ['time_sheet_weeks', moved.created.weeks.map((r) => r.id)],
      ['time_sheet_months', moved.created.months.map((r) => r.id)],
      ['time_sheet_days', moved.moved]
    ]
    for (const [table, ids] of announced.filter(([, ids]) => ids.length > 0)) {
      await trx(table)
        .where({ companyId })
        .whereIn('id', [...new Set(ids)])
        .orderBy('id')
    }
    const [row] = await rows(byId, [companyId, id, 1], trx)
    return week(row)
  })
}

async function route(req: http.IncomingMessage, principal: Principal): Promise<[number, unknown]> {
  const { pathname, searchParams } = new URL(req.url ?? '/', 'http://localhost')
  const { companyId } = principal
  const one = /^\/v1\/assignments\/(\d+)$/.exec(pathname)
  if (req.method === 'GET' && one) {
    const [row] = await rows(
      q('select * from "assignments" where "assignments"."company_id" = ? and "assignments"."id" = ? limit ?'),
      [companyId, positiveInt(one[1]), 1]
    )
    if (!row) throw new HttpError(404)
    return [200, assignment(row)]
  }
  if (req.method === 'GET' && pathname === '/v1/assignments') {
    const size = positiveInt(searchParams.get('size') ?? '10')
    const like = searchParams.get('name[$like]')
    if (like !== null) return [200, await searchAssignments(companyId, like, size)]
    const user = positiveInt(searchParams.get('responsibleUserId'))
    return [
      200,
      await list(
        'assignments',
        '"responsible_user_id" = ? and "assignments"."company_id" = ?',
        [user, companyId],
        size,
        assignment
      )
    ]
  }
  if (req.method === 'GET' && pathname === '/v1/time-entries') {
    const size = positiveInt(searchParams.get('size') ?? '10')
    const from = new Date(searchParams.get('startsAt[$gte]') ?? '').toISOString()
    const to = new Date(searchParams.get('startsAt[$lt]') ?? '').toISOString()
    const where = '"user_id" = ? and "starts_at" >= ? and "starts_at" < ? and "time_entries"."company_id" = ?'
    return [
      200,
      await list('time_entries', where, [positiveInt(searchParams.get('userId')), from, to, companyId], size, timeEntry)
    ]
  }
  if (req.method === 'GET' && pathname === '/v1/time-sheet-months/by-user')
    return [200, await monthByUser(principal, searchParams)]
  const weekId = /^\/v1\/time-sheet-weeks\/(\d+)$/.exec(pathname)
  if (req.method === 'PATCH' && weekId)
    return [200, await patchWeek(principal, positiveInt(weekId[1]), await readBody(req))]
  if (req.method === 'POST' && pathname === '/v1/customers')
    return [201, await createCustomer(principal, await readBody(req))]
  if (req.method === 'POST' && pathname === '/v1/time-entries')
    return [201, await createTimeEntry(principal, await readBody(req))]
  throw new HttpError(404)
}

function serve() {
  const server = http.createServer(async (req, res) => {
    let status = 500
    let body: unknown = { message: 'Internal error' }
    try {
      ;[status, body] = await route(req, await authenticate(req))
    } catch (error) {
      if (error instanceof HttpError) [status, body] = [error.status, { code: error.status }]
      else if (error instanceof SyntaxError) [status, body] = [400, { code: 400 }]
      else process.stderr.write(`baseline: ${(error as Error).stack}\n`)
    }
    const text = JSON.stringify(body)
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text)
    })
    res.end(text)
  })
  server.keepAliveTimeout = 65000
  server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
    const address = server.address()
    process.stdout.write(`baseline listening on ${typeof address === 'object' && address ? address.port : ''}\n`)
  })
  process.once('SIGTERM', () => {
    server.close()
    server.closeAllConnections()
    void db.destroy().then(() => process.exit(0))
  })
}

const workers = Number(process.env.WEB_CONCURRENCY ?? 1)
if (cluster.isPrimary && workers > 1) {
  void db.destroy()
  for (let i = 0; i < workers; i++) cluster.fork()
  process.once('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM')
    cluster.on('exit', () => Object.keys(cluster.workers ?? {}).length === 0 && process.exit(0))
  })
} else {
  serve()
}
