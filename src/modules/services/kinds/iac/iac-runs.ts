import type { ExecutorAction } from '#src/modules/executors/executor.ts'
import type { ImageSource, StepsWorkload } from '#src/modules/executors/workload.ts'
import type { IacConfig } from './iac.types.ts'
import { backendOverride, DATA_DIR, WORKDIR } from './iac-commands.ts'
import type { IacDeployOverrides } from './iac-deployments.ts'
import { DEFAULT_IAC_IMAGES, engineEnvironment, engineImage, engineProgram } from './iac-engines.ts'

// What an IAC run is made of on both executors (docs/iac.md, "Runs"): the engine's program in an
// image built from the repository, its environment and files, the service's data directory shared
// by its commands, its resources and time limit. The commands themselves differ by executor
// (iac.docker.ts, iac.kubernetes.ts).

/** What every run of the service shares, whichever executor runs it; `backend` is the engine's backend the `kubernetes` one becomes there. */
export function runParts(
  config: IacConfig,
  openSecret: (sealed: string) => string,
  backend: 'http' | 'kubernetes',
): Pick<StepsWorkload, 'type' | 'program' | 'workingDir' | 'scratch' | 'env' | 'files' | 'resources' | 'timeout'> {
  return {
    type: 'steps',
    program: engineProgram(config.engine),
    workingDir: WORKDIR,
    scratch: { mountPath: DATA_DIR },
    env: engineEnvironment(config, openSecret),
    files: 'kubernetes' in config.backend ? [{ key: 'iac-backend', ...backendOverride(backend) }] : [],
    resources: { cpuMilli: config.jobResources.cpuMilli, memoryMb: config.jobResources.ramMib },
    timeout: { seconds: config.timeoutSec, setting: 'timeout_sec' },
  }
}

/** What a run says when it runs nothing: a stop changes no infrastructure, SKIP_DESTROY leaves it. */
export const nothingToRun = (action: ExecutorAction) => ({
  step: 'run',
  message: action === 'STOP' ? 'a stop changes no infrastructure: nothing to run' : 'SKIP_DESTROY: the resources are left as they are',
})

/** The Dockerfile of a run's image, on both executors: the engine's image, the inline fragment, the repository's root path. */
export function runDockerfile(image: string, fragment: string | null): string {
  return [`FROM ${image}`, ...(fragment ? [fragment] : []), `COPY . ${WORKDIR}`, `WORKDIR ${WORKDIR}`, ''].join('\n')
}

/**
 * The image a run builds (the repository at the deployment's commit, FROM the engine's image of
 * BERTH_IAC_IMAGES, the inline fragment applied), or why it cannot be built. A deploy builds the
 * commit afresh (the engine's version or the fragment may have changed); an uninstall runs what was built.
 */
export function runImage(
  config: IacConfig,
  overrides: IacDeployOverrides,
  action: ExecutorAction,
  iacImages: string,
): { image: ImageSource } | { refused: string } {
  if ('blueprint' in config.backend) return { refused: 'a blueprint backend is not supported by Berth (docs/iac.md)' }
  if (config.dockerfileFragment?.type === 'file')
    return { refused: 'a dockerfile_fragment of type file is not applied yet: give it inline (docs/iac.md)' }
  const base = engineImage(iacImages || DEFAULT_IAC_IMAGES, config.engine, config.engineVersion)
  if (!base) return { refused: `BERTH_IAC_IMAGES names no image for ${config.engine}` }
  const fragment = config.dockerfileFragment?.type === 'inline' ? config.dockerfileFragment.content : null
  return {
    image: {
      build: {
        repository: config.git,
        ref: overrides.gitCommitId ? { commit: overrides.gitCommitId } : { branch: config.git.branch },
        dockerfilePath: null,
        dockerfileRaw: runDockerfile(base, fragment),
        target: null,
        reuse: action !== 'DEPLOY' && action !== 'RESTART',
      },
    },
  }
}
