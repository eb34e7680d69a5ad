/** Builds the console into renderer/dist, which the service serves at `/` on the management port. */
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  root: 'renderer',
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The console is served by Junction itself, never from a CDN; source maps stay out of the installer.
    sourcemap: false,
    chunkSizeWarningLimit: 2000,
  },
});
