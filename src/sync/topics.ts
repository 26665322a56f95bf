import type { SyncBus } from './bus'

/**
 * The topics of the bus and their messages, in one place: every publisher and subscriber names
 * them from here, so an instance of one release understands the messages of another.
 */
export const TOPICS = {
  /**
   * A write committed events to a company's log, up to `lastId`: `LogAppendedMessage`. A wake-up
   * only: every instance reads the events from the log itself (src/events/delivery.ts), so a lost
   * wake-up delays them until the next poll and loses nothing.
   */
  eventLogAppended: 'event-log.appended',
  /** Keys that stopped working (revoked, or their user deactivated): `{ apiKeyIds }`; their sockets are disconnected. */
  apiKeysRevoked: 'api-keys.revoked'
} as const

export interface LogAppendedMessage {
  companyId: number
  lastId: number
}

export interface KeysRevokedMessage {
  apiKeyIds: number[]
}

/** The numbers of `field` in a message from another instance (an older or newer release may send more). */
export const idsIn = (message: unknown, field: string): number[] => {
  const value = (message as Record<string, unknown> | null)?.[field]
  return Array.isArray(value) ? value.filter((id): id is number => Number.isInteger(id)) : []
}

/**
 * Tells every instance that these keys no longer authenticate, so each disconnects their sockets at
 * once. Not delivered while the bus is down: then each instance's check of its sockets' keys
 * (channels.ts) finds them within its interval, as it does for the CLI, which has no bus.
 */
export function announceRevokedKeys(bus: SyncBus, apiKeyIds: number[]) {
  if (apiKeyIds.length === 0) return
  const message: KeysRevokedMessage = { apiKeyIds }
  bus.publish(TOPICS.apiKeysRevoked, message).catch(() => undefined)
}
