import { constants, existsSync } from 'node:fs'
import { lstat, open, realpath } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import { AppError, notFound } from '#src/platform/http/errors.ts'

/**
 * The console's own policy: its scripts, styles and API calls come from this origin only, with no
 * inline code, eval, framing, plugins or form posts. The API's responses keep `default-src 'none'`.
 */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
}

// Plain names only: no empty or dot-led segment (so no `..`), nothing percent-decoding could smuggle.
const SAFE_PATH = /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)*[A-Za-z0-9_-][A-Za-z0-9._-]*$/

// O_NOFOLLOW: the file opened is the one checked, even if it was swapped for a symlink since.
// O_NONBLOCK: opening a FIFO returns at once (and is then refused) instead of waiting for a writer.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0)

/**
 * The contents of `root/relative` when it is a regular file reached without any symlink below
 * `root` (the real path must be exactly the root's real path joined with `relative`, so a
 * symlinked folder is refused as a symlinked file is); undefined otherwise. The type is checked
 * on the opened handle, so what is read is what was checked.
 */
async function readRegularFile(root: string, relative: string): Promise<Buffer | undefined> {
  const realRoot = await realpath(root).catch(() => undefined)
  const real = await realpath(path.join(root, relative)).catch(() => undefined)
  if (realRoot === undefined || real !== path.join(realRoot, relative)) return undefined
  const handle = await open(real, OPEN_FLAGS).catch(() => undefined)
  if (!handle) return undefined
  try {
    return (await handle.stat()).isFile() ? await handle.readFile() : undefined
  } finally {
    await handle.close()
  }
}

/** `dist/console` of the checkout: the first folder up from here (src/modules/console or dist/) holding package.json. */
export function defaultConsoleRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir)
  return path.join(dir, 'dist', 'console')
}

/**
 * Serves the built console (`npm run build:console`) at /console/, without credentials: it holds
 * no data, and every API call it makes carries the user's token. Only regular files under `root`
 * with a known type, reached without a symlink, are served. Vite names assets by their content,
 * so they are cached for good; index.html is revalidated on every load so that a new build takes
 * effect at once.
 */
export function consoleRoutes(root = defaultConsoleRoot()): FastifyPluginAsync {
  async function send(reply: FastifyReply, relative: string) {
    if (!(await lstat(path.join(root, 'index.html')).catch(() => undefined))) {
      throw new AppError('service_unavailable', 'the console is not built: run `npm run build:console` (`npm start` does it), then reload')
    }
    const type = TYPES[path.extname(relative)]
    if (!type || !SAFE_PATH.test(relative)) throw notFound('console file')
    const contents = await readRegularFile(root, relative)
    if (!contents) throw notFound('console file')
    return reply
      .header('content-type', type)
      .header('content-security-policy', CONSOLE_CSP)
      .header('cache-control', relative.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache')
      .send(contents)
  }

  return async (app) => {
    const options = { config: { public: true }, schema: { hide: true } }
    app.get('/console', options, (_req, reply) => send(reply, 'index.html'))
    app.get<{ Params: { '*': string } }>('/console/*', options, (req, reply) => send(reply, req.params['*'] || 'index.html'))
  }
}
