import path from 'node:path'
import contentDisposition from 'content-disposition'

const MAX_LENGTH = 255
// Control characters, path separators and the characters Windows forbids in names.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f<>:"/\\|?*\u202a-\u202e\u2066-\u2069]+/g
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$/i

/**
 * A file name that is safe to store, show and send back in Content-Disposition: the last path
 * segment only, no control, bidi-override or reserved characters, no leading dots, at most 255
 * characters with the extension kept. Empty when nothing usable is left.
 */
export function sanitizeFileName(raw: string): string {
  const base = raw.normalize('NFC').split(/[/\\]/).pop() ?? ''
  let name = base
    .replace(UNSAFE, '_')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[.\s]+/, '')
    .replace(/[.\s]+$/, '')
  if (/^_*$/.test(name)) return ''
  if (WINDOWS_RESERVED.test(name)) name = `_${name}`
  if (name.length > MAX_LENGTH) {
    const ext = path.extname(name).slice(0, 16)
    name = name.slice(0, MAX_LENGTH - ext.length) + ext
  }
  return name
}

/**
 * The ASCII stand-in for `filename=` (RFC 6266 §4.3): accents dropped (`Müller` → `Muller`), any
 * other non-ASCII character, `%` (some clients percent-decode the plain parameter), quotes and
 * backslashes replaced by `_`.
 */
export function asciiFileName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^\x20-\x7e]|[%"\\]/g, '_')
}

/**
 * `Content-Disposition: attachment` for a stored name: `filename` with the ASCII fallback, plus
 * `filename*=UTF-8''…` whenever the name is not plain ASCII. The content-disposition package
 * quotes and percent-encodes; left to its default fallback it would send Latin-1 names such as
 * `Müller` as raw ISO-8859-1 bytes without `filename*`, which browsers decode differently.
 */
export function attachmentHeader(fileName: string): string {
  const name = fileName || 'download'
  return contentDisposition(name, { type: 'attachment', fallback: asciiFileName(name) })
}
