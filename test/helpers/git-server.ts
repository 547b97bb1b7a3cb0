import { execFile, execFileSync, spawn } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'

// A git server on loopback for the Docker executor's builds: git's own smart HTTP (`git
// http-backend`, run as CGI) behind HTTPS with a certificate made here, asking for a token as
// Basic credentials like a provider does. Repositories are made and committed to in a temp dir.

const run = promisify(execFile)

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Ada',
  GIT_AUTHOR_EMAIL: 'ada@example.com',
  GIT_COMMITTER_NAME: 'Ada',
  GIT_COMMITTER_EMAIL: 'ada@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
}

export interface LoopbackGitServer {
  /** https://127.0.0.1:port */
  url: string
  /** The certificate the server presents (for GIT_SSL_CAINFO). */
  certificateFile: string
  /** The Authorization headers requests came with, in order. */
  authorizations: (string | undefined)[]
  /**
   * Makes a repository at `owner/name.git` (bare, served) with a working copy; commit() writes files
   * on `branch` (main when absent; a new branch starts where the working copy is) and returns the sha.
   */
  repository(fullName: string): Promise<{ commit(files: Record<string, string>, message: string, branch?: string): Promise<string> }>
  close(): Promise<void>
}

/** Starts the server; only requests presenting `username:token` as Basic credentials are served. */
export async function startGitServer(username: string, token: string): Promise<LoopbackGitServer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'berth-git-'))
  const root = path.join(dir, 'repos')
  await mkdir(root)
  const keyFile = path.join(dir, 'key.pem')
  const certificateFile = path.join(dir, 'cert.pem')
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certificateFile,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  )
  const { readFile } = await import('node:fs/promises')
  const expected = `Basic ${Buffer.from(`${username}:${token}`).toString('base64')}`
  const authorizations: (string | undefined)[] = []
  const server: Server = createServer({ key: await readFile(keyFile), cert: await readFile(certificateFile) }, (req, res) => {
    authorizations.push(req.headers.authorization)
    if (req.headers.authorization !== expected) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="berth-test"' })
      res.end()
      return
    }
    const url = new URL(req.url ?? '/', 'https://127.0.0.1')
    const child = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
        REMOTE_USER: username,
        REMOTE_ADDR: '127.0.0.1',
      },
    })
    req.pipe(child.stdin)
    const chunks: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk))
    child.on('close', () => {
      const output = Buffer.concat(chunks)
      const end = output.indexOf('\r\n\r\n')
      const head = output.subarray(0, end === -1 ? 0 : end).toString()
      const headers: Record<string, string> = {}
      let status = 200
      for (const line of head.split('\r\n')) {
        const [name, ...value] = line.split(':')
        if (!name) continue
        if (name.toLowerCase() === 'status') status = Number.parseInt(value.join(':').trim(), 10)
        else headers[name] = value.join(':').trim()
      }
      res.writeHead(status, headers)
      res.end(output.subarray(end === -1 ? 0 : end + 4))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `https://127.0.0.1:${port}`,
    certificateFile,
    authorizations,
    async repository(fullName) {
      const bare = path.join(root, `${fullName}.git`)
      const work = path.join(dir, 'work', fullName)
      await mkdir(bare, { recursive: true })
      await mkdir(work, { recursive: true })
      await run('git', ['init', '--quiet', '--bare', bare], { env: GIT_ENV })
      await run('git', ['-C', bare, 'config', 'uploadpack.allowAnySHA1InWant', 'true'], { env: GIT_ENV })
      await run('git', ['init', '--quiet', '-b', 'main', work], { env: GIT_ENV })
      return {
        async commit(files, message, branch = 'main') {
          const current = (await run('git', ['-C', work, 'symbolic-ref', '--short', 'HEAD'], { env: GIT_ENV })).stdout.trim()
          if (current !== branch) {
            await run('git', ['-C', work, 'checkout', '--quiet', branch], { env: GIT_ENV }).catch(() =>
              run('git', ['-C', work, 'checkout', '--quiet', '-b', branch], { env: GIT_ENV }),
            )
          }
          for (const [name, content] of Object.entries(files)) {
            await mkdir(path.dirname(path.join(work, name)), { recursive: true })
            await writeFile(path.join(work, name), content)
          }
          await run('git', ['-C', work, 'add', '--all'], { env: GIT_ENV })
          await run('git', ['-C', work, 'commit', '--quiet', '-m', message], { env: GIT_ENV })
          await run('git', ['-C', work, 'push', '--quiet', bare, `HEAD:refs/heads/${branch}`], { env: GIT_ENV })
          return (await run('git', ['-C', work, 'rev-parse', 'HEAD'], { env: GIT_ENV })).stdout.trim()
        },
      }
    },
    async close() {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      await rm(dir, { recursive: true, force: true })
    },
  }
}
