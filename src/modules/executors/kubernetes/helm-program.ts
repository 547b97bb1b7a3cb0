import { spawn } from 'node:child_process'

// The `helm` program (and `kubectl`, run the same way), run with argv arrays (never a shell). Its output goes line by line to the
// deployment log; a cancel kills it.

export interface HelmRun {
  /** What helm wrote to standard output (a rendered manifest, for `helm template`). */
  stdout: string
  stderr: string
  code: number | null
}

export class HelmFailed extends Error {}

/**
 * Runs `helm args…`; resolves when it exits 0, rejects with HelmFailed (its last error lines) when
 * it does not, and with an AbortError when `signal` aborts, after killing it.
 */
export function runHelm(
  helmPath: string,
  args: string[],
  options: {
    signal: AbortSignal
    env?: Record<string, string>
    onLine?: (line: string, stream: 'stdout' | 'stderr') => void
    /** Keeps standard output out of the failure message (a rendered manifest). */
    quietStdout?: boolean
    /** How messages name the program: `helm` unless said. */
    program?: string
  },
): Promise<HelmRun> {
  return new Promise((resolve, reject) => {
    if (options.signal.aborted) return reject(options.signal.reason)
    // A clean environment: helm reads no configuration of the runner's user (HELM_*, KUBECONFIG).
    const child = spawn(helmPath, args, {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: options.env?.HOME ?? '/nonexistent', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const out: Buffer[] = []
    const err: Buffer[] = []
    // The last lines of both streams, in order: helm says why a repository failed on stdout.
    const tail: string[] = []
    const lines = (stream: 'stdout' | 'stderr') => {
      let rest = ''
      return (chunk: Buffer) => {
        ;(stream === 'stdout' ? out : err).push(chunk)
        const text = rest + chunk.toString('utf8')
        const parts = text.split('\n')
        rest = parts.pop() ?? ''
        for (const line of parts) {
          if (line.trim() === '') continue
          options.onLine?.(line, stream)
          // A rendered manifest is no message (and may hold values): only stderr, and stdout of commands that print no manifest.
          if (stream === 'stderr' || !options.quietStdout) tail.push(line.trim())
          if (tail.length > 3) tail.shift()
        }
      }
    }
    child.stdout.on('data', lines('stdout'))
    child.stderr.on('data', lines('stderr'))
    const abort = () => child.kill('SIGTERM')
    options.signal.addEventListener('abort', abort, { once: true })
    child.on('error', (error) => {
      options.signal.removeEventListener('abort', abort)
      reject(new HelmFailed(`${options.program ?? 'helm'} could not be run (${helmPath}): ${error.message}`))
    })
    child.on('close', (code) => {
      options.signal.removeEventListener('abort', abort)
      const run = { stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), code }
      if (options.signal.aborted) return reject(options.signal.reason)
      if (code === 0) return resolve(run)
      const last = tail.join(' ')
      reject(new HelmFailed(`${options.program ?? 'helm'} ${args[0]} failed (exit ${code ?? 'by signal'})${last ? `: ${last}` : ''}`))
    })
  })
}
