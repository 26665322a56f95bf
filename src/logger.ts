import pino from 'pino'
import type { Logger } from 'pino'

declare module './declarations' {
  interface Configuration {
    /** Set by createApp(). */
    logger: Logger
  }
}

export const createLogger = (level: string) =>
  pino({
    level,
    redact: { paths: ['req.headers.authorization', '*.password', '*.apiKey', '*.accessToken'], censor: '[redacted]' }
  })
