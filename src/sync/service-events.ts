import { getServiceOptions } from '@feathersjs/feathers'
import type { Application, HookContext } from '../declarations'
import { TOPICS, type ResyncMessage } from './topics'

const STANDARD_EVENTS = ['created', 'updated', 'patched', 'removed']

/**
 * The part of a hook context the publishers need on any instance: the company (to pick the
 * channel) and what the socket transport sends. Everything else stays on the instance that handled
 * the request; it is the same object for the sockets of this instance, so a publisher cannot come
 * to depend on something that another instance does not get.
 */
interface PortableContext {
  path: string
  method: string
  id?: unknown
  params: { company?: { id: number }; provider?: string }
  dispatch?: unknown
}

export interface ServiceEventMessage {
  path: string
  event: string
  data: unknown
  context: PortableContext
}

const portable = (context: HookContext): PortableContext => ({
  path: context.path,
  method: context.method,
  id: context.id,
  params: { company: context.params?.company, provider: context.params?.provider },
  ...(context.dispatch !== undefined ? { dispatch: context.dispatch } : {})
})

/** The service's own `emit`, which the mixin below replaces with publishing on the bus. */
const LOCAL_EMIT = Symbol('crewclock.localEmit')
type Emit = (event: string | symbol, ...args: unknown[]) => boolean
type Emitting = { emit: Emit; [LOCAL_EMIT]?: Emit }

/**
 * Service events travel on the bus (`src/sync/bus.ts`): every instance emits them on its own
 * service, where `app.publish` (channels.ts) sends them to its sockets. An event reaches this
 * instance's sockets at once and the others' through Redis or the cluster primary; without either,
 * the bus is this process and nothing changes. The `authentication` service is left out: its
 * events carry tokens and are published to no one.
 *
 * An event that could not be handed to Redis is missed by the other instances. Its company is
 * remembered, and when the bus is up again every instance is asked to close that company's sockets
 * (TOPICS.realtimeResync), so their clients reconnect and read again instead of staying silently stale.
 * Must be configured before the services: it wraps their `emit` as they are registered.
 */
export const syncServiceEvents = (app: Application) => {
  const bus = app.get('bus')
  const missed = new Set<number>()

  app.mixins.push((service: Emitting, path: string) => {
    if (path === 'authentication' || service[LOCAL_EMIT]) return
    const events = [...STANDARD_EVENTS, ...(getServiceOptions(service)?.events ?? [])]
    const localEmit = service.emit
    service[LOCAL_EMIT] = localEmit
    service.emit = function (event: string | symbol, data?: unknown, context?: unknown) {
      if (typeof event !== 'string' || !events.includes(event) || !context)
        return localEmit.call(this, event, data, context)
      const message: ServiceEventMessage = { path, event, data, context: portable(context as HookContext) }
      bus.publish(TOPICS.serviceEvent, message).catch(() => {
        const companyId = message.context.params.company?.id
        if (companyId) missed.add(companyId)
      })
      return true
    }
  })

  bus.subscribe(TOPICS.serviceEvent, (received) => {
    const { path, event, data, context } = received as ServiceEventMessage
    const service = app.services[path] as Emitting | undefined
    const emit = service?.[LOCAL_EMIT]
    // The socket transport sends `context.dispatch || context.result`: the record is the event data.
    if (emit) emit.call(service, event, data, { ...context, app, service, result: data })
  })

  bus.on('up', () => {
    if (missed.size === 0) return
    const message: ResyncMessage = { companyIds: [...missed] }
    missed.clear()
    bus.publish(TOPICS.realtimeResync, message).catch(() => message.companyIds.forEach((id) => missed.add(id)))
  })
}
