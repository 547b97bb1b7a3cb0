import { readdir, readFile, rm } from 'node:fs/promises'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { build, type Plugin, stop } from 'esbuild'

/**
 * Where this run's bundled test files go: inside the checkout, so that their imports resolve from
 * its node_modules, and a folder of the run's own, so that runs at the same time leave each other's alone.
 */
export const TEST_BUNDLE_DIR = path.join('dist', `test-${process.pid}`)

/** Removes the bundles of runs no longer running (one ended by a signal could not remove its own). */
async function pruneStaleBundles(): Promise<void> {
  const entries = await readdir('dist').catch(() => [] as string[])
  for (const entry of entries) {
    const pid = Number(/^test-(\d+)$/.exec(entry)?.[1])
    if (pid && pid !== process.pid && !isRunning(pid)) await rm(path.join('dist', entry), { recursive: true, force: true })
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Removes this run's bundles. */
export const removeTestBundles = () => rm(TEST_BUNDLE_DIR, { recursive: true, force: true })

// A module that finds files beside itself (the built-in chart, dist/console, the repository root)
// reads import.meta.url: each module keeps its own source's URL, as it has when loaded through tsx.
const keepModuleUrls: Plugin = {
  name: 'keep-module-urls',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined
      const source = await readFile(args.path, 'utf8')
      return { contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' }
    })
  },
}

/**
 * Bundles the test files with esbuild (one output per test file, the code they share in common
 * chunks, dependencies left to node_modules) as bin/berth.js bundles the server: loading a test file
 * through tsx's hooks transpiles each of its modules again in every test process. Returns the
 * bundled path of each test file, in order.
 */
export async function bundleTestFiles(files: string[]): Promise<string[]> {
  await pruneStaleBundles()
  await build({
    entryPoints: files,
    outdir: TEST_BUNDLE_DIR,
    outbase: 'test',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'inline',
    logLevel: 'warning',
    plugins: [keepModuleUrls],
  })
  // esbuild's service process would otherwise live as long as the run.
  await stop()
  return files.map((file) => path.join(TEST_BUNDLE_DIR, path.relative('test', file).replace(/\.ts$/, '.mjs')))
}
