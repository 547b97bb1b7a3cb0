import type { Config } from '#src/config.ts'
import { INGRESS_SETTINGS } from '#src/modules/clusters/cluster-advanced-settings.ts'
import { registryPullAccess } from '#src/modules/container-registries/registry-pull-access.ts'
import { SECRET_CONFIG_FIELDS } from '#src/modules/helm-repositories/helm-repositories.rules.ts'
import type { ServiceOutput } from '#src/modules/services/service-output.ts'
import type { Db } from '#src/platform/db/database.ts'
import { sealedFields } from '#src/platform/secrets/sealed-fields.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { loadDockerode } from '../docker/docker-engine.ts'
import type { DeploymentExecutor } from '../executor.ts'
import { repositoryCredentials } from '../git-credentials.ts'
import type { KubernetesKinds } from './builtin-deployments.ts'
import { createKubernetesExecutor } from './helm-executor.ts'
import { HelmFailed } from './helm-program.ts'
import { helmVersion, kubectlVersion, type ProgramVersion, unsupportedHelm, unsupportedKubectl } from './program-versions.ts'
import { createKubernetesServiceOutput } from './service-output.ts'

/**
 * The executor of KUBERNETES clusters, reading what it needs from the database: the environment's
 * cluster's kubeconfig, the organization's helm repositories, git tokens and container registries,
 * their secrets opened with the server's SecretBox. It needs nothing to start: helm and kubectl are
 * run, the cluster reached, and the runner's Docker engine (DOCKER_HOST) asked to build an image,
 * per deployment. `kinds`: what it does to a service of each kind (the registry's table).
 */
export function connectKubernetesExecutor(db: Db, secrets: SecretBox, settings: KubernetesSettings, kinds: KubernetesKinds): DeploymentExecutor {
  return createKubernetesExecutor({
    ...settings,
    kinds,
    gitCredentials: repositoryCredentials(db, secrets),
    registry: registryPullAccess(db, secrets),
    openSecret: (sealed) => secrets.open(Buffer.from(sealed, 'base64')),
    async docker() {
      const Docker = await loadDockerode()
      const docker = new Docker()
      await docker.version()
      return docker
    },
    async imageRegistry(organizationId, environmentId) {
      const row = await db
        .selectFrom('environments as e')
        .innerJoin('clusters as c', 'c.id', 'e.clusterId')
        .select('c.imageRegistryId')
        .where('e.organizationId', '=', organizationId)
        .where('e.id', '=', environmentId)
        .executeTakeFirst()
      return row?.imageRegistryId ?? null
    },
    async ingressSettings(organizationId, environmentId) {
      const row = await db
        .selectFrom('environments as e')
        .innerJoin('clusters as c', 'c.id', 'e.clusterId')
        .select('c.advancedSettings')
        .where('e.organizationId', '=', organizationId)
        .where('e.id', '=', environmentId)
        .executeTakeFirst()
      const settings = row?.advancedSettings ?? {}
      const text = (key: string) => (typeof settings[key] === 'string' && settings[key] !== '' ? (settings[key] as string) : undefined)
      return { appsDomain: text(INGRESS_SETTINGS.appsDomain), clusterIssuer: text(INGRESS_SETTINGS.clusterIssuer) ?? null }
    },
    async kubeconfig(organizationId, environmentId) {
      const row = await db
        .selectFrom('environments as e')
        .innerJoin('clusters as c', 'c.id', 'e.clusterId')
        .select('c.kubeconfigSealed')
        .where('e.organizationId', '=', organizationId)
        .where('e.id', '=', environmentId)
        .executeTakeFirst()
      return row?.kubeconfigSealed ? secrets.open(row.kubeconfigSealed) : undefined
    },
    async recordClusterVersions(organizationId, environmentId, versions) {
      await db
        .updateTable('clusters')
        .set({ kubernetesVersion: versions.kubernetes.text, kubectlVersion: versions.kubectl.text, versionsSeenAt: new Date() })
        .where('organizationId', '=', organizationId)
        .where('id', '=', (eb) =>
          eb.selectFrom('environments').select('clusterId').where('id', '=', environmentId).where('organizationId', '=', organizationId),
        )
        .execute()
    },
    async chartRepository(organizationId, repositoryId) {
      const row = await db
        .selectFrom('helmRepositories')
        .select(['kind', 'url', 'skipTlsVerification', 'config', 'secretsSealed'])
        .where('organizationId', '=', organizationId)
        .where('id', '=', repositoryId)
        .executeTakeFirst()
      if (!row?.url) throw new Error('the helm repository of the service is gone, or has no URL')
      const sealed = sealedFields(secrets, SECRET_CONFIG_FIELDS).open(row.secretsSealed)
      return { kind: row.kind, url: row.url, skipTlsVerification: row.skipTlsVerification, username: row.config.username, password: sealed.password }
    },
  })
}

/**
 * What the services of environments whose cluster deploys to Kubernetes print, from their pods
 * (kubectl logs with the cluster's kubeconfig), for the service logs (service-output.ts).
 */
export function kubernetesServiceOutput(db: Db, secrets: SecretBox, settings: Pick<KubernetesSettings, 'kubectlPath'>): ServiceOutput {
  const cluster = (environmentId: string) =>
    db
      .selectFrom('environments as e')
      .innerJoin('clusters as c', 'c.id', 'e.clusterId')
      .select(['c.executor', 'c.isDefault', 'c.kubeconfigSealed'])
      .where('e.id', '=', environmentId)
      .executeTakeFirst()
  return createKubernetesServiceOutput({
    kubectlPath: settings.kubectlPath,
    // A default cluster deploys with BERTH_EXECUTOR's engine, never Kubernetes.
    deploysToKubernetes: async (environmentId) => {
      const row = await cluster(environmentId)
      return row !== undefined && !row.isDefault && row.executor === 'KUBERNETES'
    },
    async kubeconfig(environmentId) {
      const row = await cluster(environmentId)
      return row?.kubeconfigSealed ? secrets.open(row.kubeconfigSealed) : undefined
    },
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
}

export const kubernetesSettings = (config: Pick<Config, 'runner' | 'git'>): KubernetesSettings => ({
  helmPath: config.runner.helmPath,
  kubectlPath: config.runner.kubectlPath,
  allowPrivateUrls: config.git.allowPrivateUrls,
  databaseImages: config.runner.dockerDatabaseImages,
  iacImages: config.runner.iacImages,
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
