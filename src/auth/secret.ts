import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

/**
 * APP_SECRET signs tokens and download URLs and encrypts stored API keys. When it is not
 * configured, one is generated into <dataDir>/secret on first start and reused afterwards, so
 * `npm start` works on a fresh machine and keys stay readable across restarts.
 */
export function resolveAppSecret(configured: string, dataDir: string): string {
  if (configured) return configured
  const file = path.join(dataDir, 'secret')
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim()
  fs.mkdirSync(dataDir, { recursive: true })
  const secret = crypto.randomBytes(48).toString('base64url')
  try {
    fs.writeFileSync(file, secret, { mode: 0o600, flag: 'wx' })
    return secret
  } catch {
    // Another worker process wrote it first.
    return fs.readFileSync(file, 'utf8').trim()
  }
}
