import autocannon from 'autocannon'
import type { SeedInfo } from './seed'
import { SCENARIOS } from './scenarios'
import type { Target } from './processes'

/**
 * A dashboard during a burst of writes: 40 connections post time entries (`post-time-entry`) while
 * `list-assignments` is offered at a fixed rate over 4 more connections, at the same time, on the
 * same process. What an office sees at 7:00 while the crews clock in: how many of its lists are
 * served and how long they take, and what the lists cost the writes. No platform side: the
 * platform's one SQLite connection is no model of the service's. With `--before-root` both
 * checkouts take turns (service, before, before, service).
 */
export interface DashboardRound {
  side: Target['name']
  postsPerSecond: number
  listsOffered: number
  listsPerSecond: number
  listP50: number
  listP99: number
  non2xx: number
}

const WRITERS = 40
const READERS = 4
/** Lists offered per second: a handful of dashboards refreshing, well inside the per-key rate limit. */
const LISTS_PER_SECOND = 50
const WARMUP_S = 2
const MEASURED_S = 8

export async function measureDashboardDuringWrites(
  sides: Target[],
  seed: SeedInfo,
  next: (scenario: string) => number,
  rounds: number
): Promise<DashboardRound[]> {
  const post = SCENARIOS.find((s) => s.name === 'post-time-entry')!
  const list = SCENARIOS.find((s) => s.name === 'list-assignments')!
  const headers = { authorization: `Bearer ${seed.companies[0].apiKey}`, 'content-type': 'application/json' }
  const drive = (target: Target, scenario: typeof post, connections: number, duration: number, rate?: number) =>
    autocannon({
      url: target.url,
      connections,
      duration,
      timeout: 30,
      headers,
      ...(rate ? { overallRate: rate } : {}),
      requests: [
        {
          setupRequest: (request: autocannon.Request) => {
            const { method, path, body } = scenario.request(seed, next(scenario.name))
            return { ...request, method, path, body: body === undefined ? undefined : JSON.stringify(body) }
          }
        }
      ]
    } as autocannon.Options)
  const order = sides.length > 1 ? [sides[0], sides[1], sides[1], sides[0]] : [sides[0], sides[0]]
  const results: DashboardRound[] = []
  for (let round = 0; round < Math.max(1, rounds / 2); round++)
    for (const target of order) {
      await Promise.all([
        drive(target, post, WRITERS, WARMUP_S),
        drive(target, list, READERS, WARMUP_S, LISTS_PER_SECOND)
      ])
      const [posts, lists] = await Promise.all([
        drive(target, post, WRITERS, MEASURED_S),
        drive(target, list, READERS, MEASURED_S, LISTS_PER_SECOND)
      ])
      results.push({
        side: target.name,
        postsPerSecond: posts.requests.average,
        listsOffered: LISTS_PER_SECOND,
        listsPerSecond: lists.requests.average,
        listP50: lists.latency.p50,
        listP99: lists.latency.p99,
        non2xx: posts.non2xx + lists.non2xx
      })
    }
  return results
}

export function printDashboardDuringWrites(engine: string, rounds: DashboardRound[], log: (line: string) => void) {
  log(
    `\n${engine}: a dashboard during writes (${WRITERS} connections posting time entries, list-assignments ` +
      `offered at ${LISTS_PER_SECOND}/s over ${READERS}; ${MEASURED_S} s rounds)`
  )
  log('side        POST req/s | lists served/s   p50    p99 | non-2xx')
  for (const r of rounds)
    log(
      `${r.side.padEnd(10)} ${String(r.postsPerSecond).padStart(10)} | ${String(r.listsPerSecond).padStart(14)} ` +
        `${String(r.listP50).padStart(5)} ${String(r.listP99).padStart(6)} | ${r.non2xx}`
    )
}
