// Deploy overhead over the engine (issues 33 and 50): a small HTTP container deployed through Berth's
// Docker executor, from the trigger to DEPLOYED and to its first answer through the front door
// (Caddy), then redeployed while the front door is asked for its page one request after another,
// beside `docker run` of the same image to its first HTTP answer, in rounds alternating the two
// within one run (the machine's speed drifts; two timings taken side by side drift far less). The
// image is Debian's static busybox serving one page.
import { readFile } from 'node:fs/promises'
import { Agent, request } from 'node:https'
import { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import Docker from 'dockerode'
import { pack } from 'tar-stream'
import { defaultPortHost } from '#src/modules/executors/public-hosts.ts'
import { freePort } from './processes.ts'
import type { RunningServer } from './servers.ts'

/** Local only: the executor finds it present and pulls nothing (no registry answers here). */
export const REGISTRY_HOST = '127.0.0.1:9'
export const IMAGE_NAME = 'berth-bench/web'
const IMAGE = `${REGISTRY_HOST}/${IMAGE_NAME}:1`
export const COMMAND = ['/bin/httpd', '-f', '-p', '8080', '-h', '/www']
/** How often the bench asks for a deployment's state and the first answers (BENCH_DEPLOY_POLL_MS). */
const POLL_MS = Number(process.env.BENCH_DEPLOY_POLL_MS ?? 25)

export interface DockerDeployResult {
  method: string
  rounds: {
    dockerRunMs: number
    berthMs: number
    frontDoorMs?: number
    redeployMs?: number
    redeployDropped?: number
    redeployResetsRetried?: number
    redeployRequests?: number
  }[]
  dockerRunMedianMs: number
  berthMedianMs: number
  /** Berth's median less the engine's. */
  overheadMs: number
  /** From the trigger to the first answer at the service's HTTPS address through the front door, when it runs. */
  frontDoorMedianMs?: number
  frontDoorOverheadMs?: number
  /** A redeploy of the running service, from the trigger to DEPLOYED, and its median less the engine's. */
  redeployMedianMs?: number
  redeployOverheadMs?: number
  /** Requests the front door did not answer with the page during the redeploys (errors, non-200, after the one retry below), of how many. */
  redeployDropped?: number
  /**
   * Requests asked once more because their kept-alive connection was reset before any answer (Caddy
   * closes idle connections when a configuration load replaces its server); counted apart, not dropped.
   */
  redeployResetsRetried?: number
  redeployRequests?: number
}

/** Where the front door of the measured server answers: its HTTPS port on loopback and its apps domain. */
export interface FrontDoorAddress {
  httpsPort: number
  appsDomain: string
}

/**
 * The settings of a `berth serve` that deploys to the engine with its front door on ports of its
 * own (another Berth on the machine keeps the defaults), and where that front door answers.
 */
export async function dockerDeployServer(): Promise<{ env: Record<string, string>; frontDoor: FrontDoorAddress }> {
  const [admin, http, https] = [await freePort(), await freePort(), await freePort()]
  const appsDomain = 'bench.localhost'
  return {
    env: {
      BERTH_RUNNER_IN_SERVE: 'true',
      BERTH_EXECUTOR: 'docker',
      BERTH_DOCKER_PUBLISH_HOST: '127.0.0.1',
      BERTH_PROXY_ADMIN_PORT: String(admin),
      BERTH_PROXY_HTTP_PORT: String(http),
      BERTH_PROXY_HTTPS_PORT: String(https),
      BERTH_PROXY_LISTEN_HOST: '127.0.0.1',
      BERTH_APPS_DOMAIN: appsDomain,
      // Prometheus and Alertmanager are not what is measured, and their ports are shared with any other Berth.
      BERTH_MONITORING: 'off',
    },
    frontDoor: { httpsPort: https, appsDomain },
  }
}

/**
 * What one GET through the front door got: the page, something else (an error, another status or
 * body), or a reset of a kept-alive connection before any answer, which a client asks again (Node's
 * documentation of `request.reusedSocket`; browsers do the same for a GET).
 */
type FrontDoorOutcome = 'answered' | 'failed' | 'reset on a reused connection'

/** One GET of `/` at `host` through the front door on loopback (its local CA is not trusted here). */
function askFrontDoor(frontDoor: FrontDoorAddress, host: string, agent: Agent): Promise<FrontDoorOutcome> {
  return new Promise((resolve) => {
    let responded = false
    const req = request(
      {
        host: '127.0.0.1',
        port: frontDoor.httpsPort,
        servername: host,
        headers: { host },
        path: '/',
        rejectUnauthorized: false,
        agent,
        timeout: 2_000,
      },
      (response) => {
        responded = true
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () => resolve(response.statusCode === 200 && Buffer.concat(chunks).toString('utf8') === 'hello\n' ? 'answered' : 'failed'))
        response.on('error', () => resolve('failed'))
      },
    )
    req.on('timeout', () => req.destroy())
    req.on('error', (error: NodeJS.ErrnoException) => {
      // "socket hang up" is ECONNRESET too: the connection closed before a response began.
      resolve(!responded && req.reusedSocket && error.code === 'ECONNRESET' ? 'reset on a reused connection' : 'failed')
    })
    req.end()
  })
}

