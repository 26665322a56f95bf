/**
 * SQLite's LIKE folds the case of ASCII letters only: `%müller%` would not find "MÜLLER", and the
 * driver (sqlite3) cannot register a Unicode-aware function. A `$like` pattern with other letters is
 * therefore rewritten into a GLOB (case-sensitive, UTF-8 aware) that lists both cases of every
 * letter: `%müller%` → `*[Mm][Üü][Ll][Ll][Ee][Rr]*`. Patterns in plain ASCII keep using LIKE.
 */

const GLOB_SPECIAL = new Set(['*', '?', '['])

/** A character and its other one-character cases (`ß` has no one-character upper case). */
export const caseVariants = (char: string) => [...new Set([char, char.toLowerCase(), char.toUpperCase()].filter((c) => [...c].length === 1))]

/** Both one-character cases of a character, or just the character. */
function caseClass(char: string): string {
  const variants = caseVariants(char)
  return variants.length > 1 ? `[${variants.join('')}]` : char
}

export function likeToGlob(pattern: string): string {
  let glob = ''
  for (const char of pattern) {
    if (char === '%') glob += '*'
    else if (char === '_') glob += '?'
    else if (GLOB_SPECIAL.has(char)) glob += `[${char}]`
    else glob += caseClass(char)
  }
  return glob
}

export const needsGlob = (pattern: string) => /[^\x00-\x7f]/.test(pattern)

/**
 * Takes the `$like` filters SQLite's LIKE cannot answer out of a query: returns the query without
 * them and the `[field, glob]` pairs to add with `GLOB` instead.
 */
export function takeUnicodeLikes(query: Record<string, any>): { query: Record<string, any>; globs: [string, string][] } {
  const globs: [string, string][] = []
  let rest = query
  for (const [field, condition] of Object.entries(query)) {
    if (field.startsWith('$') || !condition || typeof condition !== 'object' || typeof condition.$like !== 'string') continue
    if (!needsGlob(condition.$like)) continue
    globs.push([field, likeToGlob(condition.$like)])
    rest = withoutLike(rest, field)
  }
  return { query: rest, globs }
}

/** A copy of a query (in adapter syntax) without the `$like` of `field`, keeping its other operators. */
export function withoutLike(query: Record<string, any>, field: string): Record<string, any> {
  const { [field]: condition, ...rest } = query
  const { $like: _, ...others } = condition ?? {}
  return Object.keys(others).length > 0 ? { ...rest, [field]: others } : rest
}
