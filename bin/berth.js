#!/usr/bin/env node
// Bundles the TypeScript sources with esbuild at each start (a fraction of a second, and always in
// step with src/), then runs the bundle. Dependencies stay external, loaded from node_modules.
// Per-module transpiling hooks (tsx) cost seconds of start-up; one bundle costs a few hundred ms.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build, stop } from 'esbuild'

// Inside the project, so that the bundle's imports resolve from its node_modules.
const dist = fileURLToPath(new URL('../dist/', import.meta.url))
const { outputFiles } = await build({
  entryPoints: [fileURLToPath(new URL('../src/main.ts', import.meta.url))],
  outfile: `${dist}berth.mjs`,
  write: false,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'inline',
  logLevel: 'warning',
})
// esbuild's service process would otherwise live as long as the server.
await stop()
const code = outputFiles[0].contents
// Named by content: concurrent starts share one file, and bundles of older sources are pruned.
const name = `berth-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`
const bundle = `${dist}${name}`
if (!existsSync(bundle)) {
  mkdirSync(dist, { recursive: true })
  const partial = `${bundle}.${process.pid}.tmp`
  writeFileSync(partial, code)
  renameSync(partial, bundle)
}
// Bundles of older sources (and partial writes), once no start can still be loading them.
for (const file of readdirSync(dist)) {
  const path = `${dist}${file}`
  if (file !== name && /^berth-/.test(file) && Date.now() - statSync(path, { throwIfNoEntry: false })?.mtimeMs > 600_000) {
    rmSync(path, { force: true })
  }
}
process.setSourceMapsEnabled(true)
await import(pathToFileURL(bundle).href)
