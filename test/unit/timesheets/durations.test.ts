import assert from 'node:assert/strict'
import { coveredMs, roundMinutes, span, spansOverlap } from '../../../src/timesheets/durations'
import { changeClock, EntryClock, pauseErrors, workedMinutes } from '../../../src/timesheets/entry-clock'

const t = (iso: string) => Date.parse(iso)
const clock = (
  start: string,
  end: string | null,
  pauses: [string, string][] = [],
  pausedAt: string | null = null
): EntryClock => ({
  start: t(start),
  end: end === null ? null : t(end),
  pausedAt: pausedAt === null ? null : t(pausedAt),
  pauses: pauses.map(([s, e]) => ({ start: t(s), end: t(e) }))
})

describe('timesheets/durations', () => {
  it('rounds minutes to 2 decimals only at the edge', () => {
    assert.equal(roundMinutes(20 / 60), 0.33)
    assert.equal(roundMinutes(1.005), 1.01)
    assert.equal(roundMinutes(3 * (20 / 60)), 1)
  })

  it('treats a running span as reaching +infinity and the end as exclusive', () => {
    const a = span('2026-11-23T08:00:00Z', '2026-11-23T12:00:00Z')
    assert.equal(spansOverlap(a, span('2026-11-23T12:00:00Z', '2026-11-23T13:00:00Z')), false)
    assert.equal(spansOverlap(a, span('2026-11-23T11:59:00Z', '2026-11-23T13:00:00Z')), true)
    assert.equal(
      spansOverlap(span('2026-11-20T08:00:00Z', null), span('2026-11-30T08:00:00Z', '2026-11-30T09:00:00Z')),
      true
    )
    assert.equal(
      spansOverlap(span('2026-11-20T08:00:00Z', null), span('2026-11-19T08:00:00Z', '2026-11-19T09:00:00Z')),
      false
    )
    // A zero-length entry inside another one collides with it.
    assert.equal(spansOverlap(a, span('2026-11-23T09:00:00Z', '2026-11-23T09:00:00Z')), true)
    assert.equal(spansOverlap(a, span('2026-11-23T12:00:00Z', '2026-11-23T12:00:00Z')), false)
  })

  it('counts time shared by several spans once and clips them to the window', () => {
    const spans = [
      { start: 0, end: 10 },
      { start: 5, end: 15 },
      { start: 20, end: 40 }
    ]
    assert.equal(coveredMs(spans, 0, 100), 35)
    assert.equal(coveredMs(spans, 8, 30), 7 + 10)
  })
})

