import { fileURLToPath } from 'node:url'
import preact from '@preact/preset-vite'
import { defineConfig } from 'vite'

// `npm run build:console`: console/ → dist/console/, served by the API process at /console/.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  plugins: [preact()],
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    // The console's content security policy allows no inline code: keep every script in a file.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    target: 'es2022',
  },
})
