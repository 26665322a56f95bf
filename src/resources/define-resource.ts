import { Type, TSchema, TObject } from '@feathersjs/typebox'
import type { Static } from '@feathersjs/typebox'
import type { Knex } from 'knex'
import type { Application, Params } from '../declarations'
import { Id, Nullable, Timestamp } from './types'

export type Method = 'find' | 'get' | 'create' | 'patch' | 'remove'

/** How a field may be written; every other rule (validators, 400 messages, docs) is derived from this. */
export interface FieldSpec {
  schema: TSchema
  /** Schema of the value in write bodies when it differs from the response (e.g. address strings). */
  writeSchema?: TSchema
  /**
   * Schema of the value in PATCH bodies when it differs from `writeSchema`: a catalogue reference
   * or an order that a create may send as null (the default) but a PATCH cannot clear.
   */
  patchSchema?: TSchema
  create: boolean
  patch: boolean
  output: boolean
  /** Output may be null and writes may clear it. Defaults to true except for id and the audit timestamps. */
  nullable: boolean
  /** Stored as a JSON document. */
  json: boolean
  /** Stored in the resource's own table (false: filled by the resource's hooks, e.g. join tables). */
  stored: boolean
}

type FieldOptions = Partial<Pick<FieldSpec, 'writeSchema' | 'patchSchema' | 'nullable' | 'json' | 'stored'>>

const field = (
  schema: TSchema,
  modes: Pick<FieldSpec, 'create' | 'patch' | 'output'>,
  options: FieldOptions = {}
): FieldSpec => ({
  schema,
  nullable: true,
  json: false,
  stored: true,
  ...modes,
  ...options
})

/**
 * A field with its value and write types carried at the type level, so the typed client
 * (src/client.ts) derives every resource's result, create and patch types from the declaration.
 */
export interface TypedField<
  S extends TSchema,
  W,
  C extends boolean,
  P extends boolean,
  O extends boolean
> extends FieldSpec {
  schema: S
  create: C
  patch: P
  output: O
  /** Type-level only: the value accepted in write bodies. */
  readonly __write?: W
}

/** Set by the service only. */
export const output = <S extends TSchema>(schema: S, options?: FieldOptions) =>
  field(schema, { create: false, patch: false, output: true }, options) as TypedField<S, never, false, false, true>
/**
 * Writable on create and PATCH. `W` is the write value's type; give it explicitly where a
 * `writeSchema` accepts another shape (`writable<typeof Address, string>(...)`).
 */
export const writable = <S extends TSchema, W = Static<S>>(schema: S, options?: FieldOptions) =>
  field(schema, { create: true, patch: true, output: true }, options) as TypedField<S, W, true, true, true>
/** Writable on create only. */
export const createOnly = <S extends TSchema, W = Static<S>>(schema: S, options?: FieldOptions) =>
  field(schema, { create: true, patch: false, output: true }, options) as TypedField<S, W, true, false, true>
/** Writable by PATCH only. */
export const patchOnly = <S extends TSchema, W = Static<S>>(schema: S, options?: FieldOptions) =>
  field(schema, { create: false, patch: true, output: true }, options) as TypedField<S, W, false, true, true>
/** Accepted in writes, never returned (passwords, manual overrides). */
export const writeOnly = <S extends TSchema>(schema: S, options?: FieldOptions & { create?: boolean }) =>
  field(schema, { create: options?.create ?? true, patch: true, output: false }, options) as TypedField<
    S,
    Static<S>,
    boolean,
    true,
    false
  >

type ValueOf<F> = F extends { schema: infer S extends TSchema } ? Static<S> : unknown
type WriteValueOf<F> = F extends { readonly __write?: infer W } ? W : unknown
type NeverNull = 'id' | 'createdAt' | 'updatedAt'

