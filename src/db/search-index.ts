import type { Knex } from 'knex'
import { snakeCase } from './knex'
import { caseVariants } from './sqlite-like'
import { LikeToken, escapeLike, validLikeTokens } from './like-pattern'
import type { TrigramStatistics } from './search-terms'

/**
 * The substring indexes: per table, the fields whose `$like` filters a trigram index can narrow.
 * SQLite has an FTS5 trigram table per field (migrations/20261123000002_sqlite_search_indexes.ts),
 * PostgreSQL a pg_trgm GIN index (migrations/20261123000001_performance_indexes.ts) that serves
 * ILIKE as it is, but for the frequent trigrams of a term (see src/db/search-terms.ts).
 */
const INDEXED_FIELDS: Record<string, readonly string[]> = {
  assignments: ['name'],
  customers: ['companyName']
}

/** The FTS5 table of an indexed column, as the migration names it: `assignments_name_fts`. */
const searchTable = (table: string, field: string) => `${table}_${snakeCase(field)}_fts`

/** Every FTS5 table the indexed fields have (for maintenance such as the benchmark seed's merge). */
export const searchTables = () =>
  Object.entries(INDEXED_FIELDS).flatMap(([table, fields]) => fields.map((field) => searchTable(table, field)))

/**
 * Where a run the index can look up ends: at a LIKE wildcard (an escaped `%`, `_` or backslash is
 * literal text and stays in the run, src/db/like-pattern.ts), and at a non-ASCII letter with
 * another case. FTS5 folds case with tables of Unicode 6.1, which do not pair every letter the
 * GLOB of src/db/sqlite-like.ts lists both cases of (`Ϳ`/`ϳ` and other later additions): such a
 * letter in a phrase would miss rows the GLOB matches. ASCII letters fold alike.
 */
const endsRun = (token: LikeToken) => !('char' in token) || (token.char > '\x7f' && caseVariants(token.char).length > 1)

/** The parts of a LIKE pattern the index can look up: runs of at least three literal characters (a trigram). */
function searchableRuns(pattern: string): string[] {
  const runs = ['']
  for (const token of validLikeTokens(pattern)) {
    if (endsRun(token)) runs.push('')
    else runs[runs.length - 1] += (token as { char: string }).char
  }
  return runs.filter((run) => [...run].length >= 3)
}

/**
 * An FTS5 query that every value matching the LIKE pattern matches too: each part a phrase (its
 * consecutive trigrams), all required. It ignores the parts' order and the pattern's anchoring,
 * so it only narrows: the LIKE (or GLOB) stays in the query and decides.
 */
const ftsMatch = (column: string, parts: string[]) =>
  parts.map((part) => `${column} : "${part.replaceAll('"', '""')}"`).join(' AND ')

interface IndexedSearch {
  field: string
  pattern: string
  runs: string[]
}

/** The `$like` filters of a query (in adapter syntax) that a search index can narrow. */
function indexedSearches(table: string, query: Record<string, unknown> = {}): IndexedSearch[] {
  const searches: IndexedSearch[] = []
  for (const field of INDEXED_FIELDS[table] ?? []) {
    const pattern = (query[field] as { $like?: unknown } | undefined)?.$like
    if (typeof pattern !== 'string') continue
    const runs = searchableRuns(pattern)
    if (runs.length > 0) searches.push({ field, pattern, runs })
  }
  return searches
}

/**
 * The index pays only while it narrows. Each candidate it names (of every company) is read by id
 * and, on the page, sorted: about ten times what the company's scan spends on one row. A word in
 * every twelfth name (2 000 of a company's 25 000 orders) cost 5-8 ms through the index against
 * 3 ms by the scan; a rare one 1 ms against 3-9 ms. With this many candidates or more, the
 * company's scan answers instead.
 */
export const SELECTIVE_CANDIDATES = 500

/**
 * The ids a list's indexed `$like` filters can match, from the search indexes alone (no row is
 * read): each selective filter's candidates, intersected. Undefined where no filter narrows
 * enough to pay. The list then reads just these rows by id, so the index is consulted once per
 * request, not again for the page and again for the count. With `statistics`, each filter looks
 * up only the parts of its pattern without a frequent trigram (src/db/search-terms.ts).
 */
export async function searchCandidates(
  db: Knex,
  table: string,
  query?: Record<string, unknown>,
  statistics?: TrigramStatistics
): Promise<number[] | undefined> {
  let candidates: number[] | undefined
  for (const { field, runs } of indexedSearches(table, query)) {
    const ftsTable = searchTable(table, field)
    const parts = statistics ? await statistics.parts(db, table, field, runs) : runs
    const match = ftsMatch(snakeCase(field), parts)
    const found: { id: number }[] = await db.raw('select rowid as id from ?? where ?? match ? limit ?', [
      ftsTable,
      ftsTable,
      match,
      SELECTIVE_CANDIDATES
    ])
    if (found.length >= SELECTIVE_CANDIDATES) continue
    const ids = found.map((row) => Number(row.id))
    candidates = candidates ? ids.filter((id) => candidates!.includes(id)) : ids
  }
  return candidates
}

/**
 * Narrows a list query on SQLite to the candidates of its search indexes, read by id. `NOT
 * INDEXED` keeps that the only way in: without statistics (a fresh or grown table) the planner
 * would rather read every row of the company through a (company_id, …) index and test each
 * against the list, which costs what the search index is there to avoid. The rowid look-up stays
 * allowed under NOT INDEXED; no candidates at all is `1 = 0` (knex), no row read.
 */
export function narrowToCandidates(db: Knex, builder: Knex.QueryBuilder, table: string, candidates?: number[]) {
  if (!candidates) return
  builder.from(db.raw('?? not indexed', [table]))
  builder.whereIn(`${table}.id`, candidates)
}

/** A `$like` whose frequent trigrams PostgreSQL's index should not read: it looks up `parts`. */
export interface NarrowedLike {
  field: string
  pattern: string
  parts: string[]
}

/**
 * On PostgreSQL, the indexed `$like` filters of a query with a trigram that most rows have, and
 * the parts of their patterns to look up instead (src/db/search-terms.ts). Filters without one
 * are left to the planner as they are.
 */
export async function pgNarrowedLikes(
  db: Knex,
  table: string,
  query: Record<string, unknown> | undefined,
  statistics: TrigramStatistics
): Promise<NarrowedLike[]> {
  const narrowed: NarrowedLike[] = []
  for (const { field, pattern, runs } of indexedSearches(table, query)) {
    const parts = await statistics.parts(db, table, field, runs)
    if (parts !== runs) narrowed.push({ field, pattern, parts })
  }
  return narrowed
}

/**
 * Writes narrowed `$like` filters (whose own `$like` the caller took out of the adapter query):
 * the parts as ILIKEs the trigram index answers, and the pattern itself on an expression the index
 * does not cover (`name || ''`), so that it decides without its frequent trigrams being read.
 */
export function applyNarrowedLikes(builder: Knex.QueryBuilder, table: string, narrowed: NarrowedLike[]) {
  for (const { field, pattern, parts } of narrowed) {
    // A part is literal text: its own `%`, `_` and backslashes are escaped.
    for (const part of parts) builder.whereRaw('?? ilike ?', [`${table}.${field}`, `%${escapeLike(part)}%`])
    builder.whereRaw(`(?? || '') ilike ?`, [`${table}.${field}`, pattern])
  }
}
