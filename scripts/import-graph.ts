import path from 'node:path'

/** The project's import graph as madge sees it: type-only imports and require() count too. */
export const ROOT = path.resolve(__dirname, '..')

interface MadgeResult {
  obj(): Record<string, string[]>
  warnings(): { skipped: string[] }
}
const madge = require('madge') as (paths: string | string[], config: object) => Promise<MadgeResult>

/** Every local file reached from `dir` (relative to the project root) with the local files it imports, paths relative to the root. */
export async function importGraph(dir: string): Promise<Record<string, string[]>> {
  const result = await madge(path.join(ROOT, dir), {
    baseDir: ROOT,
    fileExtensions: ['ts', 'js'],
    tsConfig: path.join(ROOT, 'tsconfig.json')
  })
  // An import madge cannot resolve would silently drop out of the graph: fail instead.
  const { skipped } = result.warnings()
  if (skipped.length > 0) throw new Error(`unresolved imports: ${skipped.join(', ')}`)
  return result.obj()
}
