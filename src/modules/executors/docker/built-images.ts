import type Docker from 'dockerode'
import type { ServiceSnapshot } from '../executor.ts'
import { CheckoutError, checkout, type GitCredentials } from '../git-checkout.ts'
import type { BuildSource, GitRepository } from '../workload.ts'
import { buildImage, builtImageRepository } from './image-builds.ts'
import { hasImage } from './images.ts'

// The image of an application or a job built from git, as both executors get it: the commit
// fetched with the git token (through the address guard), its Dockerfile built by a Docker engine
// (the Docker executor's own; the runner's for a Kubernetes cluster, which then pushes it).

/** What a build needs beyond its source: the engine, and how repositories are fetched. */
export interface GitBuildDeps {
  docker: Docker
  /** The credentials a repository is fetched with (its git token's), unsealed; undefined without one. */
  gitCredentials(organizationId: string, repository: GitRepository): Promise<GitCredentials | undefined>
  /** BERTH_ALLOW_PRIVATE_URLS. */
  allowPrivateUrls: boolean
  /** BERTH_BUILD_CONTEXT_MAX_BYTES; absent: its default. */
  contextMaxBytes?: number | undefined
}

export type BuiltImage = { ok: true; image: string; commit: string } | { ok: false; message: string }

/** build.timeout_max_sec when the snapshot carries none. */
const DEFAULT_BUILD_TIMEOUT_SECONDS = 1800

/**
 * The image of `source` at its commit, `berth/{service id}:{commit}`: fetched and built, or used as
 * it is when `reuse` allows and the engine has it. A repository that cannot be fetched and a failed
 * build are outcomes; a cancel rejects (git is killed, the build request aborted).
 */
export async function builtFromGit(
  deps: GitBuildDeps,
  snapshot: ServiceSnapshot,
  run: { organizationId: string /** The deployment's execution id, which its checkout is named after. */; runId: string },
  source: BuildSource,
  say: (message: string, level?: 'INFO' | 'WARNING' | 'ERROR') => void,
  signal: AbortSignal,
): Promise<BuiltImage> {
  const { docker } = deps
  const repository = builtImageRepository(snapshot.serviceId)
  if (source.reuse && 'commit' in source.ref && (await hasImage(docker, `${repository}:${source.ref.commit}`))) {
    say(`image ${repository}:${source.ref.commit} is present: nothing to build`)
    return { ok: true, image: `${repository}:${source.ref.commit}`, commit: source.ref.commit }
  }
  const credentials = await deps.gitCredentials(run.organizationId, source.repository)
  let fetched: Awaited<ReturnType<typeof checkout>>
  try {
    fetched = await checkout({
      url: source.repository.url,
      ref: source.ref,
      credentials,
      allowPrivateUrls: deps.allowPrivateUrls,
      say: (message) => say(message),
      signal,
      runId: run.runId,
    })
  } catch (error) {
    if (error instanceof CheckoutError) return { ok: false, message: `cannot fetch ${source.repository.url}: ${error.message}` }
    throw error
  }
  try {
    const image = `${repository}:${fetched.commit}`
    if (source.reuse && (await hasImage(docker, image))) {
      say(`image ${image} is present: nothing to build`)
      return { ok: true, image, commit: fetched.commit }
    }
    const setting = snapshot.advancedSettings['build.timeout_max_sec']
    const outcome = await buildImage(
      docker,
      {
        serviceId: snapshot.serviceId,
        checkout: fetched.dir,
        rootPath: source.repository.rootPath,
        dockerfilePath: source.dockerfilePath,
        dockerfileRaw: source.dockerfileRaw,
        target: source.target,
        tag: image,
        timeoutSeconds: typeof setting === 'number' && setting > 0 ? setting : DEFAULT_BUILD_TIMEOUT_SECONDS,
        contextMaxBytes: deps.contextMaxBytes,
        allowPrivateUrls: deps.allowPrivateUrls,
      },
      say,
      signal,
    )
    return outcome.ok ? { ok: true, image, commit: fetched.commit } : outcome
  } finally {
    await fetched.remove()
  }
}
