import pino from 'pino'
import type { Logger } from 'pino'

declare module './declarations' {
  interface Configuration {
    /** Set by createApp(). */
    logger: Logger
  }
}

/**
 * What a database error carries of the rows and values it was about: PostgreSQL's `detail`
 * ("Failing row contains (…, marta.rossi@example.com, …)", "Key (email)=(…) already exists"),
 * `where` and `internalQuery`, knex's `bindings`. A 5xx is logged with its error: the code, the
 * message (the statement with placeholders) and the constraint, table and column stay.
 */
const VALUE_FIELDS = ['detail', 'where', 'internalQuery', 'bindings']

const errorWithoutValues = (error: unknown): unknown => {
  const serialized: unknown = pino.stdSerializers.err(error as Error)
  if (serialized === null || typeof serialized !== 'object') return serialized
  const fields = serialized as Record<string, unknown>
  for (const field of VALUE_FIELDS) delete fields[field]
  return fields
}

/** `destination`: where the lines go (stdout by default; tests read them). */
export const createLogger = (level: string, destination?: pino.DestinationStream) =>
  pino(
    {
      level,
      serializers: { err: errorWithoutValues },
      redact: { paths: ['req.headers.authorization', '*.password', '*.apiKey', '*.accessToken'], censor: '[redacted]' }
    },
    destination
  )
