import crypto from 'node:crypto'

/**
 * The signing secret of a subscription: `whsec_` + base64 of 32 random bytes, the form the
 * Standard Webhooks libraries take as it is. The server must read it to sign every delivery, so
 * it is stored encrypted with the app secret (AES-256-GCM under a key of its own, derived from
 * APP_SECRET): a copy of the database alone does not let anyone forge deliveries. It appears in
 * the answer to the create and nowhere else (docs/decisions.md, "Webhook signing secrets").
 */
export const SECRET_PREFIX = 'whsec_'

export const newSigningSecret = () => SECRET_PREFIX + crypto.randomBytes(32).toString('base64')

const encryptionKey = (appSecret: string) =>
  crypto.createHash('sha256').update(`crewclock webhook-secret encryption:${appSecret}`).digest()

export function encryptSigningSecret(secret: string, appSecret: string): string {
  const iv = crypto.randomBytes(12)
  const cipher = crypto.createCipheriv('aes-256-gcm', encryptionKey(appSecret), iv)
  const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
  return [iv, cipher.getAuthTag(), data].map((part) => part.toString('base64url')).join('.')
}

export function decryptSigningSecret(stored: string, appSecret: string): string {
  const [iv, tag, data] = stored.split('.').map((part) => Buffer.from(part, 'base64url'))
  const decipher = crypto.createDecipheriv('aes-256-gcm', encryptionKey(appSecret), iv)
  decipher.setAuthTag(tag)
  return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8')
}
