import type { TestCompany } from '../harness'

/**
 * Per-user working-time versions (CONTRACT §11.2, §11.6) for the time-sheet tests, written through
 * `/v1/user-working-times`. Helpers make data: they return the response, the tests judge it.
 */
export type ShortTargets = Record<'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun', number>

export interface UserVersionBody {
  validFrom?: string
  targets?: ShortTargets
  note?: string | null
}

const COLLECTION = '/v1/user-working-times'

export const userWorkingTimes = {
  create: (company: TestCompany, userId: number, body: UserVersionBody) =>
    company.api.post(COLLECTION, { userId, ...body }),
  patch: (company: TestCompany, id: number, body: UserVersionBody) => company.api.patch(`${COLLECTION}/${id}`, body),
  remove: (company: TestCompany, id: number) => company.api.delete(`${COLLECTION}/${id}`)
}
