'use strict'
// Preloaded with `node --require` by test/api/cli.test.ts: when the process exits, writes which of the project's
// modules and which packages were loaded, so a test can tell that `--help` built no application.
const path = require('node:path')

const root = path.resolve(__dirname, '..', '..')
process.on('exit', () => {
  const files = Object.keys(require.cache)
  const packages = new Set()
  const sources = []
  const marker = `${path.sep}node_modules${path.sep}`
  for (const file of files) {
    // node_modules may be a symbolic link: the cache holds real paths, so look for the last node_modules/.
    const at = file.lastIndexOf(marker)
    if (at >= 0) {
      const [scope, name] = file.slice(at + marker.length).split(path.sep)
      packages.add(scope.startsWith('@') ? `${scope}/${name}` : scope)
    } else if (file.startsWith(root + path.sep)) sources.push(path.relative(root, file).split(path.sep).join('/'))
  }
  process.stderr.write(`\nloaded-modules: ${JSON.stringify({ sources, packages: [...packages] })}\n`)
})
