import type Docker from 'dockerode'
import type { ServiceOutcome } from '../executor.ts'
import { containerName, LABELS, lastLines, type Owner, ownerLabels, removeContainer, serviceContainers } from './docker-objects.ts'
import { archiveOf } from './file-archive.ts'
import type { InstanceFile, Say } from './service-instances.ts'

// A job's run: a container that runs to completion. Exit code 0 is success; a run longer than
// max_duration_seconds is killed; a failed run is tried again up to max_nb_restart times.

export interface JobRunSpec {
  owner: Owner
  serviceName: string
  network: string
  image: string
  entrypoint: string[] | null
  command: string[]
  env: string[]
  files: InstanceFile[]
  cpuMilli: number
  memoryMb: number
  maxDurationSeconds: number
  maxRestarts: number
}

/** Removes what earlier runs of the job left: a runner that died mid-run leaves its container. */
async function removeLeftovers(docker: Docker, serviceId: string, say: Say): Promise<void> {
  for (const info of await serviceContainers(docker, serviceId)) {
    say('cleanup', `removing ${info.Names[0]?.replace(/^\//, '') ?? info.Id.slice(0, 12)} (${info.State}), left by an earlier run`)
    await removeContainer(docker, info.Id, 0)
  }
}

async function attempt(docker: Docker, spec: JobRunSpec, number: number, say: Say, signal: AbortSignal): Promise<ServiceOutcome> {
  const container = await docker.createContainer({
    name: containerName(spec.serviceName, spec.owner, `run-${number}`),
    Image: spec.image,
    ...(spec.entrypoint ? { Entrypoint: spec.entrypoint } : {}),
    Cmd: spec.command,
    Env: spec.env,
    Labels: { ...ownerLabels(spec.owner), [LABELS.instance]: `run-${number}` },
    HostConfig: {
      NetworkMode: spec.network,
      NanoCpus: spec.cpuMilli * 1_000_000,
      Memory: spec.memoryMb * 1024 * 1024,
      Privileged: false,
      CapAdd: [],
      SecurityOpt: ['no-new-privileges'],
    },
  })
  try {
    if (spec.files.length > 0) {
      await container.putArchive(await archiveOf(spec.files), { path: '/' })
    }
    const exited = container.wait({ condition: 'next-exit' })
    await container.start()
    say('run', `run ${number} started (${container.id.slice(0, 12)})`)
    let timer: NodeJS.Timeout | undefined
    const outcome = await new Promise<{ code: number } | { timedOut: true }>((resolve, reject) => {
      timer = setTimeout(() => resolve({ timedOut: true }), spec.maxDurationSeconds * 1000)
      signal.addEventListener('abort', () => reject(signal.reason), { once: true })
      exited.then((result: { StatusCode: number }) => resolve({ code: result.StatusCode }), reject)
    }).finally(() => clearTimeout(timer))
    for (const line of await lastLines(docker, container.id, 50)) say('run', line)
    if ('timedOut' in outcome) return { ok: false, message: `run ${number} was killed after max_duration_seconds (${spec.maxDurationSeconds} s)` }
    if (outcome.code === 0) return { ok: true }
    return { ok: false, message: `run ${number} exited with code ${outcome.code}` }
  } finally {
    await removeContainer(docker, container.id, 0).catch(() => undefined)
  }
}

/** Runs the job's command until a run succeeds or every try (1 + max_nb_restart) failed. */
export async function runToCompletion(docker: Docker, spec: JobRunSpec, say: Say, signal: AbortSignal): Promise<ServiceOutcome> {
  await removeLeftovers(docker, spec.owner.serviceId, say)
  let outcome: ServiceOutcome = { ok: false, message: 'the job did not run' }
  for (let number = 1; number <= spec.maxRestarts + 1; number++) {
    outcome = await attempt(docker, spec, number, say, signal)
    if (outcome.ok) return outcome
    say('run', outcome.message, 'WARNING')
  }
  return outcome
}
