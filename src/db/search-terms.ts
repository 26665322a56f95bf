import type { Knex } from 'knex'

/**
 * Which parts of a `$like` pattern a trigram index should look up. A trigram index pays for every
 * trigram of a term, and a trigram that nearly every row has (`k-1`, `-10` and `100` in every
 * customer number `K-100017`) costs what a scan of the table would: its posting list is read for
 * every candidate. Looking up only a term's rare trigrams finds the same candidates, or a few more
 * (the LIKE decides the result either way), at a cost that follows the matches instead of the
 * table: `K-100017` among 50 000 names, 2.1 ms as a whole, 0.4 ms as `00017` (SQLite FTS5), 0.7
 * against 0.2 ms (PostgreSQL pg_trgm).
 */

/** The trigrams an index reads for a `%text%` search, and those it holds for a value, as each engine's index makes them. */
export interface TrigramScheme {
  ofPattern(text: string): string[]
  ofValue(value: string): string[]
}

/** Every three consecutive characters, case folded. */
function windows(text: string): string[] {
  const chars = [...text.toLowerCase()]
  const trigrams = new Set<string>()
  for (let i = 0; i + 3 <= chars.length; i++) trigrams.add(chars.slice(i, i + 3).join(''))
  return [...trigrams]
}

/** SQLite FTS5's trigram tokenizer: a value and a search alike. */
export const fts5Trigrams: TrigramScheme = { ofPattern: windows, ofValue: windows }

const WORD_CHAR = /[\p{L}\p{N}]/u

/**
 * pg_trgm's trigrams of a `%text%` LIKE: per word (letters and digits), lower-cased, padded with
 * two blanks in front and one behind where the text itself shows the word's start or end (a
 * non-word character), not where a wildcard stands. `K-100017` gives `  1`, ` 10`, `100`, `000`,
 * `001`, `017` (`k` is too short). (pg_trgm stores a trigram of more than three bytes as a hash:
 * counted here as the characters, which steers the choice the same way.)
 */
function wordTrigrams(text: string): string[] {
  const chars = [...text.toLowerCase()]
  const trigrams = new Set<string>()
  let i = 0
  while (i < chars.length) {
    if (!WORD_CHAR.test(chars[i])) {
      i++
      continue
    }
    let end = i
    while (end < chars.length && WORD_CHAR.test(chars[end])) end++
    const word = [...(i > 0 ? ['  '] : []), ...chars.slice(i, end), ...(end < chars.length ? [' '] : [])].join('')
    const padded = [...word]
    for (let k = 0; k + 3 <= padded.length; k++) trigrams.add(padded.slice(k, k + 3).join(''))
    i = end
  }
  return [...trigrams]
}

/** PostgreSQL pg_trgm: a value's words are padded at its ends too. */
export const pgTrgmTrigrams: TrigramScheme = { ofPattern: wordTrigrams, ofValue: (value) => wordTrigrams(` ${value} `) }

/** How many rows of a table have a trigram (estimated), and how many rows the table has. */
export interface TrigramCounts {
  rows(trigram: string): number
  total: number
}

/** A trigram is left out where it is this many times as frequent as the term's rarest one... */
const FREQUENT_FACTOR = 8
/** ...and in this share of the table's rows: it narrows little, and its posting list is long. */
const FREQUENT_SHARE = 0.25
/**
 * Longer patterns are looked up whole: the choice below tries every part of a run (under a
 * millisecond for 24 characters, once per pattern and sample).
 */
const MAX_CHOICE = 24

/**
 * The texts to look up instead of `runs` (each a literal part of the pattern, so every match
 * contains it): the longest parts of the runs whose trigrams are all infrequent. Returns `runs`
 * itself where no trigram is frequent, or where no part without one is left.
 */
export function selectiveParts(runs: string[], scheme: TrigramScheme, counts: TrigramCounts): string[] {
  let chosen = choices.get(counts)
  if (!chosen) choices.set(counts, (chosen = new Map()))
  const key = runs.join('\u0000')
  const known = chosen.get(key)
  if (known) return known === KEEP ? runs : known
  if (chosen.size >= MAX_CHOICES) chosen.clear()
  const parts = chooseParts(runs, scheme, counts)
  chosen.set(key, parts === runs ? KEEP : parts)
  return parts
}

