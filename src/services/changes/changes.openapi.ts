import type { Json, OpenApiTools, PathItems } from '../../resources/openapi'

const EVENT_ID = { type: 'string', pattern: '^(0|[1-9][0-9]*)$' }

/** One event of the feed; the client's `ChangeEvent` type is generated from it (scripts/generate-client.ts). */
export const changeEventSchema: Json = {
  $id: 'ChangeEvent',
  type: 'object',
  description:
    'One entry of the event log (CONTRACT §13.1): a record created, changed or removed by a write or as its consequence, or a whole-company recomputation.',
  required: ['id', 'type', 'occurredAt', 'data', 'actor', 'requestId'],
  additionalProperties: false,
  properties: {
    id: {
      ...EVENT_ID,
      description:
        'Increases within the company in the order its events become readable: the feed, sockets and webhooks never hand out a lower id after a higher one; compare as numbers.'
    },
    type: {
      type: 'string',
      pattern: '^[a-z][a-z0-9-]*\\.[a-z]+$',
      description:
        "`<collection>.<created|patched|removed>` (uploads: `uploads.*`), or `company.recomputed` (many users' time sheets recomputed at once)."
    },
    occurredAt: { type: 'string', format: 'date-time' },
    data: {
      type: 'object',
      description:
        'The record as the REST API returned it when the event was logged; for `removed` as it was before the request. For `company.recomputed`: `reason`, `fromDay` (or null), `userIds`, `months`.'
    },
    actor: {
      description: 'Who made the change.',
      anyOf: [
        {
          type: 'object',
          required: ['apiKeyId'],
          additionalProperties: false,
          properties: { apiKeyId: { type: 'integer' } }
        },
        {
          type: 'object',
          required: ['userId'],
          additionalProperties: false,
          properties: { userId: { type: 'integer', description: 'An admin on the settings page.' } }
        },
        {
          type: 'object',
          required: ['system'],
          additionalProperties: false,
          properties: { system: { const: true, description: 'Scheduled work of the server.' } }
        }
      ]
    },
    requestId: {
      type: 'string',
      description: "The request's `X-Request-Id`, the same for every event of that request."
    }
  }
}

/** The query of `find`; the client's `ChangesQuery` type is generated from it, the parameters below too. */
export const changesQuerySchema: Json = {
  $id: 'ChangesQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    after: {
      ...EVENT_ID,
      description:
        'An event id (or "0"): return the events after it. Without it: from the oldest retained event. Not an id of this company → 400; past retention → 410.'
    },
    size: { type: 'integer', minimum: 1, maximum: 500, default: 100, description: 'Events per page.' },
    types: {
      type: 'string',
      description:
        'Only these event types, comma-separated; `*` is a wildcard (`time-entries.*`, `*.removed`). A type that matches none → 400.'
    }
  }
}

/** A page of the feed, as `find` answers it. */
const changesPageSchema = (event: Json): Json => ({
  type: 'object',
  required: ['items', 'next'],
  additionalProperties: false,
  properties: {
    items: { type: 'array', items: event },
    next: {
      ...EVENT_ID,
      description:
        'The `after` of the next call: the last event of this page, or (nothing more to read) the newest event id the feed has seen; `after` itself or "0" for an empty log.'
    }
  }
})

/** `GET /v1/changes` in the API description. */
export function changesOperations(tools: OpenApiTools): PathItems {
  const tag = 'Changes'
  tools.tags.set(tag, '`/v1/changes`: the event log as a change feed')
  const event = tools.component('ChangeEvent', changeEventSchema)
  return {
    '/v1/changes': {
      get: {
        tags: [tag],
        summary: 'Read the change feed',
        description:
          'The events of the company after `after`, oldest first: every record created, changed or removed (consequences such as recomputed time sheets and cascaded deletes included). Any `<collection>:read` scope opens it; a key sees the events of the collections it can read. Events are kept for `events.retentionDays` (default 30): a cursor older than that is 410. Syncing is described in docs/integrations.md.',
        operationId: 'listChanges',
        parameters: Object.entries<Json>(changesQuerySchema.properties).map(([name, { description, ...schema }]) => ({
          name,
          in: 'query',
          description,
          schema
        })),
        responses: {
          '200': tools.json(changesPageSchema(event), 'A page of events and the cursor for the next call.'),
          ...tools.errors(400, 401, 403, 410)
        }
      }
    }
  }
}
