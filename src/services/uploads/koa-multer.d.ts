// @koa/multer ships no types; this covers the part crewclock uses (multer 2 options, a storage engine).
declare module '@koa/multer' {
  import type { IncomingMessage } from 'node:http'
  import type { Readable } from 'node:stream'
  import type { Middleware } from 'koa'

  namespace multer {
    interface File {
      fieldname: string
      originalname: string
      encoding: string
      mimetype: string
      stream: Readable
      [key: string]: unknown
    }
    interface StorageEngine {
      _handleFile(
        req: IncomingMessage,
        file: File,
        callback: (error?: Error | null, info?: Record<string, unknown>) => void
      ): void
      _removeFile(
        req: IncomingMessage,
        file: File & Record<string, unknown>,
        callback: (error: Error | null) => void
      ): void
    }
    interface Limits {
      fieldNameSize?: number
      fieldSize?: number
      fields?: number
      fileSize?: number
      files?: number
      parts?: number
      headerPairs?: number
    }
    interface Options {
      storage?: StorageEngine
      limits?: Limits | ((req: IncomingMessage) => Limits)
      defParamCharset?: string
      preservePath?: boolean
    }
    interface Instance {
      single(field: string): Middleware
    }
  }
  function multer(options?: multer.Options): multer.Instance
  export = multer
}
