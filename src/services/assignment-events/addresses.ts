import { Type } from '@feathersjs/typebox'
import type { Knex } from 'knex'
import { Address, AddressValue, Nullable, Str } from '../../resources/types'

/** The longest one-line address (`AddressLine`), and so the longest part parsed from one. */
const EVENT_ADDRESS_PART = 1000
/** The link percent-encodes up to five parts (`openStreetMapLink`), at most 12 characters for each of theirs. */
const LINK_MAX_LENGTH = 16384

/**
 * AssignmentEvent addresses are written as one string (CONTRACT §5): a keyword naming an address
 * the service already knows, or a one-line postal address parsed best-effort. Responses carry the
 * resolved Address with an OpenStreetMap search link; the resolution is a snapshot taken on write.
 * A part parsed from a line can be as long as the line, not only the 255 characters of a stored
 * Address's part: the schema declares that (it said 255 and 2048 while the service answered longer
 * parsed parts and links; found by validating responses).
 */
export const EventAddress = Type.Object(
  {
    supplement: Nullable(Str(EVENT_ADDRESS_PART)),
    street: Nullable(Str(EVENT_ADDRESS_PART)),
    clarification: Nullable(Str(EVENT_ADDRESS_PART)),
    zip: Nullable(Str(EVENT_ADDRESS_PART)),
    city: Nullable(Str(EVENT_ADDRESS_PART)),
    state: Nullable(Str(EVENT_ADDRESS_PART)),
    country: Nullable(Str(EVENT_ADDRESS_PART)),
    externalId: Nullable(Str(EVENT_ADDRESS_PART)),
    latitude: Address.properties.latitude,
    longitude: Address.properties.longitude,
    link: Nullable(Str(LINK_MAX_LENGTH))
  },
  { additionalProperties: false, title: 'EventAddress' }
)

export const AddressLine = Str(EVENT_ADDRESS_PART, {
  description:
    '`assignment`, `customer`, `company`, or a one-line postal address such as "Hauptstraße 1, 10115 Berlin, Deutschland"'
})

export const ADDRESS_KEYWORDS = ['assignment', 'customer', 'company'] as const
type Keyword = (typeof ADDRESS_KEYWORDS)[number]

const PSEUDO_REGIONS = new Set(['EU', 'EZ', 'UN', 'ZZ'])
const NAME_LOCALES = ['en', 'de', 'it', 'fr', 'es']

let countryIndex: Map<string, string> | undefined
/** Country names (English, German, Italian, French, Spanish; long and short forms) and codes → ISO 3166 alpha-2, from ICU. */
function countryCodeOf(text: string): string | undefined {
  if (!countryIndex) {
    countryIndex = new Map()
    const namers = NAME_LOCALES.flatMap((locale) =>
      (['long', 'short'] as const).map(
        (style) => new Intl.DisplayNames([locale], { type: 'region', style, fallback: 'none' })
      )
    )
    for (let a = 65; a <= 90; a++) {
      for (let b = 65; b <= 90; b++) {
        const code = String.fromCharCode(a, b)
        if (PSEUDO_REGIONS.has(code) || code.startsWith('Q') || (code.startsWith('X') && code !== 'XK')) continue
        const names = namers.map((namer) => namer.of(code)).filter((name): name is string => !!name)
        if (names.length === 0) continue
        countryIndex.set(code.toLowerCase(), code)
        for (const name of names) countryIndex.set(name.toLowerCase(), code)
      }
    }
    // Common aliases and the old one-letter postal prefixes ("D-10115 Berlin").
    const aliases = [
      ['uk', 'GB'],
      ['usa', 'US'],
      ['u.s.a.', 'US'],
      ['d', 'DE'],
      ['a', 'AT'],
      ['i', 'IT'],
      ['f', 'FR'],
      ['b', 'BE'],
      ['l', 'LU']
    ]
    for (const [alias, code] of aliases) countryIndex.set(alias, code)
  }
  return countryIndex.get(text.trim().toLowerCase())
}

const ZIP_THEN_CITY = /^(?:([A-Z]{1,2})-)?(\d{4,5})\s+(.+)$/
const CITY_THEN_ZIP = /^(.+?)\s+(\d{5}(?:-\d{4})?|\d{4})$/
const STREET_ZIP_CITY = /^(.+?\d+\s*[a-zA-Z]?)\s+(?:([A-Z]{1,2})-)?(\d{4,5})\s+(.+)$/
/** "Roma RM", "Milano (MI)": a trailing two-letter province or state. */
const CITY_STATE = /^(.+?)\s+\(?([A-Z]{2})\)?$/

const empty = (): AddressValue => ({
  supplement: null,
  street: null,
  clarification: null,
  zip: null,
  city: null,
  state: null,
  country: null,
  externalId: null,
  latitude: null,
  longitude: null
})

