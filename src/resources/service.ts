import { errorHandler, KnexAdapter } from '@feathersjs/knex'
import { BadRequest, FeathersError, GeneralError, NotFound } from '@feathersjs/errors'
import type { Knex } from 'knex'
import type { Id } from '@feathersjs/feathers'
import type { Application, Params } from '../declarations'
import type {
  Method,
  PlannedRemove,
  PlannedWrite,
  ReadContext,
  RemoveContext,
  Resource,
  Row,
  ValidationErrors,
  WriteContext
} from './define-resource'
import { decodeRow, encodeData } from './codec'
import { badRequest, bodyTitle, BodyErrorsSlot } from './validation'
import { checkReferences } from './references'
import { isForeignKeyViolation, stillReferenced } from './errors'
import type { Dialect, ListSearch } from '../db/dialect'
import { journalOf, loggedTransaction } from '../events/journal'

/** The column that carries a list's total on each of its rows (not a field of any resource). */
const LIST_TOTAL = 'listTotal'

export interface ListEnvelope<T = Row> {
  page: number
  pages: number
  size: number
  total: number
  items: T[]
}

/**
 * The one service class behind every declared resource: company-scoped reads, the list
 * envelope, and writes that run their checks, row, join tables and re-read in one transaction.
 */
export class ResourceService extends KnexAdapter<Row, Row, Params, Row> {
  constructor(
    readonly resource: Resource,
    readonly knex: Knex,
    /** What differs between the databases: `$like`, the search indexes, the count (src/db/dialect.ts). */
    readonly dialect: Dialect
  ) {
    super({
      Model: knex,
      name: resource.table,
      id: 'id',
      multi: false,
      paginate: { default: 10, max: 20 },
      extendedOperators: dialect.adapterOperators
    })
  }

  companyId(params?: Params): number {
    const id = params?.company?.id
    if (!id) throw new GeneralError('No company in the request context')
    return id
  }

  /** Selects the rows of the caller's company. */
  scoped(params?: Params) {
    return this.db(params).where(`${this.resource.table}.companyId`, this.companyId(params))
  }

  /**
   * The adapter's query, with the list's `$like` filters as the dialect writes them (when `search`
   * planned them) and the declaration's extra list filters (set on a find's `params.list`).
   */
  createQuery(params: Params = {}, search?: ListSearch) {
    const builder = super.createQuery(search ? { ...params, query: search.query } : params)
    search?.apply(builder)
    for (const [name, values] of params.list?.extra ?? [])
      this.resource.extraFilters![name].apply(builder, values, params)
    return builder
  }

  /** Rows as resources, with the declaration's virtual fields read on the call's transaction, if any. */
  async decode(rows: Row[], params: Params, method: Method = 'find'): Promise<Row[]> {
    const items = rows.map((row) => decodeRow(this.resource, row))
    if (this.resource.loadVirtual && items.length > 0) {
      const read: ReadContext = {
        app: this.app,
        params,
        method,
        companyId: this.companyId(params),
        db: params.transaction?.trx ?? this.knex,
        rows
      }
      await this.resource.loadVirtual(items, read)
    }
    return items
  }

  async find(params: Params = {}): Promise<ListEnvelope> {
    const list = params.list ?? { page: 0, size: 10, sort: [['id', 1]], where: {} }
    const { table } = this.resource
    const query = { ...list.where, [`${table}.companyId`]: this.companyId(params) }
    const db = params.transaction?.trx ?? this.knex
    const builder = this.createQuery(params, await this.dialect.searchList(db, table, query))
    // NULLs sort last in both directions on both databases (their defaults differ; knex's
    // SQLite emulation of `nulls last` drops the column, so the clause is written out).
    for (const [field, direction] of list.sort)
      builder.orderByRaw(`?? ${direction === 1 ? 'asc' : 'desc'} nulls last`, [`${table}.${field}`])
    const counting = this.dialect.count(builder)
    // The count rides along with the page as an uncorrelated subquery (both databases run it once
    // per statement): one statement per list, not two. A page past the end has no row to carry
    // it, and is counted apart; an empty first page means nothing matched.
    builder.select(counting.clone().as(LIST_TOTAL), ...(this.resource.readColumns?.(db, table) ?? []))
    builder.limit(list.size)
    if (list.page > 0) builder.offset(list.page * list.size)
    const { rows, total } = await this.readMatches(list.where, params, async () => {
      const rows: Row[] = await builder.catch(errorHandler)
      const total =
        rows.length > 0
          ? Number(rows[0][LIST_TOTAL])
          : list.page === 0
            ? 0
            : Number((await counting.catch(errorHandler))[0].total)
      return { rows, total }
    })
    const envelope: ListEnvelope = {
      page: list.page,
      pages: Math.ceil(total / list.size),
      size: list.size,
      total,
      items: await this.decode(rows, params, 'find')
    }
    return envelope
  }

