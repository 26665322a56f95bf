import type { Knex } from 'knex'
import { nameOfText, namedByText } from './dialect'

/**
 * Where a statement's `index`th value goes: what a shape's builder is given in place of its values
 * when the shape is compiled. knex binds it like any value, so the compilation says where each
 * value lands among the statement's bindings.
 */
class Slot {
  constructor(readonly index: number) {}
}

/**
 * One shape compiled: knex's compilation (its text, its method, what the runner reads besides, such
 * as an insert's `returning`), with per binding a value's slot or a constant of the statement.
 */
type Template = Compiled & { options: Record<string, unknown> }

/** A knex compilation as the runner reads it (`toSQL()` of a builder or a raw statement). */
type Compiled = {
  sql: string
  method: string
  options?: Record<string, unknown>
  bindings: readonly unknown[]
  __knexQueryUid?: string
}

/** How many shapes one `StatementShapes` keeps per database; past it, statements are compiled each time. */
export const MAX_SHAPES = 200

/**
 * Set to `1` in the environment, every statement is also built and compiled from its values
 * and compared with its template's; a difference throws. The test suite sets it (test/support/env.ts),
 * so every test that runs a templated statement checks its template.
 */
const CHECK = 'CREWCLOCK_CHECK_SHAPES'

/** What sets a statement's text apart from its other texts: how many runs, which parts (never a value). */
export type Shape = readonly (string | number | boolean)[]

/**
 * A statement that knex builds and compiles once per shape, then runs from that compilation with
 * other values bound. knex's query builder compiles a statement's text anew at every run (quoting
 * and case-mapping each identifier, walking each clause); a recomputation runs the same few texts
 * for every write.
 *
 * `build` writes the statement of `shape` from `values` as a query builder or a raw statement
 * would. It is called with `Slot`s in place of the values when a shape is first seen, so it must
 * hand its values to knex as they are: never test, convert or compute with them (compute them
 * before, into the values); whatever else changes the text belongs in the shape. `purpose`, if
 * given, names the statement on PostgreSQL by its text (`nameOfText`).
 */
export class StatementShapes<S extends Shape, V extends readonly unknown[]> {
  /**
   * By database (a pool's configuration, which its transactions share): the templates of its shapes,
   * at most `MAX_SHAPES`. Per database, not per dialect: a template may hold text read from its
   * database's schema (`WholeRowsShapes`), and tests run databases of several schema versions in one
   * process.
   */
  private readonly templates = new WeakMap<object, Map<string, Template>>()

  constructor(
    private readonly build: (db: Knex | Knex.Transaction, shape: S, values: V) => Knex.QueryBuilder | Knex.Raw,
    private readonly purpose?: string
  ) {}

  /** The statement of `shape` with `values` bound, to be run (awaited) once. */
  statement(db: Knex | Knex.Transaction, shape: S, values: V): Knex.Raw {
    const database = db.client.config as object
    let templates = this.templates.get(database)
    if (!templates) this.templates.set(database, (templates = new Map()))
    const key = shape.join(' ')
    let template = templates.get(key)
    if (template === undefined && templates.size < MAX_SHAPES) {
      template = this.compile(db, shape, values.length)
      templates.set(key, template)
    }
    // Past the bound a shape is built as before, and nothing of it is kept.
    if (template === undefined) {
      const statement = this.build(db, shape, values)
      return (this.purpose === undefined ? statement : namedByText(db, this.purpose, statement)) as Knex.Raw
    }
    const compiled = withValues(template, values, key)
    if (process.env[CHECK] === '1')
      checkTemplate(compiled, this.build(db, shape, values).toSQL() as unknown as Compiled, key)
    return runsAs(db, compiled)
  }

  /** Drops the templates of `db`'s database: they are compiled anew when next asked for. */
  forget(db: Knex | Knex.Transaction) {
    this.templates.delete(db.client.config as object)
  }

  private compile(db: Knex | Knex.Transaction, shape: S, length: number): Template {
    const slots = Array.from({ length }, (_, index) => new Slot(index)) as unknown as V
    // The enumerable properties are what the runner reads; `toNative` is not one. The compilation's
    // id stays as a key for each run's own (`withValues`): a spread that adds a key is Node 20's slow
    // path, one that overwrites keys is not (docs/decisions.md, "Per-row objects").
    const compiled = this.build(db, shape, slots).toSQL() as unknown as Compiled
    const name =
      this.purpose !== undefined && db.client.config.client === 'pg'
        ? nameOfText(this.purpose, compiled.sql)
        : undefined
    return { ...compiled, options: { ...compiled.options, ...(name === undefined ? {} : { name }) } }
  }
}

/** Numbers the runs for knex's query events, as its own compilations do with a random id. */
let runs = 0

/**
 * The template's compilation with `values` in its slots. An undefined value throws, as knex's own
 * compilation does: both drivers would bind it as NULL, and a filter on NULL matches nothing.
 */
function withValues(template: Template, values: readonly unknown[], shape: string): Compiled {
  const bindings = new Array(template.bindings.length)
  for (let i = 0; i < bindings.length; i++) {
    const binding = template.bindings[i]
    if (!(binding instanceof Slot)) bindings[i] = binding
    else if ((bindings[i] = values[binding.index]) === undefined)
      throw new Error(`Statement shape "${shape}": value ${binding.index} is undefined`)
  }
  return { ...template, options: { ...template.options }, bindings, __knexQueryUid: `shape-${++runs}` }
}

/**
 * A raw statement that runs `compiled` as knex's runner would run the builder it came from: the
 * runner takes the statement's `toSQL()` and reads its method (rows, a first row, a count) from it.
 * The routing of src/db/knex.ts reads the statement itself (its options, a builder's method), so
 * the raw statement carries them too: a read outside a transaction goes where its builder would.
 */
function runsAs(db: Knex | Knex.Transaction, compiled: Compiled): Knex.Raw {
  const statement = db.raw(compiled.sql)
  if (compiled.options) statement.options(compiled.options)
  if (compiled.method !== 'raw') Object.assign(statement, { _method: compiled.method })
  const toNative = () => ({ sql: db.client.positionBindings(compiled.sql), bindings: compiled.bindings })
  Object.defineProperty(compiled, 'toNative', { value: toNative, enumerable: false })
  Object.defineProperty(statement, 'toSQL', { configurable: true, writable: true, value: () => compiled })
  return statement
}

/** A compilation's options but the statement's name (the template's may be named by its text), as text. */
const unnamed = (options: Record<string, unknown> = {}) => JSON.stringify({ ...options, name: undefined })

/** What else the runner reads of a compilation (its method, an insert's `returning`, a timeout), as text. */
const besides = ({ sql: _sql, bindings: _bindings, options: _options, __knexQueryUid: _id, ...rest }: Compiled) =>
  JSON.stringify(rest)

/** Throws unless the template filled in is what knex compiles from the values. */
function checkTemplate(filled: Compiled, direct: Compiled, shape: string) {
  const same =
    filled.sql === direct.sql &&
    unnamed(filled.options) === unnamed(direct.options) &&
    besides(filled) === besides(direct) &&
    filled.bindings.length === direct.bindings.length &&
    filled.bindings.every((value, i) => Object.is(value, direct.bindings[i]))
  if (!same)
    throw new Error(
      `Statement shape "${shape}" differs from its statement: ${JSON.stringify({ filled, direct }, (_, v) => (v instanceof Slot ? `slot ${v.index}` : v))}`
    )
}
