import { BadRequest, Gone } from '@feathersjs/errors'
import type { Knex } from 'knex'
import { committedHead, EVENT_TABLE, HEAD_TABLE, LogEntry } from './event-log'

/**
 * The change feed (CONTRACT §13.2, §13.6): a company's events after a cursor, in id order, up to
 * the newest id before which every event has committed (`committedHead`). A cursor is an event id
 * of the company's log (or 0, before the first); one older than retention (events after it were
 * pruned) is 410, anything else 400.
 */
export interface FeedQuery {
  /** The cursor; absent: from the oldest retained event. */
  after?: number
  size: number
  /** Only these types (null: every type). */
  types: string[] | null
  /** Only events whose scope is one of these (null: every scope). */
  scopes: string[] | null
}

export interface FeedPage {
  items: LogEntry[]
  next: string
}

/** A row of `event_log` as the feed and realtime delivery read it. */
export interface StoredEvent {
  id: number
  type: string
  occurredAt: unknown
  data: string
  actor: string
  requestId: string
}

/** The log entry a stored row stands for: the change feed's item, realtime's `crewclock event`. */
export const entryOf = (row: StoredEvent): LogEntry => ({
  id: String(row.id),
  type: row.type,
  occurredAt: new Date(row.occurredAt as string).toISOString(),
  data: JSON.parse(row.data),
  actor: JSON.parse(row.actor),
  requestId: row.requestId
})

/** The columns `entryOf` reads. */
export const ENTRY_COLUMNS = ['id', 'type', 'occurredAt', 'data', 'actor', 'requestId'] as const

const badCursor = (message: string) =>
  new BadRequest(`Invalid query: after ${message}`, { validationErrors: { after: message } })

/** 410 for a cursor whose following events retention deleted, 400 for one that is no id of this company's log. */
async function checkCursor(db: Knex, companyId: number, after: number, prunedThrough: number) {
  if (after === prunedThrough) return
  if (after < prunedThrough) {
    throw new Gone(
      `Events after ${after} are past retention and were deleted; sync again from a full listing (the feed keeps the events of the last days set by events.retentionDays)`,
      { validationErrors: { after: `is older than the retained events (the oldest follows ${prunedThrough})` } }
    )
  }
  if (after === 0) return
  const found = await db(EVENT_TABLE).where({ companyId, id: after }).first('id')
  if (!found) throw badCursor('is not an event id of this company (use the id of an event or the next of a page)')
}

export async function readFeed(db: Knex, companyId: number, query: FeedQuery): Promise<FeedPage> {
  const head = await db(HEAD_TABLE).where({ companyId }).first('prunedThrough')
  const prunedThrough = Number(head?.prunedThrough ?? 0)
  if (query.after !== undefined) await checkCursor(db, companyId, query.after, prunedThrough)
  const after = query.after ?? prunedThrough
  // The newest event up to which every event has committed first, so a filtered page that ends
  // early may move the cursor up to it past events it skipped.
  const last = await committedHead(db, companyId)
  if (last <= after || (query.types && query.types.length === 0) || (query.scopes && query.scopes.length === 0))
    return { items: [], next: String(Math.max(after, last)) }
  const rows = db(EVENT_TABLE)
    .where({ companyId })
    .where('id', '>', after)
    .where('id', '<=', last)
    .orderBy('id')
    .limit(query.size)
    .select(...ENTRY_COLUMNS)
  if (query.types) rows.whereIn('type', query.types)
  if (query.scopes) rows.whereIn('scope', query.scopes)
  const items = ((await rows) as StoredEvent[]).map(entryOf)
  const next = items.length === query.size ? items[items.length - 1].id : String(last)
  return { items, next }
}