describe('timesheets/entry-clock', () => {
  it('subtracts every paused span from the duration, exactly', () => {
    const c = clock('2026-11-23T08:00:00Z', '2026-11-23T16:30:00Z', [
      ['2026-11-23T10:00:00Z', '2026-11-23T10:15:20Z'],
      ['2026-11-23T12:00:00Z', '2026-11-23T12:30:00Z']
    ])
    assert.equal(workedMinutes(c), 510 - 15 - 20 / 60 - 30)
    assert.equal(roundMinutes(workedMinutes(c)!), 464.67)
  })

  it('has no duration while running and counts a pause open at the end up to the end', () => {
    assert.equal(workedMinutes(clock('2026-11-23T08:00:00Z', null)), null)
    assert.equal(workedMinutes(clock('2026-11-23T08:00:00Z', '2026-11-23T09:00:00Z', [], '2026-11-23T08:45:00Z')), 45)
  })

  it('measures elapsed time across a DST change and midnight', () => {
    // 00:30 to 03:30 Berlin time on 29 March 2026 is 2 hours: 02:00–03:00 does not exist.
    assert.equal(workedMinutes(clock('2026-03-29T00:30:00+01:00', '2026-03-29T03:30:00+02:00')), 120)
    // 01:30 CEST to 02:30 CET on 25 October 2026 is 2 hours: 02:00–03:00 happens twice.
    assert.equal(workedMinutes(clock('2026-10-25T01:30:00+02:00', '2026-10-25T02:30:00+01:00')), 120)
  })

  it('ignores the parts of pauses outside the entry', () => {
    const c = clock('2026-11-23T09:00:00Z', '2026-11-23T10:00:00Z', [['2026-11-23T08:30:00Z', '2026-11-23T09:10:00Z']])
    assert.equal(workedMinutes(c), 50)
  })

  it('pauses a running entry, resumes it now and records the closed pause', () => {
    const running = clock('2026-11-23T08:00:00Z', null)
    const paused = changeClock(running, { pausedAt: t('2026-11-23T10:00:00Z') }, t('2026-11-23T10:00:05Z'))
    assert.ok(paused.ok)
    assert.equal(paused.clock.pausedAt, t('2026-11-23T10:00:00Z'))
    assert.equal(paused.closedPause, null)
    const resumed = changeClock(paused.clock, { pausedAt: null }, t('2026-11-23T10:20:00Z'))
    assert.ok(resumed.ok)
    assert.equal(resumed.clock.pausedAt, null)
    assert.deepEqual(resumed.closedPause, { start: t('2026-11-23T10:00:00Z'), end: t('2026-11-23T10:20:00Z') })
    const ended = changeClock(resumed.clock, { end: t('2026-11-23T12:00:00Z') }, t('2026-11-23T12:00:00Z'))
    assert.ok(ended.ok)
    assert.equal(workedMinutes(ended.clock), 240 - 20)
  })

  it('closes the current pause at endsAt when a paused entry is ended', () => {
    const paused = clock('2026-11-23T08:00:00Z', null, [], '2026-11-23T11:00:00Z')
    const ended = changeClock(paused, { end: t('2026-11-23T11:30:00Z') }, t('2026-11-23T15:00:00Z'))
    assert.ok(ended.ok)
    assert.deepEqual(ended.closedPause, { start: t('2026-11-23T11:00:00Z'), end: t('2026-11-23T11:30:00Z') })
    assert.equal(ended.clock.pausedAt, null)
    assert.equal(workedMinutes(ended.clock), 180)
  })

  it('refuses pausing a finished or already paused entry (409) and bad instants (400)', () => {
    const refused = (outcome: ReturnType<typeof changeClock>) => (outcome.ok ? null : [outcome.status, outcome.field])
    assert.deepEqual(
      refused(
        changeClock(clock('2026-11-23T08:00:00Z', '2026-11-23T09:00:00Z'), { pausedAt: t('2026-11-23T08:30:00Z') }, 0)
      ),
      [409, 'pausedAt']
    )
    assert.deepEqual(
      refused(
        changeClock(
          clock('2026-11-23T08:00:00Z', null, [], '2026-11-23T08:10:00Z'),
          { pausedAt: t('2026-11-23T08:30:00Z') },
          0
        )
      ),
      [409, 'pausedAt']
    )
    assert.deepEqual(
      refused(changeClock(clock('2026-11-23T08:00:00Z', null), { pausedAt: t('2026-11-23T07:00:00Z') }, 0)),
      [400, 'pausedAt']
    )
    const afterPause = clock('2026-11-23T08:00:00Z', null, [['2026-11-23T09:00:00Z', '2026-11-23T09:30:00Z']])
    assert.deepEqual(refused(changeClock(afterPause, { pausedAt: t('2026-11-23T09:15:00Z') }, 0)), [400, 'pausedAt'])
    assert.deepEqual(refused(changeClock(clock('2026-11-23T08:00:00Z', null), { end: t('2026-11-23T07:00:00Z') }, 0)), [
      400,
      'endsAt'
    ])
    assert.deepEqual(
      refused(
        changeClock(
          clock('2026-11-23T08:00:00Z', null, [], '2026-11-23T10:00:00Z'),
          { end: t('2026-11-23T09:00:00Z') },
          0
        )
      ),
      [400, 'endsAt']
    )
    assert.deepEqual(
      refused(
        changeClock(
          clock('2026-11-23T08:00:00Z', null, [], '2026-11-23T10:00:00Z'),
          { start: t('2026-11-23T10:30:00Z') },
          0
        )
      ),
      [400, 'startsAt']
    )
  })

  it('treats resuming an entry that is not paused as a no-op', () => {
    const outcome = changeClock(clock('2026-11-23T08:00:00Z', null), { pausedAt: null }, t('2026-11-23T09:00:00Z'))
    assert.ok(outcome.ok)
    assert.equal(outcome.closedPause, null)
    assert.deepEqual(outcome.clock.pauses, [])
  })

  it('starts a new clock on create', () => {
    const outcome = changeClock(null, { start: t('2026-11-23T08:00:00Z'), end: t('2026-11-23T08:45:00Z') }, 0)
    assert.ok(outcome.ok)
    assert.equal(workedMinutes(outcome.clock), 45)
  })
  it('replaces the pause list, sorted, the open pause as pausedAt; resumedAt back-fills a close', () => {
    const running = clock('2026-11-23T08:00:00Z', null)
    const listed = changeClock(
      running,
      {
        pauses: [
          { start: t('2026-11-23T11:00:00Z'), end: null },
          { start: t('2026-11-23T09:00:00Z'), end: t('2026-11-23T09:30:00Z') }
        ]
      },
      0
    )
    assert.ok(listed.ok)
    assert.equal(listed.clock.pausedAt, t('2026-11-23T11:00:00Z'))
    assert.deepEqual(listed.clock.pauses, [{ start: t('2026-11-23T09:00:00Z'), end: t('2026-11-23T09:30:00Z') }])
    const resumed = changeClock(
      listed.clock,
      { pausedAt: null, resumedAt: t('2026-11-23T11:10:00Z') },
      t('2026-11-23T15:00:00Z')
    )
    assert.ok(resumed.ok)
    assert.deepEqual(resumed.closedPause, { start: t('2026-11-23T11:00:00Z'), end: t('2026-11-23T11:10:00Z') })
    const early = changeClock(listed.clock, { pausedAt: null, resumedAt: t('2026-11-23T10:00:00Z') }, 0)
    assert.deepEqual(early.ok ? null : [early.status, early.field], [400, 'resumedAt'])
    // A shorter span must still hold the stored pauses.
    const cut = changeClock(
      clock('2026-11-23T08:00:00Z', '2026-11-23T12:00:00Z', [['2026-11-23T11:00:00Z', '2026-11-23T11:30:00Z']]),
      { end: t('2026-11-23T11:15:00Z') },
      0
    )
    assert.deepEqual(cut.ok ? null : [cut.status, cut.field], [400, 'endsAt'])
  })

  it('names the offending pause of a list by its index as sent', () => {
    const entry = { start: t('2026-11-23T08:00:00Z'), end: t('2026-11-23T12:00:00Z') }
    const p = (start: string, end: string | null) => ({ start: t(start), end: end === null ? null : t(end) })
    assert.deepEqual(
      pauseErrors(
        [p('2026-11-23T11:00:00Z', '2026-11-23T12:00:00Z'), p('2026-11-23T08:00:00Z', '2026-11-23T11:00:00Z')],
        entry
      ),
      {}
    )
    assert.deepEqual(
      Object.keys(
        pauseErrors(
          [p('2026-11-23T10:00:00Z', '2026-11-23T11:00:00Z'), p('2026-11-23T09:00:00Z', '2026-11-23T10:30:00Z')],
          entry
        )
      ),
      ['pauses.0.startsAt']
    )
    assert.deepEqual(Object.keys(pauseErrors([p('2026-11-23T07:00:00Z', '2026-11-23T08:30:00Z')], entry)), [
      'pauses.0.startsAt'
    ])
    assert.deepEqual(Object.keys(pauseErrors([p('2026-11-23T11:00:00Z', '2026-11-23T12:01:00Z')], entry)), [
      'pauses.0.endsAt'
    ])
    assert.deepEqual(Object.keys(pauseErrors([p('2026-11-23T10:00:00Z', '2026-11-23T09:00:00Z')], entry)), [
      'pauses.0.endsAt'
    ])
    assert.deepEqual(Object.keys(pauseErrors([p('2026-11-23T10:00:00Z', null)], entry)), ['pauses.0.endsAt'])
    const running = { start: entry.start, end: null }
    assert.deepEqual(pauseErrors([p('2026-11-23T10:00:00Z', null)], running), {})
    assert.deepEqual(
      Object.keys(pauseErrors([p('2026-11-23T10:00:00Z', null), p('2026-11-23T11:00:00Z', null)], running)).sort(),
      ['pauses.1.endsAt', 'pauses.1.startsAt']
    )
  })
})
