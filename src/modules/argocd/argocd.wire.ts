import type { AppRow, CredentialsRow } from './argocd.repository.ts'

// Rows as the reference's ArgoCD answers.

export const ICON_URI = 'app://qovery-console/argocd'

export function toCredentialsResponse(row: CredentialsRow) {
  return {
    id: row.id,
    cluster_id: row.clusterId,
    argocd_url: row.argocdUrl,
    // The reference's: the token is never answered.
    argocd_token: 'REDACTED',
    last_checked_at: row.lastCheckedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  }
}

const GIT_HOSTS: Record<string, 'GITHUB' | 'GITLAB' | 'BITBUCKET'> = { 'github.com': 'GITHUB', 'gitlab.com': 'GITLAB', 'bitbucket.org': 'BITBUCKET' }

/** The application's git source as the reference's ApplicationGitRepository, when it is on a provider the enum names. */
function gitRepository(app: AppRow) {
  if (!app.repoUrl) return null
  let url: URL
  try {
    url = new URL(app.repoUrl)
  } catch {
    return null
  }
  const provider = GIT_HOSTS[url.hostname.toLowerCase()]
  const [owner, name] = url.pathname
    .replace(/^\//, '')
    .replace(/\.git$/, '')
    .split('/')
  if (!provider || !owner || !name) return null
  return {
    provider,
    owner,
    name,
    url: app.repoUrl,
    ...(app.targetRevision ? { branch: app.targetRevision } : {}),
    ...(app.path ? { root_path: app.path } : {}),
    ...(app.revision ? { deployed_commit_id: app.revision } : {}),
  }
}

export function toArgocdAppResponse(
  app: AppRow & { serviceId: string | null; environmentId: string; clusterId: string; createdAt: Date; updatedAt: Date },
) {
  return {
    id: app.serviceId ?? app.id,
    created_at: app.createdAt.toISOString(),
    updated_at: app.updatedAt.toISOString(),
    name: app.name,
    service_type: 'GITOPS_APP' as const,
    namespace: app.destinationNamespace,
    environment: { id: app.environmentId },
    environment_id: app.environmentId,
    cluster_id: app.clusterId,
    icon_uri: ICON_URI,
    last_synced_at: app.lastSyncedAt?.toISOString() ?? null,
    manifest_revision: app.revision,
    git_repository: gitRepository(app),
    sync_status: app.reachable ? app.syncStatus : 'Unknown',
    health_status: app.reachable ? app.healthStatus : 'Unknown',
  }
}
