import fs from 'node:fs'
import path from 'node:path'
import type { Context, Next } from 'koa'
import type { Application } from '../../declarations'
import { describeApp } from '../../resources/describe'

/** Swagger UI's prebuilt assets, served from the project's own node_modules (no CDN). */
const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'))
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png'
}

const PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>crewclock API reference</title>
    <link rel="stylesheet" href="/docs/swagger-ui.css">
    <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/swagger-ui-bundle.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>
`

// A file rather than an inline script, so the page works under a script-src 'self' policy.
// validatorUrl: null keeps Swagger UI from sending the document to its public validator.
const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  persistAuthorization: false,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout'
})
`

function serveAsset(ctx: Context, name: string) {
  ctx.type = ASSETS[name]
  ctx.set('Cache-Control', 'public, max-age=86400')
  ctx.body = fs.createReadStream(path.join(SWAGGER_UI_DIR, name))
}

/**
 * Public routes: `GET /openapi.json` (the combined description, English names) and `GET /docs`,
 * the API reference page rendering it with Swagger UI.
 */
export const docs = (app: Application) => {
  app.use(async (ctx: Context, next: Next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next()
    if (ctx.path === '/openapi.json') {
      ctx.body = describeApp(app)
    } else if (ctx.path === '/docs' || ctx.path === '/docs/') {
      ctx.type = 'text/html; charset=utf-8'
      ctx.body = PAGE
    } else if (ctx.path === '/docs/init.js') {
      ctx.type = 'text/javascript; charset=utf-8'
      ctx.body = INIT
    } else if (ctx.path.startsWith('/docs/') && Object.hasOwn(ASSETS, ctx.path.slice('/docs/'.length))) {
      serveAsset(ctx, ctx.path.slice('/docs/'.length))
    } else {
      return next()
    }
  })
}
