import { importGraph } from './import-graph'

/**
 * Migrations are frozen: a migration must replay as it first ran, so it imports packages and
 * migrations/support/ only, never src/ (whose code changes meaning over time).
 */
async function main() {
  const graph = await importGraph('migrations')
  const outside = Object.entries(graph).flatMap(([file, deps]) =>
    deps.filter((dep) => !dep.startsWith('migrations/')).map((dep) => `${file} -> ${dep}`)
  )
  if (outside.length > 0) {
    console.error(
      `migrations import from outside migrations/ (copy what they need into migrations/support/):\n  ${outside.join('\n  ')}`
    )
    process.exit(1)
  }
  console.log(`migrations: ${Object.keys(graph).length} files, no import from outside migrations/`)
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