/** Best effort: "street, [zip] city, [country]" in the usual European and US orders. */
export function parseAddressLine(line: string): AddressValue {
  const address = empty()
  const parts = line
    .split(/\s*[,;\n]\s*/)
    .map((p) => p.trim())
    .filter(Boolean)
  if (parts.length > 1 && countryCodeOf(parts[parts.length - 1])) address.country = countryCodeOf(parts.pop()!)!
  if (parts.length === 1) {
    const inline = STREET_ZIP_CITY.exec(parts[0])
    if (inline) {
      ;[address.street, address.zip, address.city] = [inline[1], inline[3], inline[4]]
      address.country ??= (inline[2] && countryCodeOf(inline[2])) || null
      return address
    }
  }
  let zipAt = -1
  for (let i = parts.length - 1; i >= 0 && zipAt < 0; i--) {
    const zipFirst = ZIP_THEN_CITY.exec(parts[i])
    const zipLast = zipFirst ? null : CITY_THEN_ZIP.exec(parts[i])
    if (zipFirst) {
      address.zip = zipFirst[2]
      const city = CITY_STATE.exec(zipFirst[3])
      ;[address.city, address.state] = city ? [city[1], city[2]] : [zipFirst[3], null]
      address.country ??= (zipFirst[1] && countryCodeOf(zipFirst[1])) || null
      zipAt = i
    } else if (zipLast && i > 0 && /^[A-Z]{2}$/.test(zipLast[1])) {
      // "Mountain View, CA 94043": the city is the part before.
      ;[address.state, address.zip, address.city] = [zipLast[1], zipLast[2], parts[i - 1]]
      parts.splice(i - 1, 1)
      zipAt = i - 1
    } else if (zipLast) {
      ;[address.city, address.zip] = [zipLast[1], zipLast[2]]
      zipAt = i
    }
  }
  const before = zipAt < 0 ? parts : parts.slice(0, zipAt)
  const after = zipAt < 0 ? [] : parts.slice(zipAt + 1)
  if (zipAt < 0 && before.length > 1) address.city = before.pop()!
  // The street is the part with the house number; what else precedes it is a supplement (c/o, building).
  const numbered = before.map((part) => /\d/.test(part)).lastIndexOf(true)
  const streetAt = numbered >= 0 ? numbered : before.length - 1
  address.street = before[streetAt] ?? null
  const rest = before.filter((_part, i) => i !== streetAt)
  if (rest.length > 0) address.supplement = rest.join(', ')
  if (after.length > 0) address.clarification = after.join(', ')
  return address
}

/** An OpenStreetMap search for the address, or null when it has nothing to search for. */
export function openStreetMapLink(address: AddressValue): string | null {
  const country = address.country
    ? new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' }).of(String(address.country))
    : null
  const cityLine = [address.zip, address.city].filter(Boolean).join(' ')
  const query = [address.street, cityLine, address.state, country].filter(Boolean).join(', ')
  return query ? `https://www.openstreetmap.org/search?query=${encodeURIComponent(query)}` : null
}

export interface AddressSources {
  trx: Knex
  companyId: number
  assignmentId?: number
}

/** The stored Address of a keyword's record; undefined when that record has none. */
async function keywordAddress(
  keyword: Keyword,
  { trx, companyId, assignmentId }: AddressSources
): Promise<AddressValue | undefined> {
  if (keyword === 'company') return (await trx('companies').where({ id: companyId }).first('address'))?.address
  const assignment = await trx('assignments')
    .where({ companyId, id: assignmentId ?? 0 })
    .first('address', 'customerId')
  if (keyword === 'assignment') return assignment?.address
  return (
    await trx('customers')
      .where({ companyId, id: assignment?.customerId ?? 0 })
      .first('billingAddress')
  )?.billingAddress
}

const parseJson = (value: unknown) =>
  (typeof value === 'string' ? JSON.parse(value) : value) as AddressValue | null | undefined

/** A keyword whose record has no address: its message is the field's validation error. */
export class UnresolvedAddress extends Error {}

/**
 * Resolves a write value to the stored Address (with `link`), or throws `UnresolvedAddress` with
 * the message for the field's validation error. Empty strings clear the field like null.
 */
export async function resolveAddress(value: string | null, sources: AddressSources): Promise<AddressValue | null> {
  const line = (value ?? '').trim()
  if (!line) return null
  const keyword = ADDRESS_KEYWORDS.find((k) => k === line.toLowerCase())
  let address: AddressValue
  if (keyword) {
    const stored = parseJson(await keywordAddress(keyword, sources))
    if (!stored)
      throw new UnresolvedAddress(
        `the ${keyword === 'customer' ? "assignment's customer has no billing address" : `${keyword} has no address`}`
      )
    address = { ...empty(), ...Object.fromEntries(Object.entries(stored).filter(([k]) => k in Address.properties)) }
  } else {
    address = parseAddressLine(line)
  }
  return { ...address, link: openStreetMapLink(address) }
}
