import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { namespaceOf } from '#src/modules/executors/kubernetes/helm-executor.ts'
import type { ServicesService } from '#src/modules/services/services.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { Uuid } from '#src/platform/http/common-schemas.ts'
import { AppError } from '#src/platform/http/errors.ts'

// getHelmKubernetesServices (docs/kubernetes.md, "A release's Services"): the Services of the helm
// service's release, read from the cluster's API server with kubectl and the cluster's kubeconfig.
// Helm marks what it installs with the release's name and namespace; Berth names a release after
// the service and the first 8 hex digits of its id (releaseName), in the environment's namespace.

export interface KubernetesServiceView {
  name: string
  type: string
  ports: { name?: string; port: number }[]
  selectors: { key: string; value: string }[]
}

export interface HelmKubernetesServicesDeps {
  core: Pick<ServicesService, 'get'>
  /** Whether the environment's cluster deploys to Kubernetes, and its kubeconfig in clear. */
  kubernetesCluster(environmentId: string): Promise<{ deploysToKubernetes: boolean; kubeconfig: string | undefined }>
  kubectl(kubeconfig: string, args: string[]): Promise<string>
}

interface KubeService {
  metadata?: { name?: string; annotations?: Record<string, string> }
  spec?: { type?: string; ports?: { name?: string; port?: number }[]; selector?: Record<string, string> }
}

export function createHelmKubernetesServices(deps: HelmKubernetesServicesDeps) {
  return {
    /** The release's Services; none when the environment's cluster is not a Kubernetes one (Docker and the simulator install no helm release). */
    async list(principal: Principal, helmId: string): Promise<KubernetesServiceView[]> {
      const helm = await deps.core.get(principal, 'HELM', helmId)
      const cluster = await deps.kubernetesCluster(helm.environmentId)
      if (!cluster.deploysToKubernetes) return []
      if (!cluster.kubeconfig) throw new AppError('conflict', "the environment's Kubernetes cluster has no kubeconfig: an ADMIN stores one")
      const namespace = namespaceOf(helm.environmentId)
      let list: { items?: KubeService[] }
      try {
        list = JSON.parse(await deps.kubectl(cluster.kubeconfig, ['get', '--raw', `/api/v1/namespaces/${namespace}/services`])) as typeof list
      } catch (error) {
        throw new AppError('bad_gateway', `the cluster's API server did not list the Services: ${(error as Error).message.split('\n')[0]}`)
      }
      const suffix = `-${helm.id.slice(0, 8)}`
      return (list.items ?? [])
        .filter((service) => {
          const annotations = service.metadata?.annotations ?? {}
          return annotations['meta.helm.sh/release-name']?.endsWith(suffix) && annotations['meta.helm.sh/release-namespace'] === namespace
        })
        .map((service) => ({
          name: service.metadata?.name ?? '',
          type: service.spec?.type ?? 'ClusterIP',
          ports: (service.spec?.ports ?? [])
            .filter((port) => typeof port.port === 'number')
            .map((port) => ({ ...(port.name ? { name: port.name } : {}), port: port.port! })),
          selectors: Object.entries(service.spec?.selector ?? {}).map(([key, value]) => ({ key, value })),
        }))
        .sort((a, b) => a.name.localeCompare(b.name))
    },
  }
}

const KubernetesServiceResponseList = Type.Object(
  {
    results: Type.Array(
      Type.Object(
        {
          metadata: Type.Object({ name: Type.String() }, { title: 'KubernetesMetadata' }),
          service_spec: Type.Object(
            {
              type: Type.String(),
              ports: Type.Array(Type.Object({ name: Type.Optional(Type.String()), port: Type.Integer() }, { title: 'KubernetesServicePort' })),
              selectors: Type.Array(Type.Object({ key: Type.String(), value: Type.String() }, { title: 'KubernetesSelector' })),
            },
            { title: 'KubernetesServiceSpec' },
          ),
        },
        { title: 'KubernetesService' },
      ),
    ),
  },
  { title: 'KubernetesServiceResponseList' },
)

export function helmKubernetesServicesRoutes(services: ReturnType<typeof createHelmKubernetesServices>): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/helm/:helmId/listServices',
      {
        schema: {
          operationId: 'getHelmKubernetesServices',
          summary: 'Get helm kubernetes services',
          description:
            "The Services of the helm service's release, as the cluster's API server lists them (the environment's namespace, those helm marks as the release's), by name. " +
            'On a Docker cluster or the simulator nothing installs a helm release: empty. 502 when the API server does not answer.',
          tags: ['Helm Main Calls'],
          params: Type.Object({ helmId: Uuid }),
          response: { 200: KubernetesServiceResponseList },
        },
      },
      async (req) => ({
        results: (await services.list(req.principal, req.params.helmId)).map((service) => ({
          metadata: { name: service.name },
          service_spec: { type: service.type, ports: service.ports, selectors: service.selectors },
        })),
      }),
    )
  }
}
