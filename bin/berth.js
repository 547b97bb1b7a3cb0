#!/usr/bin/env node
// Bundles the TypeScript sources with esbuild at each start (a fraction of a second, and always in
// step with src/), then runs the bundle. Dependencies stay external, loaded from node_modules.
// Per-module transpiling hooks (tsx) cost seconds of start-up; one bundle costs a few hundred ms.
import { rm } from 'node:fs/promises'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))
// Inside the project, so that the bundle's imports resolve from its node_modules.
const outfile = `${root}dist/berth-${process.pid}.mjs`
await build({
  entryPoints: [`${root}src/main.ts`],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'inline',
  logLevel: 'warning',
})
process.setSourceMapsEnabled(true)
try {
  await import(pathToFileURL(outfile).href)
} finally {
  await rm(outfile, { force: true })
}
