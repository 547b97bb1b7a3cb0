// What a GITOPS_APP's page shows besides every kind's (docs/argocd.md): Argo CD's sync and health
// of the application, the revision it runs, and the resources Argo CD manages for it, with whether
// each one's live state differs from its target (`GET /argocdApp/{id}` and its manifest). Sync,
// roll back and diff are the Overview's deploy, roll back and dry run, which ask Argo CD.
import { api } from './api.ts'
import { formatTime } from './format.ts'
import type { Answer } from './types.ts'
import { Empty, Show, useLoad } from './ui.tsx'

type ArgoCdApp = Answer<'getArgoCdApp'>
type ArgoCdManifest = Answer<'getArgoCdAppManifest'>

/** Whether a resource's live manifest is not its target (both JSON text; absent counts as different). */
function drifted(resource: { targetState?: string; liveState?: string }): boolean {
  try {
    return JSON.stringify(JSON.parse(resource.targetState ?? 'null')) !== JSON.stringify(JSON.parse(resource.liveState ?? 'null'))
  } catch {
    return true
  }
}

export function ArgoCdAppTab({ serviceId }: { serviceId: string }) {
  const app = useLoad(() => api.get<ArgoCdApp>(`/argocdApp/${serviceId}`), serviceId)
  const manifest = useLoad(() => api.get<ArgoCdManifest>(`/argocdApp/${serviceId}/manifest`), serviceId)
  return (
    <section class="argocd panel" aria-label="Argo CD">
      <h2>Argo CD</h2>
      <Show loaded={app}>
        {(a) => (
          <dl class="facts">
            <dt>Sync</dt>
            <dd>{a.sync_status ?? 'Unknown'}</dd>
            <dt>Health</dt>
            <dd>{a.health_status ?? 'Unknown'}</dd>
            <dt>Revision</dt>
            <dd class="wrap">{a.manifest_revision ?? '—'}</dd>
            <dt>Last synced</dt>
            <dd>{a.last_synced_at ? formatTime(a.last_synced_at) : '—'}</dd>
            <dt>Namespace</dt>
            <dd>{a.namespace}</dd>
            {a.git_repository ? (
              <>
                <dt>Source</dt>
                <dd class="wrap">
                  {a.git_repository.url}
                  {a.git_repository.root_path ? ` ${a.git_repository.root_path}` : ''}
                  {a.git_repository.branch ? ` @ ${a.git_repository.branch}` : ''}
                </dd>
              </>
            ) : null}
          </dl>
        )}
      </Show>
      <h3>Resources</h3>
      <Show loaded={manifest}>
        {({ manifest_metadata }) =>
          (manifest_metadata.managed_resources ?? []).length === 0 ? (
            <Empty next="Argo CD lists them once it answers.">No managed resource.</Empty>
          ) : (
            <div class="table-wrap">
              <table class="data stack">
                <thead>
                  <tr>
                    <th scope="col">Kind</th>
                    <th scope="col">Name</th>
                    <th scope="col">Namespace</th>
                    <th scope="col">State</th>
                  </tr>
                </thead>
                <tbody>
                  {(manifest_metadata.managed_resources ?? []).map((resource) => (
                    <tr key={`${resource.kind}/${resource.namespace}/${resource.name}`}>
                      <td data-label="Kind">{resource.kind}</td>
                      <td data-label="Name" class="wrap">
                        {resource.name}
                      </td>
                      <td data-label="Namespace">{resource.namespace}</td>
                      <td data-label="State">{drifted(resource) ? 'differs from git' : 'as in git'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Show>
    </section>
  )
}
