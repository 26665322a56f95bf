import { FeathersError } from '@feathersjs/errors'

/** The two statuses of CONTRACT §3.2 that @feathersjs/errors has no class for. */
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
