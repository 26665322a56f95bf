import fs from 'node:fs'
import path from 'node:path'
import { dropTestDatabases } from './databases'
import { stopServers } from './harness'
import { takeOverlaps, watchTest } from './pg-one-at-a-time'

export const mochaHooks = {
  beforeEach(this: Mocha.Context) {
    watchTest(this.currentTest?.fullTitle() ?? '(unnamed test)')
  },
  async afterAll() {
    const overlaps = takeOverlaps()
    await stopServers()
    await dropTestDatabases()
    // The run's upload and data directories (named after the process id).
    const tmp = path.resolve(__dirname, '..', '..', '.tmp', 'test')
    for (const entry of fs.existsSync(tmp) ? fs.readdirSync(tmp) : []) {
      if (entry.endsWith(`-${process.pid}`)) fs.rmSync(path.join(tmp, entry), { recursive: true, force: true })
    }
    if (overlaps.length > 0) {
      const more = overlaps.length > 5 ? `\n\n… and ${overlaps.length - 5} more` : ''
      throw new Error(
        `${overlaps.length} statement(s) sent on a PostgreSQL connection that was still running one ` +
          `(pg 9 refuses this):\n${overlaps.slice(0, 5).join('\n\n')}${more}`
      )
    }
  }
}