/** A resource as responses carry it. */
export type ResultOf<F> = {
  [K in keyof F as F[K] extends { output: true } ? K : never]: K extends NeverNull
    ? ValueOf<F[K]>
    : ValueOf<F[K]> | null
}
/** A create body. */
export type DataOf<F> = { [K in keyof F as F[K] extends { create: true } ? K : never]?: WriteValueOf<F[K]> | null }
/** A PATCH body. */
export type PatchOf<F> = { [K in keyof F as F[K] extends { patch: true } ? K : never]?: WriteValueOf<F[K]> | null }

/**
 * A stored row or a record in the machinery and the declarations' callbacks. Knex hands rows back
 * untyped and a declaration says its fields at run time only; the typed views of a resource are
 * ResultOf/DataOf/PatchOf. Reading a field narrows where the rules need it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- library seam: knex rows, fields known at run time
export type Row = Record<string, any>
export type ValidationErrors = Record<string, string>

/**
 * The write or delete a declaration callback runs in: the app, the call's params (company, acting
 * user, provider), the company and the call's transaction, which every stage of it shares. Callbacks
 * take what they need from here, never from a hook context.
 */
export interface ResourceCall {
  app: Application
  params: Params
  method: 'create' | 'patch' | 'remove'
  companyId: number
  trx: Knex.Transaction
}

/**
 * A page of records being filled in (`loadVirtual`). `db` is the call's transaction when the read
 * is part of a write, else the pool: a list or get runs in none. `rows[i]` is the stored row of the
 * page's `items[i]`, for columns the resource does not return as they are (milliseconds).
 */
export interface ReadContext {
  app: Application
  params: Params
  method: Method
  companyId: number
  db: Knex
  rows: Row[]
}

/**
 * One create or PATCH, from `beforeWrite` through `toRow` to `afterWrite`. `beforeWrite` may leave
 * a `plan` (what it decided: the user it locked, the days it touches, ...) for the later stages
 * of the same write, which get it typed (`PlannedWrite`).
 */
export interface WriteContext<Plan = undefined> extends ResourceCall {
  method: 'create' | 'patch'
  /** The validated body, camelCase, as the client sent it. */
  data: Row
  /** The stored record before a PATCH, as a resource. */
  existing?: Row
  /**
   * The stored rows the body's references name, by field and id, as the reference check read
   * them (a rule takes them from here instead of selecting them again).
   */
  referenced?: Record<string, Map<number, Row>>
  plan?: Plan
}

/** A write after `beforeWrite` found no field errors: its plan is in place. */
export interface PlannedWrite<Plan = undefined> extends WriteContext<Plan> {
  plan: Plan
}

/** One delete, from `beforeRemove` through `afterRemove`, in `trx`; `beforeRemove` may plan for `afterRemove`. */
export interface RemoveContext<Plan = undefined> extends ResourceCall {
  method: 'remove'
  id: number
  /** The record as it was before the delete, as a resource. */
  existing: Row
  plan?: Plan
}

/** A delete after `beforeRemove` returned: its plan is in place. */
export interface PlannedRemove<Plan = undefined> extends RemoveContext<Plan> {
  plan: Plan
}

export interface ReferenceSpec {
  table: string
  /** The referenced record must not be deactivated (for new references). */
  active?: boolean
  /** The field holds a list of ids. */
  many?: boolean
  /**
   * A create reads the referenced record with its write lock (`lockedForWrite`), noted for the
   * transaction (`noteLocked`): for a record the resource's rules lock anyway, such as the user
   * whose time an entry or absence is (`lockUserTime`), whose lock then takes no statement of its
   * own. Only the records found are locked (the company's own). At most one field of a resource,
   * never a `many` one: two locks taken in the order of the body's fields could deadlock.
   */
  lock?: boolean
}

/** A list filter that is not a column: `name=value` or `name[$in]=...`, applied by `apply`. */
export interface ExtraFilter {
  /** Schema of one value. */
  schema: TSchema
  /** Narrows the list query to rows that match one of `values`. */
  apply: (builder: Knex.QueryBuilder, values: unknown[], params: Params) => void
}

/**
 * A resource as one declaration. `Plan` and `RemovePlan` are what its `beforeWrite` and
 * `beforeRemove` hand to the later stages of the same call (inferred from the callbacks).
 */
