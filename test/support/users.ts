import assert from 'node:assert/strict'
import type { TestCompany } from './harness'

let n = 0

/** A user of `company`, made through POST /v1/users with a unique email; `fields` add to or replace the defaults. */
export async function newUser(company: TestCompany, fields: Record<string, unknown> = {}): Promise<number> {
  n++
  const res = await company.api.post('/v1/users', {
    fullName: `Worker ${n}`,
    email: `user-${process.pid}-${Date.now()}-${n}@crew.test`,
    ...fields
  })
  assert.equal(res.status, 201, res.text)
  return res.body.id as number
}
