import { customerNumber, type SeedInfo } from './seed'

/**
 * What the benchmark asks of the service. Every request is drawn from the seeded data of the
 * first company, deterministically from its sequence number, so the service and the platform
 * get the same stream of requests.
 */
export interface BenchRequest {
  method: 'GET' | 'POST' | 'PATCH'
  path: string
  body?: unknown
}

export interface Scenario {
  name: string
  title: string
  kind: 'read' | 'write'
  /** The platform implements it (bench/platform.ts). */
  platform: boolean
  /** Part of the list-at-scale check (1 000 000 vs 10 000 rows). */
  list?: boolean
  request: (seed: SeedInfo, n: number) => BenchRequest
}

const pick = <T>(values: T[], n: number) => values[((n * 2654435761) % values.length) >>> 0]
const rangePick = ([first, last]: [number, number], n: number) =>
  first + (((n * 2654435761) >>> 0) % (last - first + 1))
const company = (seed: SeedInfo) => seed.companies[0]

/** Months of the seeded period, for month look-ups. */
const MONTHS = Array.from({ length: 24 }, (_, i) => {
  const date = new Date(Date.UTC(2024, 10 + i, 1))
  return date.toISOString().slice(0, 7)
})
const nextMonth = (month: string) => {
  const [y, m] = month.split('-').map(Number)
  return new Date(Date.UTC(y, m, 1)).toISOString().slice(0, 7)
}

/** POSTed entries go after the seeded period: slot `k` of each user, 7 a day, never overlapping. */
const POST_BASE = Date.parse('2026-11-02T06:00:00Z')
const SLOTS_PER_DAY = 7

export const SCENARIOS: Scenario[] = [
  {
    name: 'get-assignment',
    title: 'GET one assignment',
    kind: 'read',
    platform: true,
    request: (seed, n) => ({ method: 'GET', path: `/v1/assignments/${rangePick(company(seed).assignmentIds, n)}` })
  },
  {
    name: 'list-assignments',
    title: 'list assignments, filter responsibleUserId, size 20',
    kind: 'read',
    platform: true,
    list: true,
    request: (seed, n) => ({
      method: 'GET',
      path: `/v1/assignments?responsibleUserId=${pick(company(seed).userIds, n)}&size=20`
    })
  },
  {
    name: 'list-assignments-like',
    title: 'list assignments, name[$like]=%word%, size 20',
    kind: 'read',
    platform: true,
    list: true,
    request: (seed, n) => ({
      method: 'GET',
      path: `/v1/assignments?name[$like]=${encodeURIComponent(`%${pick(seed.words, n)}%`)}&size=20`
    })
  },
  {
    name: 'list-assignments-search',
    title: "list assignments, name[$like]=%<customer number>%, size 20 (one customer's orders)",
    kind: 'read',
    platform: true,
    list: true,
    request: (seed, n) => {
      const customers = company(seed).customerIds.length
      return {
        method: 'GET',
        path: `/v1/assignments?name[$like]=${encodeURIComponent(`%${customerNumber(((n * 2654435761) >>> 0) % customers)}%`)}&size=20`
      }
    }
  },
  {
    name: 'list-time-entries-month',
    title: "list one user's time entries of a month, size 20",
    kind: 'read',
    platform: true,
    list: true,
    request: (seed, n) => {
      const month = pick(MONTHS, n)
      const query = `userId=${pick(company(seed).userIds, n)}&startsAt[$gte]=${month}-01T00:00:00Z&startsAt[$lt]=${nextMonth(month)}-01T00:00:00Z&size=20`
      return {
        method: 'GET',
        path: `/v1/time-entries?${query.replace(/\$/g, '%24').replace(/\[/g, '%5B').replace(/]/g, '%5D')}`
      }
    }
  },
  {
    name: 'post-customer',
    title: 'POST customer',
    kind: 'write',
    platform: true,
    request: (_seed, n) => ({
      method: 'POST',
      path: '/v1/customers',
      body: {
        number: `BENCH-${n}`,
        companyName: `Benchmark Kunde ${n}`,
        telephones: [{ label: 'Büro', isDefault: true, telephoneNumber: `+49 30 ${2000000 + n}` }],
        billingAddress: { street: 'Hauptstraße 1', zip: '10115', city: 'Berlin', country: 'DE' }
      }
    })
  },
  {
    name: 'post-time-entry',
    title: 'POST time entry (with recomputation)',
    kind: 'write',
    platform: true,
    request: (seed, n) => {
      const { userIds, workEntryTypeId, eventIds } = company(seed)
      const user = userIds[n % userIds.length]
      const k = Math.floor(n / userIds.length)
      const start = POST_BASE + Math.floor(k / SLOTS_PER_DAY) * 86400_000 + (k % SLOTS_PER_DAY) * 75 * 60_000
      return {
        method: 'POST',
        path: '/v1/time-entries',
        body: {
          userId: user,
          typeId: workEntryTypeId,
          eventId: eventIds[1] - (n % 400),
          startsAt: new Date(start).toISOString(),
          endsAt: new Date(start + 3600_000).toISOString()
        }
      }
    }
  },
  {
    name: 'patch-week-status',
    title: 'PATCH week status (fan-out to 7 days, recomputation)',
    kind: 'write',
    platform: true,
    request: (seed, n) => {
      // Each round over the draft weeks submits them, the next one reopens them: both are moves
      // from either status (or no move), so concurrent requests on one week never conflict.
      const weeks = company(seed).draftWeekIds
      const status = Math.floor(n / weeks.length) % 2 === 0 ? 'submitted' : 'draft'
      return { method: 'PATCH', path: `/v1/time-sheet-weeks/${weeks[n % weeks.length]}`, body: { status } }
    }
  },
  {
    name: 'by-user-month',
    title: "by-user look-up of a user's month",
    kind: 'read',
    platform: true,
    request: (seed, n) => {
      // The month from the round over the users: every user meets every month.
      const { userIds } = company(seed)
      const month = seed.sheetMonths[Math.floor(n / userIds.length) % seed.sheetMonths.length]
      return { method: 'GET', path: `/v1/time-sheet-months/by-user?userId=${pick(userIds, n)}&month=${month}` }
    }
  }
]
