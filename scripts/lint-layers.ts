import { importGraph } from './import-graph'

/**
 * Layers point one way (STYLE.md): beside file cycles (`npm run lint:cycles`), no two top-level
 * parts of src/ (a folder like resources/, or a file like app.ts) may import each other, even
 * through different files. Prints each such cycle of parts with the imports that make it.
 */
async function main() {
  const graph = await importGraph('src')
  const partOf = (file: string) => file.split('/')[1].replace(/\.ts$/, '')
  const edges = new Map<string, Map<string, string[]>>()
  for (const [file, deps] of Object.entries(graph)) {
    for (const dep of deps) {
      const [from, to] = [partOf(file), partOf(dep)]
      if (from === to) continue
      const targets = edges.get(from) ?? new Map<string, string[]>()
      edges.set(from, targets)
      targets.set(to, [...(targets.get(to) ?? []), `${file} -> ${dep}`])
    }
  }
  const cycles = stronglyConnected([...edges.keys()], (part) => [...(edges.get(part)?.keys() ?? [])]).filter(
    (parts) => parts.length > 1
  )
  if (cycles.length === 0) {
    console.log(`layers: ${new Set(Object.keys(graph).map(partOf)).size} parts of src/, no two import each other`)
    return
  }
  // Each component is reported as the shortest cycle through each of its parts, every step with
  // the imports that make it: enough to see which import points the wrong way.
  for (const parts of cycles) {
    console.error(`parts of src/ that import each other: ${parts.join(', ')}`)
    const seen = new Set<string>()
    for (const start of parts) {
      const cycle = shortestCycle(start, (part) =>
        [...(edges.get(part)?.keys() ?? [])].filter((to) => parts.includes(to))
      )
      const key = [...cycle].sort().join()
      if (seen.has(key)) continue
      seen.add(key)
      console.error(`  ${[...cycle, start].join(' -> ')}`)
      cycle.forEach((from, i) => {
        const imports = edges.get(from)!.get(cycle[(i + 1) % cycle.length])!
        console.error(
          `      ${imports.slice(0, 3).join('\n      ')}${imports.length > 3 ? `\n      (+${imports.length - 3} more)` : ''}`
        )
      })
    }
  }
  process.exit(1)
}

/** The parts of a shortest path from `start` back to itself (breadth first). */
function shortestCycle(start: string, next: (node: string) => string[]): string[] {
  const previous = new Map<string, string>()
  const queue = [start]
  while (queue.length > 0) {
    const node = queue.shift()!
    for (const to of next(node)) {
      if (to === start) {
        const path = [node]
        while (path[0] !== start) path.unshift(previous.get(path[0])!)
        return path
      }
      if (!previous.has(to)) {
        previous.set(to, node)
        queue.push(to)
      }
    }
  }
  return [start]
}

/** Tarjan's strongly connected components. */
function stronglyConnected(nodes: string[], next: (node: string) => string[]): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const components: string[][] = []
  const visit = (node: string) => {
    index.set(node, index.size)
    low.set(node, index.get(node)!)
    stack.push(node)
    for (const to of next(node)) {
      if (!index.has(to)) {
        visit(to)
        low.set(node, Math.min(low.get(node)!, low.get(to)!))
      } else if (stack.includes(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!))
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = []
      let member: string
      do {
        member = stack.pop()!
        component.push(member)
      } while (member !== node)
      components.push(component.sort())
    }
  }
  for (const node of nodes) if (!index.has(node)) visit(node)
  return components
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
