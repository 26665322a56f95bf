import assert from 'node:assert/strict'
import { Conflict, NotFound } from '@feathersjs/errors'
import type { Knex } from 'knex'
import type { DatabaseSuite, TestCompany } from '../support/harness'
import { lockUserTime, recomputeUser } from '../../src/timesheets/recompute'
import { VersionRange, assertNoLockedMonthIn, earliestOf, rangeOf } from '../../src/timesheets/schedule-changes'
import { dayOf } from '../../src/timesheets/sheet-rows'

/**
 * Per-user working-time versions (CONTRACT §11.2, §11.6) for the time-sheet tests: written
 * through `/v1/user-working-times` when the server has the collection. It is being built on
 * another branch; until it lands, the same writes go to its table (`user_working_times`, which the
 * engine already reads) with the rules the contract gives the collection: 409 for a `validFrom`
 * the user already has or for a range (from `validFrom` to the next version) that reaches a locked
 * month, and the user's unlocked rows recomputed from the earliest day the write changes. So the
 * engine's side of user versions is tested now, and the same tests speak HTTP once the collection
 * is served. `served()` says which way the writes take (a test names it as pending while it is not).
 */
export type ShortTargets = Record<'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun', number>

export interface UserVersionBody {
  validFrom?: string
  targets?: ShortTargets
  note?: string | null
}

export interface Written {
  status: number
  body: any
  text: string
}

const COLLECTION = '/v1/user-working-times'

export function userWorkingTimes(suite: DatabaseSuite) {
  let served: Promise<boolean> | undefined
  const knex = () => suite.server().knex

  /** Whether the server has the collection: 200 for a list, or the router's 404 for an unknown path. */
  const isServed = (company: TestCompany) =>
    (served ??= company.api.get(COLLECTION).then((res) => {
      if (res.status === 200) return true
      assert.equal(res.status, 404, res.text)
      assert.equal(res.body.message, `Path ${COLLECTION} not found`)
      return false
    }))

  const item = (row: any) => ({
    id: Number(row.id),
    userId: Number(row.userId),
    validFrom: dayOf(row.validFrom),
    targets: typeof row.targets === 'string' ? JSON.parse(row.targets) : row.targets,
    note: row.note ?? null
  })

  /**
   * One write in a transaction under the user's lock, as the collection will do it: `work` checks
   * and writes, and returns the ranges it changed (from the versions as they were); a range that
   * reaches a locked month rolls the write back (409), else the user's rows are recomputed from
   * the earliest day of them.
   */
  async function viaTable(companyId: number, userId: number, status: number, work: (trx: Knex.Transaction, others: any[]) => Promise<{ id?: number; ranges: VersionRange[] }>): Promise<Written> {
    try {
      return await knex().transaction(async (trx) => {
        await lockUserTime(trx, { companyId, userId })
        const versions = (await trx('user_working_times').where({ companyId, userId }).orderBy('validFrom')).map(item)
        const { id, ranges } = await work(trx, versions)
        await assertNoLockedMonthIn(trx, companyId, userId, ranges)
        await recomputeUser(trx, companyId, userId, earliestOf(ranges))
        const body = id === undefined ? null : item(await trx('user_working_times').where({ id }).first())
        return { status, body, text: JSON.stringify(body) }
      })
    } catch (error) {
      if (error instanceof Conflict || error instanceof NotFound) return { status: error.code, body: error.toJSON(), text: error.message }
      throw error
    }
  }

  const taken = (validFrom: string) => new Conflict(`A working-time version of the user from ${validFrom} exists`)

  async function create(company: TestCompany, userId: number, body: UserVersionBody): Promise<Written> {
    if (await isServed(company)) return company.api.post(COLLECTION, { userId, ...body })
    return viaTable(company.id, userId, 201, async (trx, versions) => {
      const validFrom = body.validFrom!
      if (versions.some((v) => v.validFrom === validFrom)) throw taken(validFrom)
      const ranges = [rangeOf(validFrom, versions.map((v) => v.validFrom))]
      const now = new Date().toISOString()
      const [row] = await trx('user_working_times').insert({ companyId: company.id, userId, validFrom, targets: JSON.stringify(body.targets), note: body.note ?? null, createdAt: now, updatedAt: now }, ['id'])
      return { id: Number(row.id), ranges }
    })
  }

  async function patch(company: TestCompany, userId: number, id: number, body: UserVersionBody): Promise<Written> {
    if (await isServed(company)) return company.api.patch(`${COLLECTION}/${id}`, body)
    return viaTable(company.id, userId, 200, async (trx, versions) => {
      const existing = versions.find((v) => v.id === id)
      if (!existing) throw new NotFound(`No user working time ${id}`)
      const others = versions.filter((v) => v.id !== id).map((v) => v.validFrom)
      const validFrom = body.validFrom ?? existing.validFrom
      if (others.includes(validFrom)) throw taken(validFrom)
      const ranges = [rangeOf(existing.validFrom, others), rangeOf(validFrom, others)]
      await trx('user_working_times')
        .where({ id })
        .update({ validFrom, ...(body.targets ? { targets: JSON.stringify(body.targets) } : {}), updatedAt: new Date().toISOString() })
      return { id, ranges }
    })
  }

  async function remove(company: TestCompany, userId: number, id: number): Promise<Written> {
    if (await isServed(company)) return company.api.delete(`${COLLECTION}/${id}`)
    return viaTable(company.id, userId, 204, async (trx, versions) => {
      const existing = versions.find((v) => v.id === id)
      if (!existing) throw new NotFound(`No user working time ${id}`)
      const ranges = [rangeOf(existing.validFrom, versions.filter((v) => v.id !== id).map((v) => v.validFrom))]
      await trx('user_working_times').where({ id }).delete()
      return { ranges }
    })
  }

  return { served: isServed, create, patch, remove }
}
