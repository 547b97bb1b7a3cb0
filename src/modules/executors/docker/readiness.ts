import { connect } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import type Docker from 'dockerode'
import type { Probe } from '../workload.ts'

// When a new instance is ready: its readiness probe (tcp, http, exec; grpc checked as tcp) passing
// `successThreshold` times before it fails `failureThreshold` times (a period's check failing only
// once retries within the period failed), probed from the runner at the container's address on its
// environment's network. Without a probe: still running a moment after it started, or sooner
// when it has a port and that port takes a connection (a process that listens has started). An
// instance that exits is never ready.

/** How long an instance without a probe must keep running to count as started. */
export const SETTLE_MS = 1_000

/** How long one connection attempt to a probeless instance's port may take. */
const SETTLE_CONNECT_MS = 250

/** How soon a failed readiness check is tried again within its period. */
const RETRY_MS = 50

export type Readiness = { ready: true } | { ready: false; reason: string }

async function running(docker: Docker, id: string): Promise<{ ip: string | undefined; exited?: string }> {
  const info = await docker.getContainer(id).inspect()
  if (!info.State.Running) return { ip: undefined, exited: `it exited with code ${info.State.ExitCode}` }
  const ip = Object.values(info.NetworkSettings.Networks ?? {})[0]?.IPAddress
  return { ip: ip || undefined }
}

function tcpCheck(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port })
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(timeoutMs, () => done(false))
    socket.once('connect', () => done(true))
    socket.once('error', () => done(false))
  })
}

async function httpCheck(host: string, port: number, path: string, scheme: string, timeoutMs: number): Promise<boolean> {
  try {
    const response = await fetch(
      `${scheme.toLowerCase() === 'https' ? 'https' : 'http'}://${host}:${port}${path.startsWith('/') ? path : `/${path}`}`,
      {
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'manual',
      },
    )
    await response.body?.cancel()
    return response.status >= 200 && response.status < 400
  } catch {
    return false
  }
}

async function execCheck(docker: Docker, id: string, command: string[], timeoutMs: number): Promise<boolean> {
  const exec = await docker.getContainer(id).exec({ Cmd: command, AttachStdout: true, AttachStderr: true })
  const stream = await exec.start({ hijack: true, stdin: false })
  stream.resume()
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const state = await exec.inspect()
    if (!state.Running) return state.ExitCode === 0
    await sleep(100)
  }
  return false
}

async function probeOnce(docker: Docker, id: string, ip: string, probe: Probe, defaultPort: number | undefined): Promise<boolean> {
  const timeoutMs = Math.max(probe.timeoutSeconds, 1) * 1000
  const { type } = probe
  if ('exec' in type) return execCheck(docker, id, type.exec.command, timeoutMs)
  if ('http' in type) {
    const port = type.http.port ?? defaultPort
    return port !== undefined && httpCheck(ip, port, type.http.path, type.http.scheme, timeoutMs)
  }
  const port = ('tcp' in type ? type.tcp.port : type.grpc.port) ?? defaultPort
  return port !== undefined && tcpCheck(ip, port, timeoutMs)
}

/**
 * A probeless instance: ready once it ran SETTLE_MS, or as soon as its port (if it has one) takes a
 * connection; not ready if it exits first.
 */
async function settled(docker: Docker, id: string, port: number | undefined, signal: AbortSignal): Promise<Readiness> {
  const settles = Date.now() + SETTLE_MS
  for (;;) {
    const state = await running(docker, id)
    if (state.exited) return { ready: false, reason: state.exited }
    if (Date.now() >= settles) return { ready: true }
    if (port !== undefined && state.ip !== undefined && (await tcpCheck(state.ip, port, SETTLE_CONNECT_MS))) return { ready: true }
    // Without a port there is nothing to try sooner: it is looked at again once the settle time is over.
    const left = Math.max(settles - Date.now(), 0)
    await sleep(port === undefined ? left : Math.min(RETRY_MS, left), undefined, { signal })
  }
}

/** Waits until the instance is ready or cannot be; rejects when `signal` aborts. */
export async function waitReady(
  docker: Docker,
  id: string,
  probe: Probe | null,
  defaultPort: number | undefined,
  signal: AbortSignal,
): Promise<Readiness> {
  if (!probe) return settled(docker, id, defaultPort, signal)
  await sleep(probe.initialDelaySeconds * 1000, undefined, { signal })
  let successes = 0
  let failures = 0
  const periodMs = Math.max(probe.periodSeconds, 1) * 1000
  for (;;) {
    // A failed check is tried again every RETRY_MS until its period is over, and counts as one
    // failure only then: an instance is ready as soon as it answers, not a period later.
    const periodEnds = Date.now() + periodMs
    let ok = false
    for (;;) {
      const state = await running(docker, id)
      if (state.exited) return { ready: false, reason: state.exited }
      ok = state.ip !== undefined && (await probeOnce(docker, id, state.ip, probe, defaultPort))
      if (ok || Date.now() + RETRY_MS >= periodEnds) break
      await sleep(RETRY_MS, undefined, { signal })
    }
    if (ok) successes++
    else {
      successes = 0
      failures++
    }
    if (successes >= Math.max(probe.successThreshold, 1)) return { ready: true }
    if (failures >= Math.max(probe.failureThreshold, 1)) {
      return { ready: false, reason: `its readiness probe failed ${failures} time(s)` }
    }
    await sleep(Math.max(periodEnds - Date.now(), 0), undefined, { signal })
  }
}
