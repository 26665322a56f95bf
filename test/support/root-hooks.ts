import fs from 'node:fs'
import path from 'node:path'
import { dropTestDatabases } from './databases'
import { stopServers } from './harness'
import { takeOverlaps } from './pg-one-at-a-time'

export const mochaHooks = {
  afterEach() {
    const overlaps = takeOverlaps()
    if (overlaps.length > 0) {
      throw new Error(
        `${overlaps.length} statement(s) sent on a PostgreSQL connection that was still running one ` +
          `(pg 9 refuses this):\n${overlaps.join('\n\n')}`
      )
    }
  },
  async afterAll() {
    await stopServers()
    await dropTestDatabases()
    // The run's upload and data directories (named after the process id).
    const tmp = path.resolve(__dirname, '..', '..', '.tmp', 'test')
    for (const entry of fs.existsSync(tmp) ? fs.readdirSync(tmp) : []) {
      if (entry.endsWith(`-${process.pid}`)) fs.rmSync(path.join(tmp, entry), { recursive: true, force: true })
    }
  }
}
