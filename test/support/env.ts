// Loaded by mocha before anything else, so node-config reads config/test.json.
import path from 'node:path'

process.env.NODE_ENV = 'test'
process.env.NODE_CONFIG_DIR ??= path.resolve(__dirname, '..', '..', 'config')
// Every statement compiled once per shape (src/db/statement-shapes.ts) is also compiled from its values and compared.
process.env.CREWCLOCK_CHECK_SHAPES ??= '1'
