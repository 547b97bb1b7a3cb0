import { gitApiUrlProblem } from '#src/modules/git-providers/address-guard.ts'
import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import { AppError, notFound, validationFailed } from '#src/platform/http/errors.ts'
import { asNotFound } from '#src/platform/http/not-found.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import type { ArgoCdRepository, ClusterSummary } from './argocd.repository.ts'
import type { ArgoCdConnectionCheckResponse } from './argocd.schemas.ts'
import { type ArgoCdApi, ArgoCdCallError, type ArgoCdInstance } from './argocd-api.ts'
import { createArgoCdMappings } from './argocd-mappings.ts'

// The reference's ArgoCD family (docs/argocd.md): a cluster's Argo CD with its token sealed, the
// connection check that really calls it, the mappings of its destinations to Berth clusters, and
// what its applications' services answer from Argo CD.

interface Deps {
  repo: ArgoCdRepository
  organizations: OrganizationsService
  secrets: SecretBox
  api: ArgoCdApi
  /** BERTH_ALLOW_PRIVATE_URLS: may an Argo CD's URL lead into the server's own network. */
  allowPrivateUrls: boolean
  /** Told when a cluster's credentials go: its applications' services go with them (argocd-sync.ts). */
  onCredentialsDeleted(credentialsId: string): Promise<void>
}

