/**
 * Vite build of the console: output in dist/ (served by the gateway at /), one chunk per page plus
 * shared chunks. `npm run dev -w @gatehouse/web` (and `vite preview`) proxy the API to GATEHOUSE_URL.
 */
import { defineConfig } from 'vite';

const target = process.env.GATEHOUSE_URL ?? 'http://127.0.0.1:3000';

export default defineConfig({
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 1200,
    rolldownOptions: {
      // Mantine's modules start with "use client" (for React server components): meaningless here
      onwarn(warning, warn) {
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
  server: {
    proxy: { '/api': target, '/pg': target, '/v1': target },
  },
  // `vite preview` serves the build under the policy the gateway sends, so a violation shows here too
  preview: {
    proxy: { '/api': target, '/pg': target, '/v1': target },
    headers: {
      'content-security-policy':
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'",
    },
  },
});
