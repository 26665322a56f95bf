import path from 'node:path'
import { build, BuildOptions } from 'esbuild'

/**
 * Bundles the browser code of the settings page and the dashboard (this folder, run in Node)
 * into public/assets/: one script per page with the typed client and socket.io inside, and the
 * stylesheet. Nothing is loaded from elsewhere at run time.
 */
export const webBuildOptions: BuildOptions = {
  absWorkingDir: path.resolve(__dirname, '..', '..'),
  entryPoints: {
    settings: 'src/web/settings.ts',
    dashboard: 'src/web/dashboard.ts',
    crewclock: 'src/web/crewclock.css'
  },
  outdir: 'public/assets',
  bundle: true,
  minify: true,
  sourcemap: 'linked',
  platform: 'browser',
  format: 'iife',
  target: 'es2020',
  logLevel: 'warning'
}

export const buildWeb = () => build(webBuildOptions)

if (require.main === module) {
  buildWeb().catch(() => process.exit(1))
}
