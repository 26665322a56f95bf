import assert from 'node:assert/strict'
import fc from 'fast-check'
import { SearchSlots, searchLimitsFor, type SearchLimits } from '../../../src/db/search-slots'

const RUNS = Number(process.env.FC_RUNS ?? 100)

/** Lets granted waits resolve. */
const settle = () => new Promise((resolve) => setImmediate(resolve))

/** A search's turn as a test sees it: ended or not, and whether it was granted yet. */
interface Turn {
  company: number
  end?: () => void
  failed?: unknown
}

const granted = (turn: Turn) => turn.end !== undefined

function enter(slots: SearchSlots, company: number): Turn {
  const turn: Turn = { company }
  slots.enter(company).then(
    (end) => (turn.end = end),
    (error) => (turn.failed = error)
  )
  return turn
}

const limits = (overrides: Partial<SearchLimits> = {}): SearchLimits => ({
  total: 4,
  perCompany: 2,
  waitMs: 60_000,
  maxWaiting: 16,
  ...overrides
})

describe('search turns (src/db/search-slots.ts)', () => {
  it('leaves one read connection to other reads and gives a company half of the rest', () => {
    assert.deepEqual(searchLimitsFor(5, 5000), { total: 4, perCompany: 2, waitMs: 5000, maxWaiting: 1000 })
    // SQLite's two read connections; an in-memory database's one connection.
    assert.equal(searchLimitsFor(2, 5000).total, 1)
    assert.equal(searchLimitsFor(2, 5000).perCompany, 1)
    assert.equal(searchLimitsFor(1, 5000).total, 1)
    assert.equal(searchLimitsFor(10, 5000).perCompany, 4)
  })

  it('gives turns at once up to a company’s share and the total, then makes searches wait', async () => {
    const slots = new SearchSlots(limits())
    const a = [enter(slots, 1), enter(slots, 1), enter(slots, 1)]
    const b = [enter(slots, 2), enter(slots, 2), enter(slots, 2)]
    await settle()
    assert.deepEqual(
      [...a, ...b].map((turn) => turn.end !== undefined),
      [true, true, false, true, true, false]
    )
    assert.equal(slots.active, 4)
    // A company's ended search lets its own waiting one in (the other company holds its share).
    a[0].end!()
    await settle()
    assert.ok(a[2].end, 'company 1’s waiting search got the turn')
    assert.equal(b[2].end, undefined)
    assert.equal(slots.active, 4)
  })

  it('gives a freed turn to the companies in rotation, the one whose search ended behind the others', async () => {
    const slots = new SearchSlots(limits())
    const held = [enter(slots, 1), enter(slots, 1), enter(slots, 2), enter(slots, 2)]
    const waiting = [enter(slots, 1), enter(slots, 1), enter(slots, 1), enter(slots, 2), enter(slots, 3)]
    await settle()
    const order = () => waiting.filter(granted).map((turn) => turn.company)
    // Company 1 ends a search: company 3, which holds none, goes before company 1's own waiting
    // ones (company 2 holds its share).
    held[0].end!()
    await settle()
    assert.deepEqual(order(), [3])
    // Company 2 ends one: company 1's line is now ahead of company 2's, which just moved back.
    held[2].end!()
    await settle()
    assert.deepEqual(order(), [1, 3])
    // Company 1 ends another: company 2's turn.
    held[1].end!()
    await settle()
    assert.deepEqual(order(), [1, 2, 3])
  })

  it('gives a freed turn to the waiting company that holds the fewest, whatever the rotation', async () => {
    const slots = new SearchSlots(limits())
    const other = [enter(slots, 9), enter(slots, 9)]
    const running = [enter(slots, 1), enter(slots, 2)]
    const a = [running[0], enter(slots, 1)]
    const b = [running[1], enter(slots, 2)]
    await settle()
    assert.deepEqual(
      [a, b].map((turns) => turns.map(granted)),
      [
        [true, false],
        [true, false]
      ]
    )
    assert.equal(slots.waiting, 2)
    // Company 1's search ends: it now holds none, company 2 one, so company 1's waiting search
    // goes first although company 1 just moved behind company 2 in the rotation.
    a[0].end!()
    await settle()
    assert.ok(granted(a[1]))
    assert.equal(granted(b[1]), false)
    for (const turn of [...other, b[0]]) turn.end!()
    await settle()
    assert.ok(granted(b[1]))
    assert.equal(slots.waiting, 0)
  })

  it('makes a newcomer wait for the rest of one search of a busy company, not for its next one too', async () => {
    const slots = new SearchSlots(limits({ total: 1, perCompany: 1 }))
    const first = enter(slots, 1)
    const second = enter(slots, 1)
    await settle()
    const newcomer = enter(slots, 2)
    await settle()
    first.end!()
    await settle()
    assert.ok(granted(newcomer), 'the newcomer goes before the busy company’s next search')
    assert.equal(granted(second), false)
    newcomer.end!()
    await settle()
    assert.ok(granted(second))
    second.end!()
  })

  it('ends a turn once: a second call does not free another search’s turn', async () => {
    const slots = new SearchSlots(limits({ total: 1, perCompany: 1 }))
    const first = enter(slots, 1)
    const second = enter(slots, 2)
    const third = enter(slots, 3)
    await settle()
    first.end!()
    first.end!()
    await settle()
    assert.ok(second.end)
    assert.equal(third.end, undefined, 'one turn was freed, once')
    assert.equal(slots.active, 1)
  })

  it('refuses a wait that outlasts waitMs: 429 when the company holds its share, 503 when others hold the turns', async () => {
    const slots = new SearchSlots(limits({ total: 2, perCompany: 1, waitMs: 30 }))
    const a = enter(slots, 1)
    const b = enter(slots, 2)
    const ownShare = enter(slots, 1)
    const othersHoldAll = enter(slots, 3)
    await new Promise((resolve) => setTimeout(resolve, 80))
    assert.ok(a.end && b.end)
    const tooMany = ownShare.failed as { code: number; data: { retryAfter: number }; message: string }
    assert.equal(tooMany.code, 429)
    assert.equal(tooMany.data.retryAfter, 1)
    assert.match(tooMany.message, /\$like/)
    assert.equal((othersHoldAll.failed as { code: number }).code, 503)
    // The refused waits hold nothing and wait no more: ended turns go to no one.
    a.end!()
    b.end!()
    assert.equal(slots.active, 0)
    const next = enter(slots, 1)
    await settle()
    assert.ok(next.end)
  })

  it('refuses at once a company’s search past maxWaiting waiting ones', async () => {
    const slots = new SearchSlots(limits({ total: 1, perCompany: 1, maxWaiting: 2 }))
    const held = enter(slots, 1)
    const waiting = [enter(slots, 1), enter(slots, 1)]
    const refused = enter(slots, 1)
    const other = enter(slots, 2)
    await settle()
    assert.equal((refused.failed as { code: number }).code, 429)
    assert.equal(other.failed, undefined, 'another company still waits in its own line')
    held.end!()
    await settle()
    // Company 1's search ended: company 2's line goes first.
    assert.ok(granted(other))
    other.end!()
    await settle()
    assert.ok(granted(waiting[0]))
    waiting[0].end!()
    await settle()
    assert.ok(granted(waiting[1]))
    waiting[1].end!()
  })

  it('refuses every waiting search when closed, and every search after', async () => {
    const slots = new SearchSlots(limits({ total: 1, perCompany: 1 }))
    const running = enter(slots, 1)
    const waiting = [enter(slots, 1), enter(slots, 2)]
    await settle()
    slots.close()
    await settle()
    assert.deepEqual(
      waiting.map((turn) => (turn.failed as { code: number }).code),
      [503, 503]
    )
    running.end!()
    const late = enter(slots, 3)
    await settle()
    assert.equal((late.failed as { code: number }).code, 503)
    assert.equal(slots.active, 0)
  })

  it('never exceeds the total or a company’s share, and leaves no turn free while a search could take it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.oneof(fc.record({ enter: fc.integer({ min: 1, max: 4 }) }), fc.record({ end: fc.nat() })), {
          maxLength: 60
        }),
        async (total, share, steps) => {
          const perCompany = Math.min(share, total)
          const slots = new SearchSlots(limits({ total, perCompany, maxWaiting: steps.length }))
          const turns: Turn[] = []
          const check = () => {
            const running = turns.filter((turn) => turn.end && !('ended' in turn))
            assert.ok(running.length <= total, 'total')
            assert.equal(slots.active, running.length)
            const held = new Map<number, number>()
            for (const turn of running) held.set(turn.company, (held.get(turn.company) ?? 0) + 1)
            for (const count of held.values()) assert.ok(count <= perCompany, 'a company’s share')
            if (running.length < total)
              for (const turn of turns.filter((waiting) => !waiting.end))
                assert.equal(held.get(turn.company), perCompany, 'a search waits only behind its own company’s share')
          }
          for (const step of steps) {
            if ('enter' in step) turns.push(enter(slots, step.enter))
            else {
              const running = turns.filter((turn) => turn.end && !('ended' in turn))
              if (running.length > 0) {
                const turn = running[step.end % running.length]
                ;(turn as Turn & { ended?: true }).ended = true
                turn.end!()
              }
            }
            await settle()
            check()
          }
          // Every waiting search gets its turn as the others end.
          for (;;) {
            const running = turns.filter((turn) => turn.end && !('ended' in turn))
            if (running.length === 0) break
            for (const turn of running) {
              ;(turn as Turn & { ended?: true }).ended = true
              turn.end!()
            }
            await settle()
          }
          assert.ok(
            turns.every((turn) => turn.end),
            'every search had its turn'
          )
          assert.equal(slots.active, 0)
        }
      ),
      { numRuns: RUNS }
    )
  })
})