  /**
   * Reads a list's matches: its page with the count, and the count of a page past the end. A
   * search's (a `$like` filter: these statements read as many rows as the company has matches)
   * waits for its turn first and holds it until both have answered (src/db/search-slots.ts); the
   * search's planning and the page's decoding take none. In a transaction it reads on the
   * transaction's own connection and takes no turn.
   */
  private async readMatches<T>(where: Row, params: Params, read: () => Promise<T>): Promise<T> {
    if (params.transaction || !isSearch(where)) return read()
    const end = await this.app.get('searchSlots').enter(this.companyId(params))
    try {
      return await read()
    } finally {
      end()
    }
  }

  async getRow(id: Id, params: Params): Promise<Row> {
    const { table, readColumns } = this.resource
    const query = this.scoped(params).andWhere(`${table}.id`, id)
    const row = await (readColumns
      ? query.first(`${table}.*`, ...readColumns(params.transaction?.trx ?? this.knex, table))
      : query.first())
    if (!row) throw new NotFound(`No ${this.resource.entity} with id ${id}`)
    return row
  }

  async get(id: Id, params: Params = {}): Promise<Row> {
    return this.read(id, params)
  }

  /** A scoped, decoded record without running the service hooks again (writes re-read with it). */
  async read(id: Id, params: Params): Promise<Row> {
    const [item] = await this.decode([await this.getRow(id, params)], params, 'get')
    return item
  }

