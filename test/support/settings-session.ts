import assert from 'node:assert/strict'
import bcrypt from 'bcryptjs'
import type { TestCompany, TestServer } from './harness'
import type { HttpClient } from './http'

/**
 * A settings-page session of a company's admin: the admin signs in with email and password
 * (`POST /authentication`, strategy `local`), as the settings page does, and the client sends the
 * token it gets. The admin's password is set to a hash of the lowest bcrypt cost first: a login
 * compares it in about a millisecond, where a hash of the real cost takes some 70 ms to create and
 * as much to compare, which a property test that creates a company per run would pay every run.
 */
const PASSWORD = 'settings session'
let cheapHash: string | undefined

export async function settingsSession(server: TestServer, company: TestCompany): Promise<HttpClient> {
  cheapHash ??= bcrypt.hashSync(PASSWORD, 4)
  const admin = server.knex('users').where({ id: company.adminUserId, companyId: company.id })
  const { email } = await admin.clone().first('email')
  await admin.clone().update({ passwordHash: cheapHash })
  const res = await server.http.post('/authentication', { strategy: 'local', email, password: PASSWORD })
  assert.equal(res.status, 201, res.text)
  return server.http.withKey(res.body.accessToken)
}
