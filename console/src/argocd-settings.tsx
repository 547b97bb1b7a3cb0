// An organization's Argo CD instances (docs/argocd.md): each cluster's Argo CD with its status, the
// destinations mapped to clusters and those seen without a mapping. ADMINs connect one (checked
// before it is saved), map a destination to a cluster, remove a mapping, and disconnect an Argo CD.
import { useState } from 'preact/hooks'
import { api, messageOf } from './api.ts'
import type { OrganizationPageProps } from './organization-page-props.ts'
import { type Answer, hasRole } from './types.ts'
import { Empty, ErrorMessage, Show, useLoad } from './ui.tsx'

type Instances = Answer<'listArgoCdDestinationClusterMappings'>
type Clusters = Answer<'listOrganizationCluster'>
type Check = Answer<'checkArgoCdConnection'>

const REASONS: Record<string, string> = {
  authentication_failed: 'Argo CD rejected the token',
  unreachable: 'Argo CD could not be reached at this URL',
  insufficient_permissions: 'the token may not read applications',
}

export function ArgoCdSettings({ organization, role }: OrganizationPageProps) {
  const base = `/organization/${organization.id}`
  const loaded = useLoad(
    () => Promise.all([api.get<Instances>(`${base}/argoCdDestinationClusterMapping`), api.get<Clusters>(`${base}/cluster`)]),
    organization.id,
  )
  const admin = hasRole(role, 'ADMIN')
  const [error, setError] = useState<string | undefined>()
  const act = (work: () => Promise<unknown>) => () =>
    work().then(
      () => {
        setError(undefined)
        loaded.reload()
      },
      (failed: unknown) => setError(messageOf(failed)),
    )
  return (
    <Show loaded={loaded}>
      {([instances, clusters]) => {
        const nameOf = (id: string) => clusters.results.find((cluster) => cluster.id === id)?.name ?? id
        const mapping = (agent: string, url: string, clusterId: string) =>
          api.post(`${base}/argoCdDestinationClusterMapping`, { agent_cluster_id: agent, argocd_cluster_url: url, cluster_id: clusterId })
        return (
          <div class="settings">
            <ErrorMessage message={error} />
            {instances.results.length === 0 ? <Empty next="Connect the Argo CD of one of your clusters below.">No Argo CD connected.</Empty> : null}
            {instances.results.map((instance) => (
              <section class="panel" aria-label={`Argo CD of ${instance.agent_cluster_name}`} key={instance.credentials_id}>
                <h2>Argo CD of {instance.agent_cluster_name}</h2>
                <dl class="facts">
                  <dt>URL</dt>
                  <dd class="wrap">{instance.argocd_url}</dd>
                  <dt>Status</dt>
                  <dd>{instance.status}</dd>
                </dl>
                <h3>Destinations</h3>
                <ul class="links">
                  {instance.linked_clusters.map((linked) => (
                    <li key={linked.argocd_cluster_url}>
                      <span class="wrap">{linked.argocd_cluster_url}</span> → <strong>{linked.qovery_cluster_name}</strong>
                      <span class="note">{linked.applications_count} application(s)</span>
                      {admin ? (
                        <button
                          type="button"
                          onClick={act(() =>
                            api.delete(
                              `${base}/argoCdDestinationClusterMapping?agentClusterId=${instance.agent_cluster_id}&argocdClusterUrl=${encodeURIComponent(linked.argocd_cluster_url)}`,
                            ),
                          )}
                        >
                          Remove
                        </button>
                      ) : null}
                    </li>
                  ))}
                  {instance.unlinked_clusters.map((unlinked) => (
                    <li key={unlinked.argocd_cluster_url}>
                      <span class="wrap">{unlinked.argocd_cluster_url}</span>{' '}
                      <span class="note">not mapped, {unlinked.applications_count} application(s)</span>
                      {admin ? (
                        <select
                          aria-label={`Map ${unlinked.argocd_cluster_url}`}
                          onChange={(event) => {
                            const clusterId = (event.target as HTMLSelectElement).value
                            if (clusterId) void act(() => mapping(instance.agent_cluster_id, unlinked.argocd_cluster_url, clusterId))()
                          }}
                        >
                          <option value="">Map to…</option>
                          {clusters.results.map((cluster) => (
                            <option value={cluster.id} key={cluster.id}>
                              {cluster.name}
                            </option>
                          ))}
                        </select>
                      ) : null}
                    </li>
                  ))}
                </ul>
                {admin ? (
                  <button type="button" class="danger" onClick={act(() => api.delete(`/cluster/${instance.agent_cluster_id}/argoCdConfig`))}>
                    Disconnect (its services go)
                  </button>
                ) : null}
              </section>
            ))}
            {admin ? (
              <ConnectArgoCd clusters={clusters.results.map((c) => ({ id: c.id, name: c.name }))} onSaved={loaded.reload} nameOf={nameOf} />
            ) : null}
          </div>
        )
      }}
    </Show>
  )
}

/** The connect form: a cluster, the URL and the token; checked, then saved. */
function ConnectArgoCd({
  clusters,
  onSaved,
  nameOf,
}: {
  clusters: { id: string; name: string }[]
  onSaved: () => void
  nameOf: (id: string) => string
}) {
  const [clusterId, setClusterId] = useState(clusters[0]?.id ?? '')
  const [url, setUrl] = useState('')
  const [token, setToken] = useState('')
  const [said, setSaid] = useState<string | undefined>()
  const [error, setError] = useState<string | undefined>()
  const submit = async (event: Event) => {
    event.preventDefault()
    setError(undefined)
    try {
      const body = { argocd_url: url, argocd_token: token }
      const check = await api.post<Check>(`/cluster/${clusterId}/argoCdConfig/check`, body)
      if (check?.status !== 'connected') {
        setSaid(undefined)
        setError(REASONS[check?.reason ?? ''] ?? 'Argo CD could not be used')
        return
      }
      await api.post(`/cluster/${clusterId}/argoCdConfig`, body)
      setSaid(`Connected to the Argo CD of ${nameOf(clusterId)}: ${check.app_count ?? 0} application(s).`)
      setToken('')
      onSaved()
    } catch (failed) {
      setError(messageOf(failed))
    }
  }
  return (
    <section class="panel" aria-label="Connect an Argo CD">
      <h2>Connect an Argo CD</h2>
      <form onSubmit={submit} class="form">
        <label>
          Cluster it runs on
          <select value={clusterId} onChange={(event) => setClusterId((event.target as HTMLSelectElement).value)}>
            {clusters.map((cluster) => (
              <option value={cluster.id} key={cluster.id}>
                {cluster.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Argo CD API URL
          <input
            value={url}
            onInput={(event) => setUrl((event.target as HTMLInputElement).value)}
            placeholder="https://argocd.example.com"
            required
          />
        </label>
        <label>
          Access token
          <input type="password" value={token} onInput={(event) => setToken((event.target as HTMLInputElement).value)} required />
        </label>
        <button type="submit">Check and save</button>
      </form>
      {said ? <p class="note">{said}</p> : null}
      <ErrorMessage message={error} />
    </section>
  )
}