/** The choices made with a sample's counts, by pattern: they hold as long as the sample. */
const choices = new WeakMap<TrigramCounts, Map<string, string[]>>()
const KEEP: string[] = []
const MAX_CHOICES = 10_000

function chooseParts(runs: string[], scheme: TrigramScheme, counts: TrigramCounts): string[] {
  const rows = runs.flatMap(scheme.ofPattern).map((trigram) => counts.rows(trigram))
  if (rows.length === 0 || runs.reduce((length, run) => length + [...run].length, 0) > MAX_CHOICE) return runs
  const limit = Math.max(FREQUENT_FACTOR * Math.min(...rows), FREQUENT_SHARE * counts.total)
  if (rows.every((count) => count <= limit)) return runs
  const infrequent = (text: string) => {
    const trigrams = scheme.ofPattern(text)
    return trigrams.length > 0 && trigrams.every((trigram) => counts.rows(trigram) <= limit)
  }
  const parts: string[] = []
  for (const run of runs) {
    const chars = [...run]
    const found: [number, number][] = []
    for (let start = 0; start < chars.length; start++) {
      for (let end = chars.length; end >= start + 3; end--) {
        if (found.some(([s, e]) => s <= start && end <= e)) break
        if (infrequent(chars.slice(start, end).join(''))) {
          found.push([start, end])
          break
        }
      }
    }
    parts.push(...found.map(([start, end]) => chars.slice(start, end).join('')))
  }
  return parts.length > 0 ? parts : runs
}

/** How long a sample is trusted: it only steers the look-up, the LIKE decides. */
const SAMPLE_TTL_MS = 10 * 60 * 1000
const SAMPLE_ROWS = 2000

interface Sample {
  values: string[]
  total: number
}

/**
 * Trigram counts per indexed column, estimated from a sample of 2 000 rows drawn by random id
 * (a table of up to 4 000 ids is read whole), taken again after ten minutes, and counted the way
 * `scheme` (the engine's index) makes trigrams. One per service. A trigram the sample lacks counts
 * as rare.
 */
export class TrigramStatistics {
  private counted = new Map<string, { counts: Promise<TrigramCounts>; at: number }>()

  constructor(readonly scheme: TrigramScheme) {}

  /** Forgets every sample: the next search takes a new one (a test after filling a table). */
  clear() {
    this.counted.clear()
  }

  /** The parts of `runs` (of a `$like` on `table.column`) to look up: see `selectiveParts`. */
  async parts(db: Knex, table: string, column: string, runs: string[]): Promise<string[]> {
    return selectiveParts(runs, this.scheme, await this.counts(db, table, column))
  }

  private counts(db: Knex, table: string, column: string): Promise<TrigramCounts> {
    const key = `${table}.${column}`
    const cached = this.counted.get(key)
    if (cached && Date.now() - cached.at < SAMPLE_TTL_MS) return cached.counts
    const counts = takeSample(db, table, column).then((sample) => countTrigrams(sample, this.scheme))
    this.counted.set(key, { counts, at: Date.now() })
    counts.catch(() => this.counted.delete(key))
    return counts
  }
}

async function takeSample(db: Knex, table: string, column: string): Promise<Sample> {
  const [{ low, high }] = await db(table).min({ low: 'id' }).max({ high: 'id' })
  if (low === null || low === undefined) return { values: [], total: 0 }
  const span = Number(high) - Number(low) + 1
  if (span <= 2 * SAMPLE_ROWS) {
    const values = (await db(table).pluck(column)).filter((value) => typeof value === 'string')
    return { values, total: values.length }
  }
  const ids = new Set<number>()
  while (ids.size < SAMPLE_ROWS) ids.add(Number(low) + Math.floor(Math.random() * span))
  const found: unknown[] = await db(table)
    .whereIn('id', [...ids])
    .pluck(column)
  return {
    values: found.filter((value): value is string => typeof value === 'string'),
    total: Math.round((found.length / SAMPLE_ROWS) * span)
  }
}

function countTrigrams({ values, total }: Sample, scheme: TrigramScheme): TrigramCounts {
  const inSample = new Map<string, number>()
  for (const value of values)
    for (const trigram of scheme.ofValue(value)) inSample.set(trigram, (inSample.get(trigram) ?? 0) + 1)
  const scale = values.length > 0 ? total / values.length : 0
  return { rows: (trigram) => (inSample.get(trigram) ?? 0) * scale, total }
}
