import type { HookContext, NextFunction } from '@feathersjs/feathers'
import { FetchClient } from '@feathersjs/rest-client'
import { CallTimeout, ConnectionLost } from './errors'
import type { SocketSession } from './session'
import { isUploadCreate } from './uploads'

/** The params every call may carry besides Feathers' own (see CallOptions). */
export interface GuardedParams {
  timeout?: number
  connection?: { signal?: AbortSignal }
}

/**
 * Every call settles within its timeout (`params.timeout`, else the client's): it waits for a
 * socket client's connection to be authenticated, is sent, and waits for the answer, all within
 * that time; else it rejects with CallTimeout. A call on a socket that closes before the answer
 * rejects at once with ConnectionLost. A call that timed out while waiting is never sent later.
 * HTTP requests (REST over fetch, uploads) are aborted when their time is up.
 */
export const callGuard =
  (timeout: number, session: SocketSession | undefined) => async (context: HookContext, next: NextFunction) => {
    const params = context.params as GuardedParams
    const timeoutMs = params.timeout ?? timeout
    const call = { path: context.path, method: context.method, timeoutMs }
    const overHttp = context.service instanceof FetchClient || isUploadCreate(context)
    const viaSocket = session !== undefined && !isUploadCreate(context)
    await new Promise<void>((resolve, reject) => {
      let settled = false
      let sent = false
      let untrack: () => unknown = () => undefined
      const controller = overHttp ? new AbortController() : undefined
      const finish = (error?: unknown) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        untrack()
        if (error === undefined) resolve()
        else reject(error)
      }
      const timer = setTimeout(() => {
        finish(new CallTimeout(call, !sent))
        controller?.abort()
      }, timeoutMs)
      const run = async () => {
        if (viaSocket) await session.ready(context.path === 'authentication', call)
        if (settled) return
        sent = true
        if (viaSocket) untrack = session.track((reason) => finish(new ConnectionLost(call, reason)))
        // A copy: the caller's params object may be used again for another call.
        if (controller) context.params = { ...params, connection: { ...params.connection, signal: controller.signal } }
        await next()
      }
      run().then(
        () => finish(),
        (error: unknown) => finish(error ?? new Error('the call failed'))
      )
    })
  }
