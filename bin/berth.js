#!/usr/bin/env node
// Bundles the TypeScript sources with esbuild at each start (a fraction of a second, and always in
// step with src/), then runs the bundle. Dependencies stay external, loaded from node_modules.
// Per-module transpiling hooks (tsx) cost seconds of start-up; one bundle costs a few hundred ms.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import v8 from 'node:v8'
import { build, stop } from 'esbuild'

// Inside the project, so that the bundle's imports resolve from its node_modules.
const dist = fileURLToPath(new URL('../dist/', import.meta.url))

/** Builds the bundle and its map into dist/ (unless there already) and returns the bundle's path. */
async function bundleSources() {
  const { outputFiles } = await build({
    entryPoints: [fileURLToPath(new URL('../src/main.ts', import.meta.url))],
    outfile: `${dist}berth.mjs`,
    write: false,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    // A map file beside the bundle, without the sources' text: stack traces need only the mappings.
    // An inline map made the bundle's source, which V8 holds as long as the process, four times larger.
    sourcemap: 'external',
    sourcesContent: false,
    logLevel: 'warning',
  })
  // esbuild's service process would otherwise live as long as the server.
  await stop()
  const code = outputFiles.find((file) => file.path.endsWith('.mjs')).contents
  const map = outputFiles.find((file) => file.path.endsWith('.map')).contents
  // Named by content: concurrent starts share one file, and bundles of older sources are pruned.
  const name = `berth-${createHash('sha256').update(code).update(map).digest('hex').slice(0, 16)}.mjs`
  const bundle = `${dist}${name}`
  if (!existsSync(bundle)) {
    mkdirSync(dist, { recursive: true })
    // The map first: a bundle that exists has its map.
    for (const [path, contents] of [
      [`${bundle}.map`, map],
      [bundle, Buffer.concat([code, Buffer.from(`//# sourceMappingURL=${name}.map\n`)])],
    ]) {
      const partial = `${path}.${process.pid}.tmp`
      writeFileSync(partial, contents)
      renameSync(partial, path)
    }
  }
  // Bundles of older sources, their maps (and partial writes), once no start can still be loading them.
  for (const file of readdirSync(dist)) {
    const path = `${dist}${file}`
    if (!file.startsWith(name) && /^berth-/.test(file) && Date.now() - statSync(path, { throwIfNoEntry: false })?.mtimeMs > 600_000) {
      rmSync(path, { force: true })
    }
  }
  return bundle
}

// In a function, so that the build's buffers are not held for the life of the server.
const bundle = await bundleSources()
process.setSourceMapsEnabled(true)
// The young generation kept at its initial size while the program loads and a server starts, unless
// node was told otherwise; src/platform/young-generation.ts says why, and lets it grow again.
if (![...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((option) => option.includes('semi-space-growth-factor'))) {
  v8.setFlagsFromString('--semi-space-growth-factor=1')
}
await import(pathToFileURL(bundle).href)
