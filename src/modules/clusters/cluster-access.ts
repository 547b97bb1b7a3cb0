import type { Db } from '#src/platform/db/database.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { INGRESS_SETTINGS } from './cluster-advanced-settings.ts'

// What the executors read of an environment's cluster (docs/kubernetes.md), handed to them at
// wiring: its kubeconfig opened, its image registry, its Ingress settings; and where they note
// the versions they saw.

/** The versions of a cluster and of kubectl, as the Kubernetes executor saw them. */
export interface SeenVersions {
  kubernetes: { text: string }
  kubectl: { text: string }
}

export function clusterAccess(db: Db, secrets: SecretBox) {
  /** The environment's cluster's row, scoped to the organization. */
  const clusterOf = (organizationId: string, environmentId: string) =>
    db
      .selectFrom('environments as e')
      .innerJoin('clusters as c', 'c.id', 'e.clusterId')
      .where('e.organizationId', '=', organizationId)
      .where('e.id', '=', environmentId)
  return {
    /** The kubeconfig of the environment's cluster, in clear; undefined when none is stored. */
    async kubeconfig(organizationId: string, environmentId: string): Promise<string | undefined> {
      const row = await clusterOf(organizationId, environmentId).select('c.kubeconfigSealed').executeTakeFirst()
      return row?.kubeconfigSealed ? secrets.open(row.kubeconfigSealed) : undefined
    },
    /** The cluster's image_registry_id: where images built for it are pushed; null without one. */
    async imageRegistry(organizationId: string, environmentId: string): Promise<string | null> {
      const row = await clusterOf(organizationId, environmentId).select('c.imageRegistryId').executeTakeFirst()
      return row?.imageRegistryId ?? null
    },
    /** Its advanced settings `berth.ingress.apps_domain` and `berth.ingress.cert_manager_cluster_issuer` (docs/front-door.md). */
    async ingressSettings(organizationId: string, environmentId: string): Promise<{ appsDomain: string | undefined; clusterIssuer: string | null }> {
      const row = await clusterOf(organizationId, environmentId).select('c.advancedSettings').executeTakeFirst()
      const settings = row?.advancedSettings ?? {}
      const text = (key: string) => (typeof settings[key] === 'string' && settings[key] !== '' ? (settings[key] as string) : undefined)
      return { appsDomain: text(INGRESS_SETTINGS.appsDomain), clusterIssuer: text(INGRESS_SETTINGS.clusterIssuer) ?? null }
    },
    /** Keeps the versions of the environment's cluster and of kubectl, for the cluster's status. */
    async recordClusterVersions(organizationId: string, environmentId: string, versions: SeenVersions): Promise<void> {
      await db
        .updateTable('clusters')
        .set({ kubernetesVersion: versions.kubernetes.text, kubectlVersion: versions.kubectl.text, versionsSeenAt: new Date() })
        .where('organizationId', '=', organizationId)
        .where('id', '=', (eb) =>
          eb.selectFrom('environments').select('clusterId').where('id', '=', environmentId).where('organizationId', '=', organizationId),
        )
        .execute()
    },
    /** Whether the environment's cluster deploys to Kubernetes (a default cluster deploys with BERTH_EXECUTOR's engine, never Kubernetes), and its kubeconfig. */
    async kubernetesCluster(environmentId: string): Promise<{ deploysToKubernetes: boolean; kubeconfig: string | undefined }> {
      const row = await db
        .selectFrom('environments as e')
        .innerJoin('clusters as c', 'c.id', 'e.clusterId')
        .select(['c.executor', 'c.isDefault', 'c.kubeconfigSealed'])
        .where('e.id', '=', environmentId)
        .executeTakeFirst()
      return {
        deploysToKubernetes: row !== undefined && !row.isDefault && row.executor === 'KUBERNETES',
        kubeconfig: row?.kubeconfigSealed ? secrets.open(row.kubeconfigSealed) : undefined,
      }
    },
  }
}
