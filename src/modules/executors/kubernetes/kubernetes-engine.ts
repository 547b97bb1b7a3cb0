import type { Config } from '#src/config.ts'
import type { ServiceOutput } from '../service-output.ts'
import { HelmFailed } from './helm-program.ts'
import { helmVersion, kubectlVersion, type ProgramVersion, unsupportedHelm, unsupportedKubectl } from './program-versions.ts'
import { createKubernetesServiceOutput } from './service-output.ts'

/**
 * What the services of environments whose cluster deploys to Kubernetes print, from their pods
 * (kubectl logs with the cluster's kubeconfig), for the service logs (service-output.ts).
 */
export function kubernetesOutput(
  /** Whether the environment's cluster deploys to Kubernetes, and its kubeconfig in clear. */
  clusterOf: (environmentId: string) => Promise<{ deploysToKubernetes: boolean; kubeconfig: string | undefined }>,
  settings: Pick<KubernetesSettings, 'kubectlPath'>,
): ServiceOutput {
  return createKubernetesServiceOutput({
    kubectlPath: settings.kubectlPath,
    deploysToKubernetes: async (environmentId) => (await clusterOf(environmentId)).deploysToKubernetes,
    kubeconfig: async (environmentId) => (await clusterOf(environmentId)).kubeconfig,
  })
}

/** What the executor takes from the server's configuration, and the version of its helm once the start-up found it. */
export interface KubernetesSettings {
  helmPath: string
  kubectlPath: string
  allowPrivateUrls: boolean
  databaseImages: string
  /** BERTH_IAC_IMAGES. */
  iacImages?: string
  helmVersion?: ProgramVersion
  /** BERTH_ALERT_GROUP_WAIT_MS: the group wait of the AlertmanagerConfig the built-in chart renders. */
  alertGroupWaitMs?: number
}

export const kubernetesSettings = (config: Pick<Config, 'runner' | 'outbound' | 'metrics'>): KubernetesSettings => ({
  helmPath: config.runner.helmPath,
  kubectlPath: config.runner.kubectlPath,
  allowPrivateUrls: config.outbound.allowPrivateUrls,
  databaseImages: config.runner.dockerDatabaseImages,
  iacImages: config.runner.iacImages,
  alertGroupWaitMs: config.metrics.groupWaitMs,
})

/**
 * The start-up's check of the runner's helm and kubectl: each is asked its version, which the log
 * says; a version Berth does not work with stops the start (rejects with the reason). A program
 * that cannot be run is only said (at info: a runner may serve Docker clusters alone, and most do),
 * and a deployment to a KUBERNETES cluster then fails saying why. Resolves to `settings` with the helm version found.
 */
export async function checkKubernetesPrograms(
  settings: KubernetesSettings,
  log: { info(fields: object, message: string): void },
): Promise<KubernetesSettings> {
  const programs = [
    { name: 'helm', path: settings.helmPath, ask: helmVersion, unsupported: unsupportedHelm, setting: 'BERTH_HELM_PATH' },
    { name: 'kubectl', path: settings.kubectlPath, ask: kubectlVersion, unsupported: unsupportedKubectl, setting: 'BERTH_KUBECTL_PATH' },
  ]
  const found: Record<string, ProgramVersion> = {}
  for (const program of programs) {
    let version: ProgramVersion
    try {
      version = await program.ask(program.path)
    } catch (error) {
      if (!(error instanceof HelmFailed)) throw error
      log.info(
        { component: 'kubernetes', program: program.name, path: program.path },
        `${error.message}: deployments to KUBERNETES clusters fail until ${program.setting} names a working ${program.name}`,
      )
      continue
    }
    const unsupported = program.unsupported(version)
    if (unsupported) throw new Error(`${unsupported} (${program.setting}=${program.path})`)
    log.info({ component: 'kubernetes', program: program.name, path: program.path, version: version.text }, `${program.name} ${version.text}`)
    found[program.name] = version
  }
  return found.helm ? { ...settings, helmVersion: found.helm } : settings
}
