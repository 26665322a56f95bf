import dns from 'node:dns'
import net from 'node:net'
import ipaddr from 'ipaddr.js'

/**
 * Where a webhook may be sent (CONTRACT §13.3, docs/security.md): to `https://` URLs whose host
 * resolves only to public unicast addresses. A subscription must not become a way to make the
 * server call its own loopback, the cloud metadata service (169.254.169.254) or the private
 * network it runs in. `webhooks.allowPrivateUrls` (development and tests) lifts both rules.
 *
 * The URL is parsed as browsers parse it (WHATWG), which already turns every spelling of an IPv4
 * address (`2130706433`, `0x7f.1`, `0177.0.0.1`) into dotted decimal. IPv4-mapped IPv6
 * (`::ffff:127.0.0.1`) is judged as the IPv4 address it carries. Every address a name resolves to
 * must be public, and the address connected to at delivery time is one that was checked then
 * (`guardedLookup`): a name that resolved to a public address when the subscription was saved
 * and to a private one later (DNS rebinding) is refused at delivery.
 */

/** All addresses of a host name, as `dns.lookup` finds them (the system resolver, /etc/hosts included). */
export type Resolver = (hostname: string) => Promise<string[]>

export const systemResolver: Resolver = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address)

/** `::/96`: the deprecated IPv4-compatible IPv6 addresses (RFC 4291 §2.5.5.1), `::` and `::1` among them. */
const IPV4_COMPATIBLE: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('::'), 96]

/**
 * Whether an address may receive webhooks: globally routable unicast only. `process` reads an
 * IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) as its IPv4 address; an IPv4-compatible one
 * (`::7f00:1`, which the URL parser makes of `[::127.0.0.1]`) is refused whatever it carries: no
 * receiver needs the deprecated form, and a stack that routes it would reach the IPv4 address.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false
  const parsed = ipaddr.process(address)
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).match(IPV4_COMPATIBLE)) return false
  return parsed.range() === 'unicast'
}

/** `[::1]` → `::1`: the host of a URL as an address or a name. */
const bareHost = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1')

/**
 * A host refused for an address that is not public. The message names the host as the caller
 * wrote it, never an address a name resolved to: the 400 and a delivery's `lastError` would
 * otherwise tell any key with the webhook scope which internal names exist and what they resolve
 * to (found by a review). `address` is for the server's own log.
 */
export class RefusedAddress extends Error {
  readonly code = 'EWEBHOOKADDRESS'
  constructor(
    readonly address: string,
    readonly host: string
  ) {
    super(
      net.isIP(host)
        ? `refused: ${host} is a private, loopback or link-local address`
        : `refused: ${host} resolves to a private, loopback or link-local address`
    )
  }
}

/**
 * The public addresses of `host` (a name or an address); throws `RefusedAddress` when any is not
 * public, and the resolver's error when the name does not resolve.
 */
export async function publicAddressesOf(host: string, resolve: Resolver): Promise<string[]> {
  const bare = bareHost(host)
  const addresses = net.isIP(bare) ? [bare] : await resolve(bare)
  if (addresses.length === 0) throw Object.assign(new Error(`${bare} has no address`), { code: 'ENOTFOUND' })
  const refused = addresses.find((address) => !isPublicAddress(address))
  if (refused !== undefined) throw new RefusedAddress(refused, bare)
  return addresses
}

export interface UrlRules {
  allowPrivateUrls: boolean
  resolve: Resolver
}

/** What is wrong with a subscription URL, as the 400 names it for `url`; undefined when nothing is. */
export async function urlProblem(raw: string, rules: UrlRules): Promise<string | undefined> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'must be an absolute URL such as https://example.com/webhooks'
  }
  const schemes = rules.allowPrivateUrls ? ['https:', 'http:'] : ['https:']
  if (!schemes.includes(url.protocol)) return `must be an ${schemes.map((s) => `${s}//`).join(' or ')} URL`
  if (!url.hostname) return 'must name a host'
  if (rules.allowPrivateUrls) return undefined
  try {
    await publicAddressesOf(url.hostname, rules.resolve)
    return undefined
  } catch (error) {
    if (error instanceof RefusedAddress)
      return net.isIP(error.host)
        ? 'must not point to a private, loopback or link-local address'
        : `must not point to a private, loopback or link-local address (${error.host} resolves to one)`
    return `must name a host that resolves (${bareHost(url.hostname)}: ${(error as NodeJS.ErrnoException).code ?? 'no address'})`
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number
) => void

/**
 * A `lookup` for http(s).request that resolves the name afresh and refuses it unless every
 * address is public, so the socket connects only to an address checked for this attempt.
 * (Node skips `lookup` for an address literal: those are checked before the request.)
 */
export function guardedLookup(resolve: Resolver) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => {
    publicAddressesOf(hostname, resolve).then(
      (addresses) => {
        const entries = addresses.map((address) => ({ address, family: net.isIP(address) }))
        const wanted = options.family ? entries.filter((entry) => entry.family === options.family) : entries
        if (wanted.length === 0)
          return callback(
            Object.assign(new Error(`${hostname} has no IPv${options.family} address`), { code: 'ENOTFOUND' }),
            ''
          )
        if (options.all) callback(null, wanted)
        else callback(null, wanted[0].address, wanted[0].family)
      },
      (error) => callback(error, '')
    )
  }
}
