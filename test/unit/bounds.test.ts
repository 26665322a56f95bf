import assert from 'node:assert/strict'
import fc from 'fast-check'
import { absenceCoverage, absenceWorkDays } from '../../src/timesheets/absences'
import { addDays } from '../../src/timesheets/periods'
import { dayRuns } from '../../src/timesheets/recompute'
import { defaultWorkingTime, targetMinutes } from '../../src/timesheets/working-time'
import { FIRST_VERSION_DAY, Schedule } from '../../src/timesheets/schedule'
import { escapeLike, likeTokens } from '../../src/db/like-pattern'
import { likeToGlob } from '../../src/db/sqlite-like'
import { toApiError } from '../../src/resources/errors'

/** CONTRACT §10.3, bounds on work, the parts that need no database: test/sweeps/bounds.test.ts has the rest. */
describe('bounds on work (pure)', () => {
  const week = (targets: number[]) => {
    const model = defaultWorkingTime('DE')
    const weekdays = Object.keys(model.targetMinutes) as (keyof typeof model.targetMinutes)[]
    weekdays.forEach((weekday, i) => (model.targetMinutes[weekday] = targets[i]))
    return model
  }
  const targetsArb = fc.array(fc.constantFrom(0, 240, 480, 1400, 1440), { minLength: 7, maxLength: 7 })
  // Versions start on days of the absences' range, so that spans cross them often.
  const versionDay = fc.integer({ min: 0, max: 7400 }).map((n) => addDays('2010-01-01', n))

  it('counts work days in closed form exactly as day by day, across schedule versions and the employment start', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('Europe/Berlin', 'America/Santiago', 'UTC'),
        targetsArb,
        fc.array(fc.tuple(versionDay, targetsArb), { maxLength: 3 }),
        fc.array(fc.tuple(versionDay, targetsArb), { maxLength: 3 }),
        fc.option(versionDay),
        fc.boolean(),
        fc.integer({ min: Date.UTC(2010, 0, 1), max: Date.UTC(2030, 0, 1) }),
        fc.integer({ min: 1, max: 200 * 86_400_000 }),
        (zone, targets, companyVersions, userVersions, employedFrom, hourly, start, length) => {
          const unique = <T>(versions: [string, T][]) =>
            [...new Map(versions).entries()].sort(([a], [b]) => (a < b ? -1 : 1))
          const schedule = new Schedule(
            zone,
            [
              { validFrom: FIRST_VERSION_DAY, ...week(targets) },
              ...unique(companyVersions).map(([validFrom, t]) => ({ validFrom, ...week(t) }))
            ],
            unique(userVersions).map(([validFrom, t]) => ({ validFrom, targetMinutes: week(t).targetMinutes })),
            employedFrom
          )
          const absence = { startsAt: start, endsAt: start + length }
          let expected = 0
          for (const { day, minutes } of absenceCoverage(start, start + length, zone)) {
            const target = targetMinutes(schedule.on(day), day)
            if (target > 0) expected += hourly ? Math.min(1, minutes / target) : 1
          }
          assert.equal(absenceWorkDays(absence, hourly, schedule), Math.round((expected + Number.EPSILON) * 100) / 100)
        }
      ),
      { numRuns: 200 }
    )
  })

  it('recomputes runs that cover exactly the days of the periods', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 40 })), { maxLength: 12 }),
        (spans) => {
          const periods = spans.map(([from, length]): [string, string] => [
            addDays('2026-01-01', from),
            addDays('2026-01-01', from + length)
          ])
          const runs = dayRuns(periods)
          const days = (list: [string, string][]) => {
            const set = new Set<string>()
            for (const [first, last] of list) for (let day = first; day <= last; day = addDays(day, 1)) set.add(day)
            return [...set].sort()
          }
          assert.deepEqual(days(runs), days(periods))
          for (let i = 1; i < runs.length; i++)
            assert.ok(addDays(runs[i - 1][1], 1) < runs[i][0], 'runs are disjoint and not adjacent')
        }
      )
    )
  })

  it('maps every PostgreSQL data exception (class 22) to 400, naming the parameters it can', () => {
    const invalidEscape = toApiError({ code: '22025', message: 'invalid escape string' }, 'find', {
      companyName: { $like: 'x' },
      number: 'y'
    })
    assert.equal(invalidEscape.code, 400)
    assert.deepEqual(Object.keys((invalidEscape.data as any).validationErrors), ['companyName[$like]'])
    for (const code of ['22P02', '22003', '22007', '22008', '22012', '22023']) {
      const error = toApiError({ code, message: 'value out of range' }, 'find', { startsAt: { $gte: 'x' } })
      assert.equal(error.code, 400, code)
      assert.deepEqual(Object.keys((error.data as any).validationErrors), ['startsAt[$gte]'], code)
      assert.ok(!error.message.includes('out of range:'), 'no SQL text')
    }
    assert.equal(toApiError({ code: '42P01', message: 'relation does not exist' }).code, 500)
  })

  it('reads $like patterns the same way on every path', () => {
    assert.deepEqual(likeTokens('50\\%'), { tokens: [{ char: '5' }, { char: '0' }, { char: '%' }] })
    assert.ok('error' in likeTokens('50\\'))
    assert.ok('error' in likeTokens('\\a'))
    assert.equal(likeToGlob('%Ü\\_\\%\\\\*%'), '*[Üü]_%\\[*]*')
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (text) => {
        const parsed = likeTokens(escapeLike(text))
        assert.ok(!('error' in parsed))
        assert.equal(parsed.tokens.map((token) => ('char' in token ? token.char : '?')).join(''), text)
      })
    )
  })
})
