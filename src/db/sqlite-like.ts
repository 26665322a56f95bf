import { LIKE_ESCAPE, validLikeTokens } from './like-pattern'

/**
 * SQLite's LIKE folds the case of ASCII letters only: `%müller%` would not find "MÜLLER", and the
 * driver (sqlite3) cannot register a Unicode-aware function. A `$like` pattern with other letters is
 * therefore rewritten into a GLOB (case-sensitive, UTF-8 aware) that lists both cases of every
 * letter: `%müller%` → `*[Mm][Üü][Ll][Ll][Ee][Rr]*`. Patterns in plain ASCII use LIKE with the
 * backslash as its escape (SQLite's LIKE has none by default), so that `\%`, `\_` and `\\` are
 * literal as on PostgreSQL (src/db/like-pattern.ts).
 */

const GLOB_SPECIAL = new Set(['*', '?', '['])

/** A character and its other one-character cases (`ß` has no one-character upper case). */
export const caseVariants = (char: string) => [
  ...new Set([char, char.toLowerCase(), char.toUpperCase()].filter((c) => [...c].length === 1))
]

/** Both one-character cases of a character, or just the character. */
function caseClass(char: string): string {
  const variants = caseVariants(char)
  return variants.length > 1 ? `[${variants.join('')}]` : char
}

/** A validated `$like` pattern as a GLOB: escaped characters are literal (GLOB has no escape, `[x]` quotes). */
export function likeToGlob(pattern: string): string {
  let glob = ''
  for (const token of validLikeTokens(pattern)) {
    if ('wildcard' in token) glob += token.wildcard === '%' ? '*' : '?'
    else if (GLOB_SPECIAL.has(token.char)) glob += `[${token.char}]`
    else glob += caseClass(token.char)
  }
  return glob
}

export const needsGlob = (pattern: string) => /[^\x00-\x7f]/.test(pattern)

/** How SQLite answers one `$like`: a GLOB for patterns with non-ASCII letters, else LIKE with the backslash escape. */
export interface SqliteLike {
  field: string
  operator: 'GLOB' | 'LIKE'
  pattern: string
}

/** The SQL of a `SqliteLike` on a column (`??`) and its pattern (`?`). */
export const sqliteLikeSql = (like: SqliteLike) =>
  like.operator === 'GLOB' ? '?? GLOB ?' : `?? LIKE ? ESCAPE '${LIKE_ESCAPE}'`

/**
 * Takes every `$like` filter out of a query for SQLite: the adapter writes LIKE without an
 * escape. Returns the query without them and how to write each instead.
 */
export function takeSqliteLikes(query: Record<string, unknown>): {
  query: Record<string, unknown>
  likes: SqliteLike[]
} {
  const likes: SqliteLike[] = []
  let rest = query
  for (const [field, condition] of Object.entries(query)) {
    const pattern = (condition as { $like?: unknown } | null)?.$like
    if (field.startsWith('$') || !condition || typeof condition !== 'object' || typeof pattern !== 'string') continue
    likes.push(
      needsGlob(pattern)
        ? { field, operator: 'GLOB', pattern: likeToGlob(pattern) }
        : { field, operator: 'LIKE', pattern }
    )
    rest = withoutLike(rest, field)
  }
  return { query: rest, likes }
}

/** A copy of a query (in adapter syntax) without the `$like` of `field`, keeping its other operators. */
export function withoutLike(query: Record<string, unknown>, field: string): Record<string, unknown> {
  const { [field]: condition, ...rest } = query
  const { $like: _, ...others } = (condition ?? {}) as Record<string, unknown>
  return Object.keys(others).length > 0 ? { ...rest, [field]: others } : rest
}
