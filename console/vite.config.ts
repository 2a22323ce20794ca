import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);

/**
 * The web console's build: `npm run build` writes it to dist/console, which the gateway
 * serves at `/` (gateway/console.ts). Every page is its own chunk, so the first load carries
 * only the shell and the page opened.
 */
export default defineConfig({
  root: here,
  base: '/',
  plugins: [react()],
  build: {
    outDir: path.join(here, '..', 'dist', 'console'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 600,
  },
});
