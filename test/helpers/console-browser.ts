import { readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { build } from 'vite'
import { generateConsoleSources } from '../../scripts/console-generate.ts'
import { repoRoot } from './process.ts'

// What the tests and scripts that drive the console in Debian's Chromium share: where Chromium is,
// its flags, and a build of the console no older than its sources.

export const CHROMIUM = '/usr/bin/chromium'
// Without the background-networking flags, Chromium's own connections are refused on CI machines.
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/**
 * A request Chromium failed because this machine's network interfaces changed under it: the Docker
 * engine adds and removes a bridge per environment, other test files' too. The page retries (its
 * polling and its streams); the tests do not count it as the page's error.
 */
export const HOST_NETWORK_CHANGED = /net::ERR_NETWORK_CHANGED/

/** Builds the console when dist/console is missing or older than a file of console/ (its generated files made first), so a test never runs an old build. */
export async function ensureConsoleBuilt() {
  await generateConsoleSources()
  const sources = path.join(repoRoot, 'console')
  const builtAt = statSync(path.join(repoRoot, 'dist', 'console', 'index.html'), { throwIfNoEntry: false })?.mtimeMs ?? 0
  const changedAt = Math.max(
    ...readdirSync(sources, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => statSync(path.join(entry.parentPath, entry.name)).mtimeMs),
  )
  if (changedAt > builtAt) await build({ configFile: path.join(sources, 'vite.config.ts'), logLevel: 'warn' })
}
