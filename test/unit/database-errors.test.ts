import assert from 'node:assert/strict'
import { toApiError } from '../../src/resources/errors'

/** How driver errors become answers (CONTRACT §10.3): a database that cannot serve now is a 503, not a 500. */
describe('database errors as answers', () => {
  const answer = (code: string, message = 'x') => toApiError(Object.assign(new Error(message), { code }))

  it('answers 503 for a database that is there but cannot serve now', () => {
    for (const code of [
      '55000',
      '53300',
      '3D000',
      '28P01',
      '57P04',
      '53100',
      '25006',
      'SQLITE_IOERR',
      'SQLITE_FULL',
      'SQLITE_READONLY'
    ])
      assert.equal(answer(code).code, 503, code)
  })

  it('keeps 500 for what waiting will not mend, and for what it does not know', () => {
    for (const code of ['SQLITE_CORRUPT', 'SQLITE_NOTADB', '42P01', 'EUNKNOWN'])
      assert.equal(answer(code).code, 500, code)
  })
})
