import { createHmac, timingSafeEqual } from 'node:crypto'
import type { Application } from '../../declarations'

/**
 * Download links carry their own authorisation: an expiry and an HMAC of the link's path and
 * that expiry under the app secret. Anyone holding the link can fetch the file until it expires.
 * The path names the upload under its parent, like the upload itself:
 * `/v1/assignments/7/uploads/12/download?expires=...&signature=...`.
 */
export const downloadPath = (uploadsPath: string, uploadId: number | string) => `${uploadsPath}/${uploadId}/download`

export function signDownload(secret: string, path: string, expires: number | string): string {
  return createHmac('sha256', secret).update(`crewclock-upload-download\n${path}\n${expires}`).digest('base64url')
}

/** An absolute, expiring link; `base` is PUBLIC_URL, else the request's origin. */
export function downloadUrl(app: Application, path: string, origin?: string, now = Date.now()): string {
  const expires = Math.floor(now / 1000) + Number(app.get('uploads').urlTtlSeconds)
  const base = (app.get('publicUrl') || origin || `http://localhost:${app.get('port')}`).replace(/\/+$/, '')
  const query = new URLSearchParams({
    expires: String(expires),
    signature: signDownload(app.get('appSecret'), path, expires)
  })
  return `${base}${path}?${query}`
}

export type DownloadCheck = 'valid' | 'expired' | 'invalid'

export function checkDownload(
  secret: string,
  path: string,
  expires: unknown,
  signature: unknown,
  now = Date.now()
): DownloadCheck {
  if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires) || typeof signature !== 'string') return 'invalid'
  const expected = Buffer.from(signDownload(secret, path, expires))
  const given = Buffer.from(signature)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid'
  return Number(expires) * 1000 < now ? 'expired' : 'valid'
}