/** Whether one GET through the front door answered the page. */
const frontDoorAnswers = async (frontDoor: FrontDoorAddress, host: string, agent: Agent) =>
  (await askFrontDoor(frontDoor, host, agent)) === 'answered'

/** Waits until the front door answers the page at `host`. */
async function firstFrontDoorAnswer(frontDoor: FrontDoorAddress, host: string, deadline: number): Promise<void> {
  const agent = new Agent({ keepAlive: false })
  try {
    while (Date.now() < deadline) {
      if (await frontDoorAnswers(frontDoor, host, agent)) return
      await sleep(POLL_MS)
    }
  } finally {
    agent.destroy()
  }
  throw new Error(`the front door never answered for ${host}`)
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!

/** Whether a Docker engine answers at DOCKER_HOST (the local socket by default); the comparison is skipped without one. */
export async function dockerAnswers(): Promise<boolean> {
  try {
    await new Docker().version()
    return true
  } catch {
    return false
  }
}

/** The image: a root file system of busybox and its httpd, and one page. */
export async function ensureBenchImage(docker: Docker): Promise<void> {
  if (
    await docker
      .getImage(IMAGE)
      .inspect()
      .then(
        () => true,
        () => false,
      )
  )
    return
  const tar = pack()
  tar.entry({ name: 'bin', type: 'directory', mode: 0o755 })
  tar.entry({ name: 'www', type: 'directory', mode: 0o755 })
  tar.entry({ name: 'bin/busybox', mode: 0o755 }, await readFile('/bin/busybox'))
  tar.entry({ name: 'bin/httpd', type: 'symlink', linkname: 'busybox' })
  tar.entry({ name: 'www/index.html', mode: 0o644 }, 'hello\n')
  tar.finalize()
  const [repo, tag] = [IMAGE.slice(0, IMAGE.lastIndexOf(':')), '1']
  const stream = await docker.importImage(Readable.from(tar) as unknown as NodeJS.ReadableStream, { repo, tag })
  await new Promise<void>((resolve, reject) => docker.modem.followProgress(stream, (error) => (error ? reject(error) : resolve())))
}

/** Waits until `url` answers 200. */
async function firstAnswer(url: string, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1_000) })
      await response.arrayBuffer()
      if (response.ok) return
    } catch {}
    await sleep(POLL_MS)
  }
  throw new Error(`${url} never answered`)
}

