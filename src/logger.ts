import pino from 'pino'

export const createLogger = (level: string) =>
  pino({
    level,
    redact: { paths: ['req.headers.authorization', '*.password', '*.apiKey', '*.accessToken'], censor: '[redacted]' }
  })