// The callbacks are methods: a declaration with its own plan types is a Resource (of unknown plans)
// where the machinery holds declarations of every kind.
export interface ResourceDeclaration<Plan = unknown, RemovePlan = unknown> {
  /** Collection path segment under /v1, e.g. `customers`. */
  path: string
  /** The table; `defineResource` derives it from the path (`time-entries`: `time_entries`). */
  table: string
  /** Singular entity name used in schemas and messages, e.g. `Customer`. */
  entity: string
  /** Name of the path parameter; `defineResource` derives it from the entity (`Customer`: `customerId`). */
  idParam: string
  /** Localized display names (spec table); English is the entity name split into words. */
  displayNames?: { DE?: string; IT?: string; EN?: string }
  methods: Method[]
  fields: Record<string, FieldSpec>
  /** Fields required in a create body. */
  required?: string[]
  /** List filters (spec "Filters on list"); also the sortable fields. */
  filters: string[]
  /** Documented extra list filters that are not columns (e.g. through a join table). */
  extraFilters?: Record<string, ExtraFilter>
  /** Allowed values of enum-like filters that have no enum in the schema. */
  references?: Record<string, ReferenceSpec>
  /**
   * A rule over several fields of a create body, for the API description: `anyOf` of required
   * sets and a sentence. `beforeWrite` enforces it (with its own messages; it also holds after a PATCH).
   */
  createRule?: { description: string; anyOf: object[] }
  /**
   * Company-level checks and defaults that a schema cannot express; returns field errors (all of
   * them, also when the body has invalid fields: it sees only the fields that passed the schema).
   * It may refuse the write by throwing (a 409 state conflict, a 403); see `ResourceService.checkRules`
   * for how a refusal meets field errors. When it returns no field errors, the `plan` it set is
   * what `toRow` and `afterWrite` read.
   */
  beforeWrite?(write: WriteContext<Plan>): Promise<ValidationErrors | void>
  /** Changes the raw row after the generic mapping (hash passwords, normalise emails, ...). */
  toRow?(row: Row, write: PlannedWrite<Plan>): Promise<void> | void
  /** Writes what lives outside the resource's own row (join tables), in the request transaction. */
  afterWrite?(id: number, write: PlannedWrite<Plan>): Promise<void>
  /** Fills fields that are not stored in the row, for a page of results at once (inside a write, on its transaction). */
  loadVirtual?(items: Row[], read: ReadContext): Promise<void>
  /**
   * Extra columns a list or get selects with the page's rows (correlated subqueries over the
   * table `table`), which `loadVirtual` finds on `rows` instead of reading them with a statement
   * of its own. Rows read elsewhere (a write's journal) lack them; `loadVirtual` reads those.
   */
  readColumns?(db: Knex, table: string): Knex.Raw[]
  /** Checks (409 when still referenced) and cascades before a delete, in the request transaction. */
  beforeRemove?(remove: RemoveContext<RemovePlan>): Promise<void>
  /** Follow-up work once the row is gone (derived aggregates), in the request transaction. */
  afterRemove?(remove: PlannedRemove<RemovePlan>): Promise<void>
}

export interface Resource<Plan = unknown, RemovePlan = unknown> extends ResourceDeclaration<Plan, RemovePlan> {
  schema: TObject
  createSchema: TObject
  patchSchema: TObject
  outputFields: string[]
  columnFields: string[]
  displayName: (country?: string) => string
}

const requiredOutput = new Set(['id', 'createdAt', 'updatedAt'])

const writeBodySchema = (decl: ResourceDeclaration, method: 'create' | 'patch') => {
  const required = new Set(method === 'create' ? (decl.required ?? []) : [])
  const properties: Record<string, TSchema> = {}
  for (const [name, spec] of Object.entries(decl.fields)) {
    if (!spec[method]) continue
    const schema = (method === 'patch' ? spec.patchSchema : undefined) ?? spec.writeSchema ?? spec.schema
    // Optional fields accept null (= clear it); required and non-nullable fields can never be cleared.
    const value = (decl.required ?? []).includes(name) || !spec.nullable ? schema : Nullable(schema)
    properties[name] = required.has(name) ? value : Type.Optional(value)
  }
  const suffix = method === 'create' ? 'Data' : 'Patch'
  return Type.Object(properties, { $id: `${decl.entity}${suffix}`, additionalProperties: false })
}

