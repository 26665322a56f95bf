/** The part of better-sqlite3's API the benchmark's platform (bench/platform.ts) uses. */
declare module 'better-sqlite3' {
  interface RunResult {
    changes: number
    lastInsertRowid: number | bigint
  }
  interface Statement {
    all(...params: unknown[]): Record<string, any>[]
    get(...params: unknown[]): Record<string, any> | undefined
    run(...params: unknown[]): RunResult
  }
  interface Transaction<F extends (...args: any[]) => any> {
    (...args: Parameters<F>): ReturnType<F>
    immediate(...args: Parameters<F>): ReturnType<F>
  }
  interface Database {
    prepare(sql: string): Statement
    pragma(source: string): unknown
    transaction<F extends (...args: any[]) => any>(fn: F): Transaction<F>
    close(): void
  }
  interface DatabaseConstructor {
    new (filename: string, options?: { timeout?: number }): Database
  }
  const Database: DatabaseConstructor
  export = Database
}