  /**
   * Runs `work` in the request's transaction, or in a new one that commits when it returns; either
   * way as a logged write: the events it notes are appended to the log in that transaction
   * (src/events/journal.ts).
   */
  async inTransaction<T>(params: Params, work: (params: Params, trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return loggedTransaction(this.app, this.knex, params, work)
  }

  /** Notes the request's own record for the log; Feathers emits its socket event. */
  private logged(params: Params, action: 'created' | 'patched' | 'removed', record: Row) {
    journalOf(params).own(this.path, action, record)
  }

  /**
   * Every offending field in one 400 (issue #17): the schema errors `validateData` found, then the
   * references and the declaration's rules, which see only the fields that passed the schema.
   */
  private async prepareWrite(write: WriteContext<unknown>) {
    const errors: ValidationErrors = { ...(write.params as BodyErrorsSlot).invalidFields }
    const add = (found: ValidationErrors | void) => {
      for (const [path, message] of Object.entries(found ?? {}))
        if (!Object.hasOwn(errors, path)) errors[path] = message
    }
    write.referenced = {}
    add(await checkReferences(this.resource, write.data, write.companyId, write.trx, write.existing, write.referenced))
    add(await this.checkRules(write, Object.keys(errors).length > 0))
    if (Object.keys(errors).length > 0) throw badRequest(bodyTitle(this.resource, write.method), errors)
    // Without field errors, `beforeWrite` has left its plan (if it makes one) for the later stages.
    const planned = write as PlannedWrite<unknown>
    const row = encodeData(this.resource, write.data)
    await this.resource.toRow?.(row, planned)
    return { row, planned }
  }

  /**
   * The declaration's field errors. A rule may instead refuse the write (a 4xx such as a 409 state
   * conflict or a 403). That refusal decides only a body without invalid fields: a body naming
   * records the company does not have is a 400 (CONTRACT §2) even when a rule would also refuse
   * it. Then the fields the refusal names (`data.validationErrors`) join the 400, so the client
   * hears of both. Anything else a rule throws (a database error, a bug) is never hidden behind
   * the 400: it fails the request as it is.
   */
  private async checkRules(write: WriteContext<unknown>, invalidBody: boolean): Promise<ValidationErrors | void> {
    try {
      return await this.resource.beforeWrite?.(write)
    } catch (error) {
      if (!invalidBody || !isRefusal(error)) throw error
      return fieldsOf(error)
    }
  }

  /** The call a write or delete runs its declaration's stages in. */
  private callOf(params: Params, trx: Knex.Transaction) {
    return { app: this.app, params, companyId: this.companyId(params), trx }
  }

  async create(data: Row, params: Params = {}): Promise<Row> {
    if (Array.isArray(data)) throw new BadRequest('Create one record per request')
    return this.inTransaction(params, async (tx, trx) => {
      const write: WriteContext<unknown> = { ...this.callOf(tx, trx), method: 'create', data }
      const { row, planned } = await this.prepareWrite(write)
      const now = new Date().toISOString()
      const [inserted] = await this.db(tx).insert(
        { ...row, companyId: write.companyId, createdAt: now, updatedAt: now },
        ['id']
      )
      const id = typeof inserted === 'object' ? inserted.id : inserted
      await this.resource.afterWrite?.(id, planned)
      const created = await this.read(id, tx)
      this.logged(tx, 'created', created)
      return created
    })
  }

  async patch(id: Id | null, data: Row, params: Params = {}): Promise<Row> {
    if (id === null) throw new BadRequest('PATCH needs an id')
    return this.inTransaction(params, async (tx, trx) => {
      const [existing] = await this.decode([await this.getRow(id, tx)], tx, 'patch')
      const write: WriteContext<unknown> = { ...this.callOf(tx, trx), method: 'patch', data, existing }
      const { row, planned } = await this.prepareWrite(write)
      await this.scoped(tx)
        .andWhere('id', id)
        .update({ ...row, updatedAt: new Date().toISOString() })
      await this.resource.afterWrite?.(Number(id), planned)
      const patched = await this.read(id, tx)
      this.logged(tx, 'patched', patched)
      return patched
    })
  }

  async remove(id: Id | null, params: Params = {}): Promise<Row> {
    if (id === null) throw new BadRequest('DELETE needs an id')
    return this.inTransaction(params, async (tx, trx) => {
      const existing = await this.read(id, tx)
      const remove: RemoveContext<unknown> = { ...this.callOf(tx, trx), method: 'remove', id: Number(id), existing }
      await this.resource.beforeRemove?.(remove)
      await this.deleteRow(remove)
      // `beforeRemove` returned: its plan (if it makes one) is in place.
      await this.resource.afterRemove?.(remove as PlannedRemove<unknown>)
      this.logged(tx, 'removed', existing)
      return existing
    })
  }

  /**
   * Deletes the row in a savepoint, so that when a foreign key still references it (restricted
   * references: an assignment's customer, an event's type) the transaction stays usable on
   * PostgreSQL and the 409 can say what references the record and how many times.
   */
  private async deleteRow({ trx, companyId, id }: RemoveContext<unknown>) {
    try {
      await trx.transaction((savepoint) => savepoint(this.resource.table).where({ companyId, id }).delete())
    } catch (error) {
      if (!isForeignKeyViolation(error)) throw error
      throw await this.stillReferencedError(trx, companyId, id)
    }
  }

  /** Counts the records of every declared single reference to this resource's table (CONTRACT §5: 409 naming what references it). */
  private async stillReferencedError(trx: Knex.Transaction, companyId: number, id: number) {
    const sameTable = (table: string) =>
      table.replace(/_/g, '').toLowerCase() === this.resource.table.replace(/_/g, '').toLowerCase()
    const registered = ((this.app?.get('registry')?.resources ?? []) as { resource: Resource }[]).map(
      ({ resource }) => resource
    )
    const declarations = [...new Map(registered.map((resource) => [resource.path, resource])).values()]
    const references: Record<string, number> = {}
    const singulars: Record<string, string> = {}
    for (const referencing of declarations) {
      for (const [field, ref] of Object.entries(referencing.references ?? {})) {
        if (ref.many || !sameTable(ref.table)) continue
        const [{ count }] = await trx(referencing.table)
          .where({ companyId, [field]: id })
          .count({ count: '*' })
        if (Number(count) === 0) continue
        references[referencing.path] = (references[referencing.path] ?? 0) + Number(count)
        singulars[referencing.path] = referencing.displayName().toLowerCase()
      }
    }
    return stillReferenced(this.resource.displayName().toLowerCase(), references, singulars)
  }

  app!: Application
  /** The path the service is mounted at (`v1/customers`, `v1/assignments/:assignmentId/uploads`): its events' service. */
  path!: string
  async setup(app: Application, path: string) {
    this.app = app
    this.path = path
  }
}

/** A list filtered with `$like`: its cost grows with the company's rows, not only the page's. */
const isSearch = (where: Record<string, unknown>) =>
  Object.values(where).some((filter) => typeof filter === 'object' && filter !== null && '$like' in filter)

/** A rule refusing the write on its own terms (4xx), as opposed to failing. */
const isRefusal = (error: unknown): error is FeathersError =>
  error instanceof FeathersError && error.code >= 400 && error.code < 500

/** The field messages a refusal carries (CONTRACT §3.2 `data.validationErrors`). */
function fieldsOf(refusal: FeathersError): ValidationErrors {
  const named = refusal.data?.validationErrors
  if (!named || typeof named !== 'object') return {}
  return Object.fromEntries(
    Object.entries(named).filter((entry): entry is [string, string] => typeof entry[1] === 'string')
  )
}
