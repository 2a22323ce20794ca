import express, { type Router } from 'express';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * The interactive API page at /api/docs: Swagger UI from the swagger-ui-dist package,
 * served from this server (no CDN), reading /openapi.json.
 */
export function docsRouter(): Router {
  const assets = (require('swagger-ui-dist') as { getAbsoluteFSPath(): string }).getAbsoluteFSPath();
  const router = express.Router();
  router.get('/', (_req, res) => {
    res.type('html').send(`<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Crucible API</title>
  <link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/api/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/api/docs/init.js"></script>
</body>
</html>`);
  });
  // A separate file, so a strict Content-Security-Policy without inline scripts still works.
  router.get('/init.js', (_req, res) => {
    res
      .type('application/javascript')
      .send(`window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true });\n`);
  });
  router.use('/assets', express.static(assets, { index: false, maxAge: '1h' }));
  return router;
}
