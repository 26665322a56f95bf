import { Conflict, FeathersError } from '@feathersjs/errors'

/** The statuses of CONTRACT §3.2 and §13.5 that @feathersjs/errors has no class for (its 422 is named `Unprocessable`). */
export class PayloadTooLarge extends FeathersError {
  constructor(message = 'Payload too large', data?: unknown) {
    super(message, 'PayloadTooLarge', 413, 'payload-too-large', data)
  }
}

export class UnsupportedMediaType extends FeathersError {
  constructor(message = 'Unsupported media type', data?: unknown) {
    super(message, 'UnsupportedMediaType', 415, 'unsupported-media-type', data)
  }
}

export class UnprocessableEntity extends FeathersError {
  constructor(message = 'Unprocessable entity', data?: unknown) {
    super(message, 'UnprocessableEntity', 422, 'unprocessable-entity', data)
  }
}

/**
 * Why a request conflicts with the stored state: every 409 carries one of these as `data.reason`
 * (docs/decisions.md, "One Conflict shape"), described in the API's Error schema.
 */
export const CONFLICT_REASONS = {
  duplicate: 'a record with these values exists; `validationErrors` names the field',
  'still-referenced': 'other records still reference the record; `references` counts them per collection',
  'illegal-move': 'the workflow does not allow this status change',
  'future-days': 'days after today cannot take this status; `days` lists them',
  'days-not-submitted': 'a period is approved while some of its days are not submitted; `days` lists them',
  'day-approved': 'the change would alter an approved day; `days` lists them',
  'day-not-draft': 'a submitted or approved day refuses changes to its figures',
  'month-locked': 'the change would alter an approved, locked month; `months` lists them',
  'running-entry': 'the user has a running time entry (`ids`) that must end first',
  overlap: 'the record would share time with another of the user (`ids`)',
  'not-requested': 'an absence is approved or declined before it is requested',
  'not-pausable': 'the entry cannot be paused in its state',
  'version-exists': 'a working-time version from that day exists (`ids` where it is a user’s)',
  'first-version': 'the first working-time version cannot be deleted',
  'own-account': 'the API key’s own user cannot be deactivated through it',
  'already-deactivated': 'the user is already deactivated',
  'last-admin': 'the last active administrator cannot be deactivated',
  'already-revoked': 'the API key is already revoked',
  'idempotency-in-flight': 'a request with the same `Idempotency-Key` is still running; retry once it has answered',
  'subscription-deactivated': 'the webhook subscription is deactivated: reactivate it before a replay'
} as const

export type ConflictReason = keyof typeof CONFLICT_REASONS

/**
 * The `data` of a 409: `reason`, and `ids` where the conflict names records (the other entry, the
 * deactivated user); a reason may add its own fields (`days`, `months`, `userIds`, `references`,
 * `validationErrors`).
 */
export interface ConflictData {
  reason: ConflictReason
  ids?: number[]
  validationErrors?: Record<string, string>
  [field: string]: unknown
}

export const conflict = (message: string, data: ConflictData) => new Conflict(message, data)
