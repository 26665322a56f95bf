import { defineResource, writable } from '../../resources/define-resource'
import type { Row } from '../../resources/define-resource'
import { IdList, Int32, Nullable, Str, Timestamp } from '../../resources/types'
import { defaultOrder } from '../../resources/ordering'
import { journalOf } from '../../events/journal'

/** Members live in `gang_users`; `userIds` is always the whole list (null or [] clears it), ascending. */
export const gangResource = defineResource({
  path: 'gangs',
  entity: 'Gang',
  methods: ['find', 'get', 'create', 'patch', 'remove'],
  fields: {
    name: writable(Str(255, { minLength: 1 }), { nullable: false }),
    order: writable(Int32(), { nullable: false }),
    userIds: writable(IdList(), { stored: false, nullable: false, writeSchema: Nullable(IdList()) }),
    deactivatedAt: writable(Timestamp()),
    externalId: writable(Str())
  },
  required: ['name'],
  references: { userIds: { table: 'users', many: true, active: true } },
  filters: ['id', 'name', 'externalId', 'createdAt', 'updatedAt'],
  beforeWrite: (write) => defaultOrder(write, 'gangs'),
  async afterWrite(gangId, { data, companyId, trx }) {
    if (data.userIds === undefined) return
    await trx('gangUsers').where({ companyId, gangId }).delete()
    const userIds: number[] = data.userIds ?? []
    if (userIds.length > 0) await trx('gangUsers').insert(userIds.map((userId) => ({ companyId, gangId, userId })))
  },
  async loadVirtual(items, { db, companyId }) {
    const rows: Row[] = await db('gangUsers')
      .where({ companyId })
      .whereIn(
        'gangId',
        items.map((item) => item.id)
      )
      .orderBy('userId')
    const members = new Map<number, number[]>(items.map((item) => [item.id, []]))
    for (const row of rows) members.get(Number(row.gangId))?.push(Number(row.userId))
    for (const item of items) item.userIds = members.get(item.id)
  },
  /** The events it was assigned to lose it (FK cascade): they are marked changed and logged. */
  async beforeRemove({ trx, companyId, id: gangId, params }) {
    await trx('gangUsers').where({ companyId, gangId }).delete()
    const events = trx('assignmentEventGangs').where({ companyId, gangId }).select('eventId')
    const ids: number[] = (await events.clone()).map((row: Row) => Number(row.eventId))
    if (ids.length === 0) return
    await trx('assignmentEvents')
      .where({ companyId })
      .whereIn('id', events)
      .update({ updatedAt: new Date().toISOString() })
    journalOf(params).touch('v1/assignment-events', 'patched', ids)
  }
})
