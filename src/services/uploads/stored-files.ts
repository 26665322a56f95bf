import type { HookContext, NextFunction } from '../../declarations'
import { removeAll, storageOf } from '../../storage'

export interface StoredFilesParams {
  /** Storage keys whose rows a delete removes; the files go once the delete has committed. */
  storedFilesToDelete?: string[]
}

/**
 * Files are not transactional: a delete collects the keys of the upload rows it removes, and
 * the files are removed only after the transaction committed (a rolled-back delete keeps them).
 */
export const deleteStoredFilesAfterCommit = async (context: HookContext, next: NextFunction) => {
  if (context.method !== 'remove') return next()
  const keys: string[] = []
  const outer = context.params.transaction?.trx
  ;(context.params as StoredFilesParams).storedFilesToDelete = keys
  await next()
  const storage = storageOf(context.app)
  if (outer)
    outer.executionPromise.then(
      () => removeAll(storage, keys),
      () => undefined
    )
  else await removeAll(storage, keys)
}
