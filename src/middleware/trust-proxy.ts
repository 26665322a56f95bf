import proxyaddr from 'proxy-addr'
import type { IncomingMessage } from 'node:http'

declare module '../declarations' {
  interface Configuration {
    /** Set by createApp() from `trustProxy`. */
    proxyTrust: ProxyTrust
  }
}

/**
 * Who is the client (CONTRACT §10.2)? The connection's peer, unless `TRUST_PROXY` names the
 * proxies in front of us: then the right-most `X-Forwarded-For` entry that is not a trusted proxy.
 * The left-most entries are whatever the client chose to send and are never believed.
 */
export interface ProxyTrust {
  /** The client address of a request (or of a socket's handshake request). */
  clientAddress(req: IncomingMessage): string
  /** Whether the request reached the first trusted hop over TLS (directly or per `X-Forwarded-Proto`). */
  isTls(req: IncomingMessage): boolean
}

type TrustFn = (address: string, hop: number) => boolean

/** '' or unset: trust nobody; a number: that many hops; else a comma-separated list of addresses or CIDR ranges. */
export function compileTrust(setting: string | number | undefined): TrustFn {
  const value = typeof setting === 'number' ? String(setting) : (setting ?? '').trim()
  if (value === '' || value === 'false' || value === '0') return () => false
  if (/^\d+$/.test(value)) {
    const hops = Number(value)
    return (_address, hop) => hop < hops
  }
  const list = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  return proxyaddr.compile(list)
}

export function proxyTrust(setting: string | number | undefined): ProxyTrust {
  const trust = compileTrust(setting)
  return {
    clientAddress: (req) => proxyaddr(req, trust) || req.socket?.remoteAddress || 'unknown',
    isTls(req) {
      if ((req.socket as { encrypted?: boolean } | undefined)?.encrypted) return true
      const peer = req.socket?.remoteAddress
      if (!peer || !trust(peer, 0)) return false
      const proto = String(req.headers['x-forwarded-proto'] ?? '')
        .split(',')[0]
        .trim()
        .toLowerCase()
      return proto === 'https'
    }
  }
}
