import fs from 'node:fs'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { pipeline } from 'node:stream/promises'
import type { Readable } from 'node:stream'
import { FileMissingError, type FileStorage } from './storage'

const KEY = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_.-]+)*$/
const PARTIAL_SUFFIX = '.partial'
/** The name `write` gives its temporary file: the key's last segment, a UUID, `.partial`. */
const PARTIAL = /^[A-Za-z0-9_.-]+\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.partial$/

/**
 * Files under one directory, a key being a relative path. A write goes to a temporary file that
 * is renamed into place when complete, so a key never names a partial file.
 */
export class FilesystemStorage implements FileStorage {
  readonly root: string

  constructor(dir: string) {
    this.root = path.resolve(dir)
  }

  /** The file of a key; keys are ours, but a key must still never leave the root. */
  pathOf(key: string) {
    const file = path.resolve(this.root, key)
    if (!KEY.test(key) || key.split('/').includes('..') || !file.startsWith(this.root + path.sep)) {
      throw new Error(`Invalid storage key ${JSON.stringify(key)}`)
    }
    return file
  }

  async write(key: string, content: Readable) {
    const file = this.pathOf(key)
    await fs.promises.mkdir(path.dirname(file), { recursive: true })
    const partial = `${file}.${randomUUID()}${PARTIAL_SUFFIX}`
    try {
      await pipeline(content, fs.createWriteStream(partial, { flags: 'wx' }))
      await fs.promises.rename(partial, file)
    } catch (error) {
      await fs.promises.rm(partial, { force: true })
      throw error
    }
  }

  async read(key: string): Promise<Readable> {
    const file = this.pathOf(key)
    const handle = await fs.promises.open(file, 'r').catch((error) => {
      throw error?.code === 'ENOENT' ? new FileMissingError(key) : error
    })
    return handle.createReadStream()
  }

  async remove(key: string) {
    await fs.promises.rm(this.pathOf(key), { force: true })
  }

  /**
   * Removes the temporary files of writes that never finished (the process was killed mid-upload)
   * and were last written before `olderThan`. Only names `write` makes are touched, never other
   * files in the directory, and symbolic links are not followed.
   */
  async removeIncomplete(olderThan: Date): Promise<number> {
    let removed = 0
    const visit = async (dir: string): Promise<void> => {
      const entries = await fs.promises.readdir(dir, { withFileTypes: true }).catch((error) => {
        if (error?.code === 'ENOENT') return []
        throw error
      })
      for (const entry of entries) {
        const file = path.join(dir, entry.name)
        if (entry.isDirectory()) await visit(file)
        else if (entry.isFile() && PARTIAL.test(entry.name)) {
          const stat = await fs.promises.stat(file).catch(() => undefined)
          if (stat && stat.mtimeMs < olderThan.getTime()) {
            await fs.promises.rm(file, { force: true })
            removed++
          }
        }
      }
    }
    await visit(this.root)
    return removed
  }

  async exists(key: string) {
    return fs.promises.access(this.pathOf(key)).then(
      () => true,
      () => false
    )
  }
}
