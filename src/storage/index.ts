import type { Application } from '../declarations'
import { FilesystemStorage } from './filesystem'
import type { FileStorage } from './storage'

declare module '../declarations' {
  interface Configuration {
    /** Created by storageOf() on first use. */
    fileStorage?: FileStorage
  }
}

export * from './storage'
export { FilesystemStorage } from './filesystem'

/** The configured storage driver (today: the filesystem under `uploads.dir`). */
export function createStorage(config: { dir: string }): FileStorage {
  return new FilesystemStorage(config.dir)
}

/** The app's storage, created on first use so that tests can point `uploads.dir` elsewhere first. */
export function storageOf(app: Application): FileStorage {
  let storage = app.get('fileStorage')
  if (!storage) {
    storage = createStorage(app.get('uploads'))
    app.set('fileStorage', storage)
  }
  return storage
}

/**
 * How long a temporary file must have gone unwritten before a start treats it as left by a
 * crash. Other workers and instances may be mid-upload into the same directory while this one
 * starts; Node ends any request after `server.requestTimeout` (300 s by default), so a file
 * nobody wrote to for 15 minutes belongs to no live request.
 */
export const INCOMPLETE_WRITE_AGE_MS = 15 * 60 * 1000

/** At start: remove the temporary files of uploads that a killed process never finished. */
export async function removeIncompleteWrites(app: Application, now = Date.now()) {
  const storage = storageOf(app)
  const removed = (await storage.removeIncomplete?.(new Date(now - INCOMPLETE_WRITE_AGE_MS))) ?? 0
  if (removed) app.get('logger').info({ removed }, 'removed incomplete upload files')
  return removed
}
