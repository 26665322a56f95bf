import assert from 'node:assert/strict'
import { defineResource } from '../../src/resources/define-resource'

/** `ReferenceSpec.lock`: a create reads one referenced record with its lock, never two or a list (their order could deadlock). */
describe('references read with their lock', () => {
  const define = (references: Record<string, { table: string; lock?: boolean; many?: boolean }>) => () =>
    defineResource({ path: 'things', entity: 'thing', methods: ['create'], fields: {}, references } as never)

  it('accepts one locked reference of one id', () => {
    assert.doesNotThrow(define({ userId: { table: 'users', lock: true }, typeId: { table: 'types' } }))
  })

  it('refuses two locked references and a locked list', () => {
    assert.throws(
      define({ userId: { table: 'users', lock: true }, otherId: { table: 'users', lock: true } }),
      /at most one reference/
    )
    assert.throws(define({ userIds: { table: 'users', lock: true, many: true } }), /at most one reference/)
  })
})