/** `docker run -d -p 127.0.0.1::8080` of the image, to its first HTTP answer; the container is removed after. */
async function dockerRun(docker: Docker): Promise<number> {
  const started = performance.now()
  const container = await docker.createContainer({
    Image: IMAGE,
    Cmd: COMMAND,
    ExposedPorts: { '8080/tcp': {} },
    HostConfig: { PortBindings: { '8080/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }] } },
  })
  try {
    await container.start()
    const port = (await container.inspect()).NetworkSettings.Ports['8080/tcp']?.[0]?.HostPort
    await firstAnswer(`http://127.0.0.1:${port}/`, Date.now() + 60_000)
    return performance.now() - started
  } finally {
    await container.remove({ force: true })
  }
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Body = Record<string, any>

/**
 * How long after `triggeredAt` (this machine's clock, which the server shares) a history entry says
 * it ended: the server's stamp of the write that ended it. Asking every few milliseconds would find
 * it later by up to a poll, and on 2 cores the asking itself slows the deploy it times.
 */
function endedAfter(entry: Body | undefined, triggeredAt: number): number | undefined {
  const stamp = entry?.auditing_data?.updated_at ?? entry?.updated_at
  const ended = typeof stamp === 'string' ? Date.parse(stamp) : Number.NaN
  return Number.isFinite(ended) ? ended - triggeredAt : undefined
}

/** Berth's API on `server`, with an ADMIN token's header. */
function api(server: RunningServer, authorization: string) {
  return async (method: string, path: string, body?: object): Promise<{ status: number; json: Body }> => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { authorization, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    })
    const text = await response.text()
    return { status: response.status, json: text ? JSON.parse(text) : {} }
  }
}

/**
 * `rounds` rounds, each a `docker run` and then a first deploy of a new container service through
 * `server` (a `berth serve` with its runner and BERTH_EXECUTOR=docker), timed from the trigger's
 * request to the history saying DEPLOYED (the executor waited for its readiness probe, HTTP on the
 * same page); each service is deleted after its round.
 */
export async function measureDockerDeploy(
  server: RunningServer,
  seeded: { organizationId: string; authorization: string },
  rounds: number,
  log: (message: string) => void,
  frontDoor?: FrontDoorAddress,
): Promise<DockerDeployResult> {
  const docker = new Docker()
  await ensureBenchImage(docker)
  const call = api(server, seeded.authorization)
  const expect = (answer: { status: number; json: object }, status: number | number[], what: string) => {
    if (![status].flat().includes(answer.status)) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.json)}`)
    return answer.json as Body
  }
  const project = expect(
    await call('POST', `/organization/${seeded.organizationId}/project`, { name: `docker bench ${Date.now()}` }),
    [200, 201],
    'project',
  )
  const environment = expect(
    await call('POST', `/project/${project.id}/environment`, { name: 'docker', mode: 'DEVELOPMENT' }),
    [200, 201],
    'environment',
  )
  const registry = expect(
    await call('POST', `/organization/${seeded.organizationId}/containerRegistry`, {
      name: `bench local ${Date.now()}`,
      kind: 'GENERIC_CR',
      url: `http://${REGISTRY_HOST}`,
      config: {},
    }),
    [200, 201],
    'registry',
  )
  const idle = async () => {
    for (;;) {
      const page = expect(await call('GET', `/environment/${environment.id}/deploymentHistoryV2?pageSize=1`), 200, 'history')
      const latest = page.results[0]
      if (!latest || ['SUCCESS', 'ERROR', 'CANCELED'].includes(latest.action_status)) return latest
      await sleep(POLL_MS)
    }
  }
  const measured: DockerDeployResult['rounds'] = []
  try {
    for (let round = 0; round < rounds; round++) {
      const dockerRunMs = await dockerRun(docker)
      const service = expect(
        await call('POST', `/environment/${environment.id}/container`, {
          name: `web-${round}`,
          registry_id: registry.id,
          image_name: IMAGE_NAME,
          tag: '1',
          entrypoint: COMMAND[0],
          arguments: COMMAND.slice(1),
          cpu: 250,
          memory: 64,
          min_running_instances: 1,
          max_running_instances: 1,
          ports: [{ name: 'http', internal_port: 8080, external_port: 443, publicly_accessible: true, protocol: 'HTTP' }],
          healthchecks: {
            readiness_probe: {
              type: { http: { path: '/', port: 8080, scheme: 'HTTP' } },
              initial_delay_seconds: 0,
              period_seconds: 1,
              timeout_seconds: 1,
              failure_threshold: 30,
            },
          },
        }),
        [200, 201],
        'container service',
      )
      // httpd as the container's first process ignores SIGTERM: its delete after the round would wait the whole grace.
      const grace = { 'deployment.termination_grace_period_seconds': 1 }
      expect(await call('PUT', `/container/${service.id}/advancedSettings`, grace), [200, 201], 'advanced settings')
      const host = frontDoor ? defaultPortHost(service.id, frontDoor.appsDomain) : ''
      const started = performance.now()
      const triggeredAt = Date.now()
      expect(await call('POST', `/container/${service.id}/deploy`, {}), 202, 'deploy')
      // DEPLOYED and the first answer through the front door, each timed from the trigger: DEPLOYED
      // at the server's own stamp of its end (polling only finds it), the answer when it comes.
      const [[entry, berthMs], frontDoorMs] = await Promise.all([
        idle().then((latest) => [latest, endedAfter(latest, triggeredAt) ?? performance.now() - started] as const),
        frontDoor ? firstFrontDoorAnswer(frontDoor, host, Date.now() + 60_000).then(() => performance.now() - started) : undefined,
      ])
      if (entry?.status !== 'DEPLOYED') throw new Error(`round ${round}: the deploy ended ${JSON.stringify(entry)}`)
      const result: DockerDeployResult['rounds'][number] = { dockerRunMs: Math.round(dockerRunMs), berthMs: Math.round(berthMs) }
      if (frontDoor && frontDoorMs !== undefined) {
        result.frontDoorMs = Math.round(frontDoorMs)
        // A redeploy of the running service while the front door is asked for its page, one request after another,
        // until the replaced instance is surely gone (its drain and grace after DEPLOYED).
        const agent = new Agent({ keepAlive: true, maxSockets: 1 })
        let asking = true
        let requests = 0
        let dropped = 0
        let resetsRetried = 0
        const asker = (async () => {
          while (asking) {
            requests++
            let outcome = await askFrontDoor(frontDoor, host, agent)
            // Asked once more, as a client does; a request that fails again is dropped.
            if (outcome === 'reset on a reused connection') {
              resetsRetried++
              outcome = await askFrontDoor(frontDoor, host, agent)
            }
            if (outcome !== 'answered') dropped++
          }
        })()
        const again = performance.now()
        const retriggeredAt = Date.now()
        expect(await call('POST', `/container/${service.id}/deploy`, {}), 202, 'redeploy')
        const redeployed = await idle()
        const redeployMs = endedAfter(redeployed, retriggeredAt) ?? performance.now() - again
        await sleep(3_000)
        asking = false
        await asker
        agent.destroy()
        if (redeployed?.status !== 'DEPLOYED') throw new Error(`round ${round}: the redeploy ended ${JSON.stringify(redeployed)}`)
        Object.assign(result, {
          redeployMs: Math.round(redeployMs),
          redeployDropped: dropped,
          redeployResetsRetried: resetsRetried,
          redeployRequests: requests,
        })
      }
      measured.push(result)
      log(
        `docker deploy, round ${round + 1}: docker run ${result.dockerRunMs} ms; Berth ${result.berthMs} ms` +
          (frontDoorMs === undefined
            ? ''
            : `, front door ${result.frontDoorMs} ms; redeploy ${result.redeployMs} ms, ${result.redeployDropped} of ${result.redeployRequests} requests dropped ` +
              `(${result.redeployResetsRetried} asked again after a reset)`),
      )
      expect(await call('DELETE', `/container/${service.id}`), [202, 204], 'delete')
      await idle()
    }
  } finally {
    // Deleting the environment removes what is left of it in the engine, its network too.
    await call('DELETE', `/environment/${environment.id}`).catch(() => undefined)
  }
  const dockerRunMedianMs = median(measured.map((round) => round.dockerRunMs))
  const berthMedianMs = median(measured.map((round) => round.berthMs))
  const frontDoorRounds = measured.filter((round) => round.frontDoorMs !== undefined && round.redeployMs !== undefined)
  const frontDoorMedianMs = frontDoorRounds.length > 0 ? median(frontDoorRounds.map((round) => round.frontDoorMs!)) : undefined
  const redeployMedianMs = frontDoorRounds.length > 0 ? median(frontDoorRounds.map((round) => round.redeployMs!)) : undefined
  return {
    method:
      'alternating rounds: `docker run -d -p` of a busybox httpd image to its first HTTP answer, then a first deploy of a container ' +
      'service of the same image through berth serve (BERTH_EXECUTOR=docker, its runner in process), from the trigger to DEPLOYED ' +
      '(an HTTP readiness probe on the same page) and to the first answer at its HTTPS address through the front door, then a ' +
      'redeploy of it to DEPLOYED while the front door is asked for the page one request after another',
    rounds: measured,
    dockerRunMedianMs,
    berthMedianMs,
    overheadMs: berthMedianMs - dockerRunMedianMs,
    ...(frontDoorMedianMs === undefined || redeployMedianMs === undefined
      ? {}
      : {
          frontDoorMedianMs,
          frontDoorOverheadMs: frontDoorMedianMs - dockerRunMedianMs,
          redeployMedianMs,
          redeployOverheadMs: redeployMedianMs - dockerRunMedianMs,
          redeployDropped: frontDoorRounds.reduce((sum, round) => sum + round.redeployDropped!, 0),
          redeployResetsRetried: frontDoorRounds.reduce((sum, round) => sum + (round.redeployResetsRetried ?? 0), 0),
          redeployRequests: frontDoorRounds.reduce((sum, round) => sum + round.redeployRequests!, 0),
        }),
  }
}
