// Builds the dashboard into dist/web, which `ringmaster serve` serves at `/`. `vite --config web/vite.config.ts`
// serves it in development with /api proxied to a local `ringmaster serve` (default port 7420).
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
const api = process.env.RINGMASTER_API ?? 'http://127.0.0.1:7420';

export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 600,
  },
  server: {
    host: '127.0.0.1',
    proxy: { '/api': { target: api, ws: true, changeOrigin: false } },
  },
});
