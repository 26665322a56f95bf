import fs from 'node:fs'
import path from 'node:path'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}

interface CpuProfile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

/** Where a frame's code lives: a package, a source file of the project, or node itself. */
function owner(url: string): string {
  if (!url) return '(native / idle / gc)'
  const file = url.replace(/^file:\/\//, '')
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)
  if (pkg) return pkg[1]
  if (file.startsWith('node:')) return file
  const root = path.resolve(__dirname, '..')
  return file.startsWith(root) ? path.relative(root, file) : file
}

const top = (totals: Map<string, number>, all: number, count: number) =>
  [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, ms]) => `${((ms / all) * 100).toFixed(1).padStart(5)} %  ${ms.toFixed(0).padStart(7)} ms  ${name}`)
    .join('\n')

/**
 * Self time of a `--cpu-prof` profile by function and by owner (package or project file),
 * plus the inclusive time of the project's own functions: where a request's CPU goes.
 */
export function summarizeProfile(file: string, count = 30): string {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const self = new Map<number, number>()
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000))
  const byFunction = new Map<string, number>()
  const byOwner = new Map<string, number>()
  const inclusive = new Map<string, number>()
  let busy = 0
  for (const [id, ms] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame
    if (functionName === '(idle)' || functionName === '(program)') continue
    busy += ms
    const name = `${functionName || '(anonymous)'} ${owner(url)}:${lineNumber + 1}`
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms)
    byOwner.set(owner(url), (byOwner.get(owner(url)) ?? 0) + ms)
    // Inclusive time of project and package frames on the stack, each counted once per sample.
    const seen = new Set<string>()
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame
      const key = owner(frame.url)
      if (!frame.url || seen.has(key)) continue
      seen.add(key)
      inclusive.set(key, (inclusive.get(key) ?? 0) + ms)
    }
  }
  return [
    `profile ${path.basename(file)}: ${busy.toFixed(0)} ms busy`,
    '',
    'self time by function:',
    top(byFunction, busy, count),
    '',
    'self time by package or file:',
    top(byOwner, busy, count),
    '',
    'inclusive time by package or file (on the stack):',
    top(inclusive, busy, count)
  ].join('\n')
}

if (require.main === module)
  process.stdout.write(summarizeProfile(process.argv[2], Number(process.argv[3] ?? 30)) + '\n')
