import { randomUUID } from 'node:crypto'
import type { Knex } from 'knex'
import type { Application, CompanyContext, Params } from '../declarations'
import { Actor, appendEvents, LogEntry, NewEvent } from './event-log'

/**
 * The events of one write, gathered while it runs and appended to the log at its end, in its
 * transaction (CONTRACT §13.1). The request's own record and every consequence (recomputed sheet
 * rows, fan-out moves, cascades) are noted by the code that causes them; a record noted twice is
 * one event (created and then changed: `created` with its final state). Records whose final state
 * is wanted are noted by id and read once, at the end, unless the code that wrote them last handed
 * over their stored row (a recomputation knows every row it wrote: issue #21); removed records are
 * noted with their state before the delete. Sockets get them from the log (src/events/delivery.ts), after the commit.
 */

type RecordAction = 'created' | 'patched' | 'removed'
type Row = Record<string, unknown>

/** What the journal needs of a mounted resource service (src/resources/service.ts's ResourceService). */
export interface LoggedService {
  resource: { path: string; table: string }
  decode(rows: Row[], params: Params, method?: 'get'): Promise<Row[]>
}

interface PendingRecord {
  kind: 'record'
  /** The Feathers service path the record belongs to (`v1/assignments/:assignmentId/uploads`). */
  path: string
  id: number
  action: RecordAction
  /** Known when noted (own record, removed record); else read at the end. */
  data?: Row
  /**
   * The stored row as its last writer left it, decoded at the end instead of read again. Only the
   * latest note's: a record noted again without one was changed since and is read.
   */
  stored?: Row
  /** The request's own record: it comes before its consequences (after them when removed). */
  own: boolean
}

interface PendingCompanyEvent {
  kind: 'company'
  type: string
  data: Row
}

type Pending = PendingRecord | PendingCompanyEvent

declare module '../declarations' {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- the augmentation must repeat the interface's type parameter
  interface Params<Q> {
    /** The events of the write this call is part of (set where its transaction starts). */
    eventJournal?: EventJournal
    /** The request's `X-Request-Id` (REST; set by the request log middleware). */
    requestId?: string
  }
  interface Configuration {
    /**
     * Told once a logged write has committed: its company and the id of its last event (realtime
     * wakes up the readers of that company's log on every instance; set by src/channels.ts).
     */
    eventLogAppended?: (companyId: number, lastId: number) => void
  }
}

/** `{ apiKeyId }` for a request with a key, `{ userId }` for a settings-page admin, else the server's own work. */
export function actorOf(params: Params): Actor {
  if (params.apiKey) return { apiKeyId: params.apiKey.id }
  if (params.settingsLogin && params.user) return { userId: params.user.id }
  return { system: true }
}

const sameRecord = (entry: Pending, path: string, id: number) =>
  entry.kind === 'record' && entry.path === path && entry.id === id

export class EventJournal {
  private entries: Pending[] = []
  readonly actor: Actor
  readonly requestId: string

  constructor(
    readonly company: CompanyContext,
    params: Params
  ) {
    this.actor = actorOf(params)
    this.requestId = params.requestId ?? randomUUID()
  }

  /**
   * Notes a record event; one per record: `created` stays `created` (with the later state),
   * `removed` wins over a change, a record created and removed in one write leaves no event.
   * `first` puts it before the events noted so far (a request's own created or changed record
   * comes before its consequences).
   */
  private note(entry: PendingRecord, first = false) {
    const index = this.entries.findIndex((other) => sameRecord(other, entry.path, entry.id))
    const previous = index >= 0 ? (this.entries[index] as PendingRecord) : undefined
    if (previous) this.entries.splice(index, 1)
    let merged: PendingRecord | null = entry
    if (previous) {
      const own = previous.own || entry.own
      if (previous.action === 'removed') merged = { ...previous, own }
      else if (entry.action === 'removed') merged = previous.action === 'created' ? null : { ...entry, own }
      else merged = { ...entry, action: previous.action, data: entry.data ?? previous.data, stored: entry.stored, own }
    }
    if (!merged) return
    if (first) this.entries.unshift(merged)
    else if (previous && !(entry.own && entry.action === 'removed')) this.entries.splice(index, 0, merged)
    else this.entries.push(merged)
  }

  /** The request's own record: created or changed first, removed after its cascades. */
  own(path: string, action: RecordAction, record: Row) {
    this.note({ kind: 'record', path, id: Number(record.id), action, data: record, own: true }, action !== 'removed')
  }

  /**
   * Records created or changed as a consequence, logged as they stand when the write ends: `stored`
   * holds the raw rows (by id) of those the caller has just written and knows in full; the others
   * are read at the end. A caller that writes a record after noting it must note it again.
   */
  touch(path: string, action: 'created' | 'patched', ids: number[], stored?: ReadonlyMap<number, Row>) {
    for (const id of ids)
      this.note({ kind: 'record', path, id: Number(id), action, stored: stored?.get(Number(id)), own: false })
  }

