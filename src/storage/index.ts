import type { Application } from '../declarations'
import { FilesystemStorage } from './filesystem'
import type { FileStorage } from './storage'

export * from './storage'
export { FilesystemStorage } from './filesystem'

/** The configured storage driver (today: the filesystem under `uploads.dir`). */
export function createStorage(config: { dir: string }): FileStorage {
  return new FilesystemStorage(config.dir)
}

/** The app's storage, created on first use so that tests can point `uploads.dir` elsewhere first. */
export function storageOf(app: Application): FileStorage {
  let storage = app.get('fileStorage' as any) as FileStorage | undefined
  if (!storage) {
    storage = createStorage(app.get('uploads'))
    app.set('fileStorage' as any, storage)
  }
  return storage
}
