import assert from 'node:assert/strict'
import { MAX_TEXT_NAMES, nameOfText } from '../../../src/db/dialect'

/** `nameOfText` (src/db/dialect.ts): one name per text, a bounded number per purpose. */
describe('statement names by text', () => {
  it('gives one text always the same name, another text another, and names no more than the bound per purpose', () => {
    const purpose = `test ${process.pid}`
    const first = nameOfText(purpose, 'select 1')
    assert.match(first!, /^crewclock_[0-9a-f]{32}$/)
    assert.equal(nameOfText(purpose, 'select 1'), first)
    assert.notEqual(nameOfText(purpose, 'select 2'), first)
    for (let i = 3; i <= MAX_TEXT_NAMES; i++) assert.ok(nameOfText(purpose, `select ${i}`))
    // The bound is reached: a new text goes unnamed, the named ones keep their names.
    assert.equal(nameOfText(purpose, 'select -1'), undefined)
    assert.equal(nameOfText(purpose, 'select 1'), first)
    // Another purpose has its own bound; the same text gets the same name there (the name is the text's).
    assert.equal(nameOfText(`${purpose} other`, 'select 1'), first)
    assert.ok(nameOfText(`${purpose} other`, 'select -1'))
    // A name is at most PostgreSQL's 63 bytes, so the server never cuts two names to one.
    assert.ok(first!.length <= 63)
  })
})
