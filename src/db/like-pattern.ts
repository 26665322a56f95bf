/**
 * `$like` patterns as the API defines them (CONTRACT §10.3), one reading for every database and
 * every search path: `%` any text, `_` one character, and a backslash escapes `%`, `_` or itself.
 * PostgreSQL's LIKE reads a pattern the same way (its default escape is the backslash); SQLite's
 * is told so with `ESCAPE '\'`, and the GLOB and trigram look-ups are built from these tokens.
 *
 * A backslash before any other character, or at the end, is refused: PostgreSQL would fail on a
 * trailing one (22025) and silently drop one before a letter, where a client meant a backslash.
 */
export type LikeToken = { wildcard: '%' | '_' } | { char: string }

export const LIKE_ESCAPE = '\\'

const ESCAPABLE = new Set(['%', '_', LIKE_ESCAPE])

/** The tokens of a pattern, or the reason it is malformed. */
export function likeTokens(pattern: string): { tokens: LikeToken[] } | { error: string } {
  const tokens: LikeToken[] = []
  const chars = [...pattern]
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]
    if (char === LIKE_ESCAPE) {
      const next = chars[i + 1]
      if (next === undefined) return { error: 'must not end in a lone backslash (write \\\\ for a backslash)' }
      if (!ESCAPABLE.has(next))
        return { error: 'may use a backslash only before %, _ or another backslash (write \\\\ for a backslash)' }
      tokens.push({ char: next })
      i++
    } else if (char === '%' || char === '_') tokens.push({ wildcard: char })
    else tokens.push({ char })
  }
  return { tokens }
}

/** The tokens of a pattern that passed validation (a malformed one is a programming error here). */
export function validLikeTokens(pattern: string): LikeToken[] {
  const parsed = likeTokens(pattern)
  if ('error' in parsed) throw new Error(`Unvalidated $like pattern: ${parsed.error}`)
  return parsed.tokens
}

/** Literal text as a LIKE pattern that matches exactly it (for a `%part%` look-up). */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `${LIKE_ESCAPE}${char}`)