/** Type-level description of a declared resource, for the typed client. */
export interface ResourceTypes<F> {
  result: ResultOf<F>
  data: DataOf<F>
  patch: PatchOf<F>
}

const standardId = () => output(Id())
const standardTimestamp = () => output(Timestamp())
/** The fields every resource has: its id, first, and the audit timestamps, last. */
type StandardFields = {
  id: ReturnType<typeof standardId>
  createdAt: ReturnType<typeof standardTimestamp>
  updatedAt: ReturnType<typeof standardTimestamp>
}

/**
 * A declaration as written: `table`, `idParam` and the standard fields (`id`, `createdAt`,
 * `updatedAt`) are derived; a resource that differs gives its own.
 */
export type ResourceInput<Plan, RemovePlan, F> = Omit<ResourceDeclaration<Plan, RemovePlan>, 'table' | 'idParam'> &
  Partial<Pick<ResourceDeclaration, 'table' | 'idParam'>> & { fields: F }

/** `time-entries` (the last path segment): `time_entries`. */
const tableOf = (path: string) => path.split('/').pop()!.replace(/-/g, '_')
/** `TimeEntry`: `timeEntryId`. */
const idParamOf = (entity: string) => `${entity[0].toLowerCase()}${entity.slice(1)}Id`

/**
 * Builds a resource from its declaration. The path and methods keep their literal types: the app's
 * ServiceTypes and the typed client are derived from them (src/services/declared.ts).
 */
export function defineResource<
  F extends Record<string, FieldSpec>,
  Plan = undefined,
  RemovePlan = undefined,
  P extends string = string,
  M extends Method = Method
>(
  input: ResourceInput<Plan, RemovePlan, F> & { path: P; methods: M[] }
): Resource<Plan, RemovePlan> & { path: P; methods: M[]; types?: ResourceTypes<StandardFields & F> } {
  const fields: Record<string, FieldSpec> = { id: standardId(), ...input.fields }
  fields.createdAt ??= standardTimestamp()
  fields.updatedAt ??= standardTimestamp()
  const decl: ResourceDeclaration<Plan, RemovePlan> = {
    ...input,
    table: input.table ?? tableOf(input.path),
    idParam: input.idParam ?? idParamOf(input.entity),
    fields
  }
  for (const name of Object.keys(decl.fields)) {
    if (requiredOutput.has(name)) decl.fields[name].nullable = false
  }
  // Locks are taken in a fixed order (a company-wide recomputation locks users in id order): a
  // create may lock one referenced record, never a list of them or two fields' records.
  const locked = Object.entries(decl.references ?? {}).filter(([, ref]) => ref.lock)
  if (locked.length > 1 || locked.some(([, ref]) => ref.many))
    throw new Error(`${input.path}: at most one reference, of one id, may be read with its lock`)
  const outputFields = Object.keys(decl.fields).filter((name) => decl.fields[name].output)
  const schema = Type.Object(
    Object.fromEntries(
      outputFields.map((name) => {
        const spec = decl.fields[name]
        return [name, spec.nullable ? Nullable(spec.schema) : spec.schema]
      })
    ),
    { $id: decl.entity, additionalProperties: false }
  )
  const english = decl.displayNames?.EN ?? decl.entity.replace(/([a-z])([A-Z])/g, '$1 $2')
  return {
    ...decl,
    path: input.path,
    methods: input.methods,
    schema,
    createSchema: writeBodySchema(decl, 'create'),
    patchSchema: writeBodySchema(decl, 'patch'),
    outputFields,
    columnFields: Object.keys(decl.fields).filter((name) => decl.fields[name].stored),
    displayName: (country?: string) => (country && decl.displayNames?.[country as 'DE' | 'IT']) || english
  }
}
