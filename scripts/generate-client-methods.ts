import fs from 'node:fs'
import path from 'node:path'
import prettier from 'prettier'
import { declaredMethods } from '../src/services/declared'
import { ROOT } from './import-graph'

/**
 * Writes src/client-methods.generated.ts, the method lists of the typed client, from the
 * declarations (src/services/declared.ts). The client runs in the browser (the dashboard bundle),
 * which cannot load the declarations themselves: their rules import the database layer.
 * `--check` (in npm run lint) fails when the file is not what the declarations say.
 */
async function main() {
  const file = path.join(ROOT, 'src', 'client-methods.generated.ts')
  const source = [
    '// Generated from the resource declarations by `npm run generate:client`; do not edit.',
    '',
    '/** Every service of the API with the methods it offers (checked against the server by the tests). */',
    `export const SERVICE_METHODS = ${JSON.stringify(declaredMethods)} as const`,
    ''
  ].join('\n')
  const options = await prettier.resolveConfig(file)
  const formatted = await prettier.format(source, { ...options, filepath: file })
  if (!process.argv.includes('--check')) {
    fs.writeFileSync(file, formatted)
    return
  }
  if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== formatted) {
    console.error('src/client-methods.generated.ts is out of date: run npm run generate:client')
    process.exit(1)
  }
  console.log('client methods: src/client-methods.generated.ts matches the declarations')
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
