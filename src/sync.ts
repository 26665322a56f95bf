import sync from 'feathers-sync'
import type { Application, HookContext, NextFunction } from './declarations'

/** What feathers-sync's Redis adapter leaves on the app; its typings do not say. */
interface SyncedApplication extends Application {
  sync: { ready: Promise<void>; pub: { quit(): Promise<unknown> }; sub: { quit(): Promise<unknown> } }
}

/** A service event as feathers-sync passes it to `serialize`. */
interface SyncPayload {
  event: string
  path: string
  data: unknown
  context?: HookContext
}

/**
 * The part of a hook context the publishers need on another instance: the company (to pick
 * the channel) and what the socket transport sends. Everything else stays on the instance
 * that handled the request.
 */
const portable = (context: HookContext | undefined) =>
  context && {
    path: context.path,
    method: context.method,
    id: context.id,
    params: { company: context.params?.company, provider: context.params?.provider },
    ...(context.dispatch !== undefined ? { dispatch: context.dispatch } : {})
  }

/**
 * With REDIS_URL set, service events travel through Redis and every instance publishes them to
 * its own sockets (feathers-sync). The channel key includes `sync.key`, so deployments (and
 * test runs) sharing one Redis never see each other's events.
 */
export const syncEvents = (app: Application) => {
  const uri = app.get('redisUrl')
  if (!uri) return
  app.configure(
    sync({
      uri,
      key: app.get('syncKey') || 'crewclock-events',
      serialize: (payload: SyncPayload) => JSON.stringify({ ...payload, context: portable(payload.context) }),
      // The socket transport sends `context.dispatch || context.result`: the record is the event data.
      deserialize: (raw: string) => {
        const payload = JSON.parse(raw)
        return { ...payload, context: payload.context && { ...payload.context, result: payload.data } }
      }
    })
  )
  app.hooks({
    setup: [
      async (_context: unknown, next: NextFunction) => {
        await (app as SyncedApplication).sync.ready
        await next()
      }
    ],
    teardown: [
      async (_context: unknown, next: NextFunction) => {
        await next()
        const { pub, sub } = (app as SyncedApplication).sync
        await Promise.allSettled([sub.quit(), pub.quit()])
      }
    ]
  })
}