  /** Records removed as a consequence, in their state before the request removed them. */
  removed(path: string, records: Row[]) {
    for (const record of records)
      this.note({ kind: 'record', path, id: Number(record.id), action: 'removed', data: record, own: false })
  }

  /**
   * Stored rows of `path`'s table that the request removes with its record (a cascade), noted as
   * their service returns them now, before the delete. `extra` is what the service reads them
   * with besides the company (an upload's parent).
   */
  async removeRows(app: Application, trx: Knex.Transaction, path: string, rows: Row[], extra: Partial<Params> = {}) {
    if (rows.length === 0) return
    const service = app.service(path) as LoggedService
    this.removed(path, await service.decode(rows, this.readParams(trx, extra), 'get'))
  }

  /** An event about the company rather than one record (`company.recomputed`). */
  companyEvent(type: string, data: Row) {
    this.entries.push({ kind: 'company', type, data })
  }

  get isEmpty() {
    return this.entries.length === 0
  }

  /** The params to read records of this company with, on `trx`. */
  readParams(trx: Knex.Transaction, extra: Partial<Params> = {}): Params {
    return { ...extra, company: this.company, transaction: { trx, starting: false } }
  }

  /**
   * Decodes the records noted with their stored rows and reads the other records noted by id, as
   * their services return them; records gone by now are dropped.
   */
  private async readNoted(app: Application, trx: Knex.Transaction) {
    const wanted = new Map<string, number[]>()
    const known = new Map<string, Row[]>()
    for (const entry of this.entries) {
      if (entry.kind !== 'record' || entry.data) continue
      if (entry.stored) known.set(entry.path, [...(known.get(entry.path) ?? []), entry.stored])
      else wanted.set(entry.path, [...(wanted.get(entry.path) ?? []), entry.id])
    }
    const found = new Map<string, Row>()
    for (const [path, rows] of known) {
      const service = app.service(path) as LoggedService
      for (const record of await service.decode(rows, this.readParams(trx), 'get'))
        found.set(`${path} ${record.id}`, record)
    }
    for (const [path, ids] of wanted) {
      const service = app.service(path) as LoggedService
      for (let start = 0; start < ids.length; start += 500) {
        const rows = await trx(service.resource.table)
          .where({ companyId: this.company.id })
          .whereIn('id', ids.slice(start, start + 500))
          .orderBy('id')
        for (const record of await service.decode(rows, this.readParams(trx), 'get'))
          found.set(`${path} ${record.id}`, record)
      }
    }
    this.entries = this.entries.filter((entry) => {
      if (entry.kind !== 'record' || entry.data) return true
      entry.data = found.get(`${entry.path} ${entry.id}`)
      return entry.data !== undefined
    })
  }

  /**
   * Appends the noted events to the log in `trx` (the last statements of the write: on PostgreSQL
   * the company's log lock is held in shared mode from here to the commit, and a reader of the log
   * waits for it), and once the transaction has committed announces the company's new head
   * (`eventLogAppended`: realtime reads the log from there). Returns the log entries.
   */
  async commit(app: Application, trx: Knex.Transaction): Promise<LogEntry[]> {
    await this.readNoted(app, trx)
    if (this.entries.length === 0) return []
    const events: NewEvent[] = this.entries.map((entry) => {
      if (entry.kind === 'company') return { type: entry.type, scope: 'company', data: entry.data }
      const service = app.service(entry.path) as LoggedService
      return { type: `${service.resource.path}.${entry.action}`, scope: entry.path.split('/')[1], data: entry.data! }
    })
    const logged = await appendEvents(trx, this.company.id, events, { actor: this.actor, requestId: this.requestId })
    const announce = app.get('eventLogAppended')
    if (announce) {
      const companyId = this.company.id
      const lastId = Number(logged[logged.length - 1].id)
      trx.executionPromise.then(
        () => announce(companyId, lastId),
        () => undefined
      )
    }
    return logged
  }
}

/** The journal of the write `params` belongs to; a write outside a logged transaction is a bug. */
export function journalOf(params: Params): EventJournal {
  const journal = params.eventJournal
  if (!journal) throw new Error('A write ran outside a logged transaction (src/events/journal.ts loggedTransaction)')
  return journal
}

/**
 * Runs `work` as one logged write: in the call's transaction and journal when it has them,
 * else in a new transaction whose journal is appended to the log at the end of `work`, before
 * the commit. `params.company` names the company the events belong to.
 */
export async function loggedTransaction<T>(
  app: Application,
  knex: Knex,
  params: Params,
  work: (params: Params, trx: Knex.Transaction) => Promise<T>
): Promise<T> {
  const given = params.transaction?.trx as Knex.Transaction | undefined
  if (given && params.eventJournal) return work(params, given)
  const company = params.company
  if (!company) throw new Error('A logged write needs params.company')
  const run = async (trx: Knex.Transaction) => {
    const journal = new EventJournal(company, params)
    const result = await work({ ...params, transaction: { trx, starting: false }, eventJournal: journal }, trx)
    await journal.commit(app, trx)
    return result
  }
  return given ? run(given) : knex.transaction(run)
}
