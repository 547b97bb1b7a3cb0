import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { Agent, fetch as undiciFetch } from 'undici'

// Debian's pebble, an ACME test server, on loopback: it issues real certificates (from a root it
// makes at each start) without validating anything (PEBBLE_VA_ALWAYS_VALID), so that no DNS is
// needed. Its own HTTPS listener uses a certificate made here with openssl, whose file is what
// an ACME client must trust to reach its directory (BERTH_ACME_CA_ROOT).

export interface Pebble {
  /** The ACME directory URL. */
  directory: string
  /** The PEM file that pebble's own HTTPS certificate is trusted by. */
  caRootFile: string
  /** The PEM of the root pebble issues certificates under (its management API's /roots/0). */
  issuingRoot(): Promise<string>
  close(): Promise<void>
}

export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

export async function startPebble(): Promise<Pebble> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'berth-pebble-'))
  const cert = path.join(dir, 'cert.pem')
  const key = path.join(dir, 'key.pem')
  await promisify(execFile)('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=pebble test listener',
    '-addext',
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout',
    key,
    '-out',
    cert,
  ])
  const [port, managementPort, httpPort, tlsPort] = [await freePort(), await freePort(), await freePort(), await freePort()]
  const config = path.join(dir, 'pebble.json')
  await writeFile(
    config,
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${port}`,
        managementListenAddress: `127.0.0.1:${managementPort}`,
        certificate: cert,
        privateKey: key,
        httpPort,
        tlsPort,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
      },
    }),
  )
  const child: ChildProcess = spawn('pebble', ['-config', config], {
    env: { ...process.env, PEBBLE_VA_ALWAYS_VALID: '1', PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0', PEBBLE_AUTHZREUSE: '100' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const trusting = new Agent({ connect: { ca: await readFile(cert, 'utf8') } })
  const directory = `https://127.0.0.1:${port}/dir`
  const deadline = Date.now() + 20_000
  for (;;) {
    try {
      const res = await undiciFetch(directory, { dispatcher: trusting })
      if (res.ok) break
    } catch {}
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`pebble did not start:\n${output}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return {
    directory,
    caRootFile: cert,
    async issuingRoot() {
      const res = await undiciFetch(`https://127.0.0.1:${managementPort}/roots/0`, { dispatcher: trusting })
      return res.text()
    },
    async close() {
      child.kill()
      await trusting.close()
      await rm(dir, { recursive: true, force: true })
    },
  }
}