export function createArgoCdService({ repo, organizations, secrets, api, allowPrivateUrls, onCredentialsDeleted }: Deps) {
  /** The cluster, when the principal holds `needed` on it: 404 for another organization's, 403 for a role too low. */
  async function requireCluster(principal: Principal, clusterId: string, needed: Role): Promise<ClusterSummary> {
    const cluster = await repo.clusterById(clusterId)
    if (!cluster) throw notFound('cluster')
    await organizations.requireScoped(principal, cluster.organizationId, { kind: 'cluster', clusterId }, needed).catch(asNotFound('cluster'))
    return cluster
  }

  /** The URL as Berth stores it, or a 400 naming what is wrong with it. */
  function checkedUrl(text: string): string {
    let url: URL
    try {
      url = new URL(text)
    } catch {
      throw validationFailed([{ path: '/argocd_url', message: 'must be an absolute http(s) URL', location: 'body' }])
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw validationFailed([{ path: '/argocd_url', message: 'must be an http(s) URL', location: 'body' }])
    }
    if (url.username || url.password)
      throw validationFailed([{ path: '/argocd_url', message: 'must not hold credentials: the token goes in argocd_token', location: 'body' }])
    const problem = allowPrivateUrls ? undefined : gitApiUrlProblem(url)
    if (problem) throw validationFailed([{ path: '/argocd_url', message: problem.replace('git token', 'Argo CD token'), location: 'body' }])
    // Kept as given: the Terraform provider compares what it wrote with what it reads back.
    return text
  }

  /** Calls the Argo CD: its version, then its applications with the token. */
  async function check(instance: ArgoCdInstance): Promise<ArgoCdConnectionCheckResponse> {
    try {
      await api.version(instance)
      const apps = await api.listApplications(instance)
      return { status: 'connected', app_count: apps.length }
    } catch (error) {
      if (!(error instanceof ArgoCdCallError)) throw error
      return { status: 'error', reason: error.reason === 'not_found' ? 'unreachable' : error.reason }
    }
  }

  /** The credentials row of a cluster whose Argo CD the principal may read, with the instance to call. */
  async function requireInstance(principal: Principal, clusterId: string, needed: Role) {
    const cluster = await requireCluster(principal, clusterId, needed)
    const credentials = await repo.findCredentials(cluster.id)
    if (!credentials) throw notFound('ArgoCD credentials')
    return { cluster, credentials, instance: { url: credentials.argocdUrl, token: secrets.open(credentials.tokenSealed) } }
  }

  /** A GITOPS_APP service's application and its Argo CD, when the principal holds `needed` in its environment. */
  async function requireApp(principal: Principal, serviceId: string, needed: Role) {
    const app = await repo.appOfService(serviceId)
    if (!app) throw notFound('ArgoCD app')
    await organizations
      .requireScoped(principal, app.organizationId, { kind: 'environmentId', environmentId: app.environmentId }, needed)
      .catch(asNotFound('ArgoCD app'))
    return { app, instance: { url: app.argocdUrl, token: secrets.open(app.tokenSealed) } }
  }

  /** An Argo CD call's failure as an answer: Argo CD not answering is a 502. */
  async function fromArgoCd<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (error) {
      if (!(error instanceof ArgoCdCallError)) throw error
      if (error.reason === 'not_found') throw new AppError('not_found', `Argo CD no longer has this application (${what})`)
      throw new AppError('bad_gateway', `Argo CD could not answer ${what}: ${error.message}`)
    }
  }

  return {
    requireCluster,
    requireApp,
    fromArgoCd,
    ...createArgoCdMappings({ repo, organizations, requireCluster }),

    async getCredentials(principal: Principal, clusterId: string) {
      const cluster = await requireCluster(principal, clusterId, 'READ')
      const credentials = await repo.findCredentials(cluster.id)
      if (!credentials) throw notFound('ArgoCD credentials')
      return credentials
    },

    /** Saves the cluster's Argo CD once it answered with the token (the platform checks before saving too). */
    async saveCredentials(principal: Principal, clusterId: string, body: { argocd_url: string; argocd_token: string }) {
      const cluster = await requireCluster(principal, clusterId, 'ADMIN')
      const url = checkedUrl(body.argocd_url)
      const result = await check({ url, token: body.argocd_token })
      if (result.status === 'error') {
        throw new AppError('validation_failed', `Argo CD at ${url} could not be used: ${result.reason}`, {
          errors: [{ path: result.reason === 'unreachable' ? '/argocd_url' : '/argocd_token', message: result.reason ?? 'error', location: 'body' }],
        })
      }
      return repo.saveCredentials(cluster.organizationId, cluster.id, url, secrets.seal(body.argocd_token), allowPrivateUrls)
    },

    async deleteCredentials(principal: Principal, clusterId: string): Promise<void> {
      const cluster = await requireCluster(principal, clusterId, 'ADMIN')
      const credentials = await repo.findCredentials(cluster.id)
      if (!credentials) throw notFound('ArgoCD credentials')
      await onCredentialsDeleted(credentials.id)
    },

    /** Always 200: the outcome is in `status` (the reference's). */
    async checkConnection(principal: Principal, clusterId: string, body: { argocd_url: string; argocd_token: string }) {
      await requireCluster(principal, clusterId, 'ADMIN')
      return check({ url: checkedUrl(body.argocd_url), token: body.argocd_token })
    },

    async getApp(principal: Principal, serviceId: string) {
      return (await requireApp(principal, serviceId, 'READ')).app
    },

    /** The managed resources with their target and live state, from Argo CD. */
    async getAppManifest(principal: Principal, serviceId: string) {
      const { app, instance } = await requireApp(principal, serviceId, 'READ')
      // An Argo CD that does not answer leaves the last revision seen and no resources (docs/argocd.md).
      const resources = await fromArgoCd('its managed resources', () => api.managedResources(instance, app.name)).catch((error: unknown) => {
        if (error instanceof AppError && error.code === 'bad_gateway') return undefined
        throw error
      })
      if (!resources) return { manifest_revision: app.revision, manifest_metadata: {} }
      return {
        manifest_revision: app.revision,
        manifest_metadata: {
          managed_resources: resources.map((r) => ({
            kind: r.kind ?? '',
            name: r.name ?? '',
            namespace: r.namespace ?? '',
            targetState: r.targetState ?? '',
            liveState: r.liveState ?? '',
          })),
        },
      }
    },

    async associatedServices(principal: Principal, clusterId: string) {
      const cluster = await requireCluster(principal, clusterId, 'READ')
      return repo.associatedServices(cluster.id)
    },

    /** The instance to call for a cluster the principal holds `needed` on (the poller's and actions' way in). */
    requireInstance,
  }
}

export type ArgoCdService = ReturnType<typeof createArgoCdService>
