import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import type { Server } from 'socket.io'
import type { Application, HookContext, NextFunction } from '../declarations'
import type { ProxyTrust } from './trust-proxy'
import { stampClientAddress, stampedClientAddress } from './rate-limits'

/**
 * Sockets: the client address is read from the handshake request as soon as the engine accepts
 * the connection, before any `authenticate` (including one sent in the handshake headers).
 */
export const recordSocketAddresses = (trust: ProxyTrust) => (io: Server) => {
  io.engine.on('connection', (raw: { request: IncomingMessage }) => stampClientAddress(raw.request, trust))
}

/**
 * Failed logins through the authentication service (CONTRACT §10.2). On sockets each failed
 * `authenticate` counts against the client address, and over the budget the caller gets
 * TooManyRequests with `data.retryAfter` instead of the 401. On REST the koa middleware counts
 * every 401, these included. A password login (strategy `local`) from an address that has used
 * up its failures is refused before the password is compared, on every transport: otherwise a
 * limited address would still learn which guess was right.
 */
export const limitFailedLogins = (app: Application) => {
  const failures = () => app.get('rateLimits').authFailures
  app.service('authentication').hooks({
    around: {
      create: [
        async (context: HookContext, next: NextFunction) => {
          const { provider } = context.params
          const params = context.params as {
            headers?: IncomingHttpHeaders
            connection?: { headers?: IncomingHttpHeaders }
          }
          // 'unknown' never happens for a connection the transports set up; it still counts.
          const address = provider
            ? (stampedClientAddress(params.headers ?? params.connection?.headers) ?? 'unknown')
            : undefined
          if (!address) return next()
          if ((context.data as { strategy?: unknown } | undefined)?.strategy === 'local') {
            const refusal = await failures().refusal(address)
            if (refusal) throw refusal
          }
          if (provider === 'rest') return next()
          try {
            await next()
          } catch (error) {
            if ((error as { code?: unknown } | undefined)?.code === 401) throw (await failures().fail(address)) ?? error
            throw error
          }
        }
      ]
    }
  })
}
