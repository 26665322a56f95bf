import assert from 'node:assert/strict'
import { changedColumns } from '../../../src/timesheets/sheet-rows'

/** `changedColumns` (src/timesheets/sheet-rows.ts): which recomputed columns differ from the stored row. */
describe('changed columns of a sheet row', () => {
  it('compares text that starts like an instant as text, and instants as instants', () => {
    // A note such as a manager may write: before, it was parsed as an instant and threw (a 500 on every recomputation).
    const note = '2026-05-01T wrong start'
    assert.deepEqual(changedColumns({ declinedNote: note }, { declinedNote: note }), {})
    assert.deepEqual(changedColumns({ declinedNote: note }, { declinedNote: `${note}!` }), {
      declinedNote: `${note}!`
    })
    // The same instant in the forms the databases give it (PostgreSQL's text with an offset, a Date) is no change.
    assert.deepEqual(
      changedColumns({ startsAt: '2026-05-01T09:00:00.000+00:00' }, { startsAt: '2026-05-01T09:00:00.000Z' }),
      {}
    )
    assert.deepEqual(
      changedColumns({ startsAt: new Date('2026-05-01T09:00:00.000Z') }, { startsAt: '2026-05-01T11:00:00+02:00' }),
      {}
    )
    assert.deepEqual(
      changedColumns({ startsAt: '2026-05-01T09:00:00.000Z' }, { startsAt: '2026-05-01T09:00:01.000Z' }),
      {
        startsAt: '2026-05-01T09:00:01.000Z'
      }
    )
  })
})
