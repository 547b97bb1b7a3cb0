// An environment's page: its name and actions on top, then tabs (environment-tabs.tsx), each a deep
// link `#/environment/<id>/<tab>`: its services with their live states, its deployment history,
// its previews, its deployment stages and its variables.
import { useEffect, useState } from 'preact/hooks'
import { api, messageOf } from './api.ts'
import { environmentCrumbs, loadEnvironmentContext } from './context.ts'
import { ENVIRONMENT_TABS } from './environment-tabs.tsx'
import { place } from './place.ts'
import { hasRole, type Role } from './types.ts'
import { Breadcrumbs, Empty, ErrorMessage, Show, Tabs, useLoad, usePageTitle } from './ui.tsx'

export function EnvironmentPage({ environmentId, tab }: { environmentId: string; tab: string }) {
  const context = useLoad(() => loadEnvironmentContext(environmentId), environmentId)
  const [pokes, setPokes] = useState(0)
  const loaded = context.data
  const current = ENVIRONMENT_TABS.find((entry) => entry.id === tab)
  useEffect(() => {
    if (loaded) place.set({ organizationId: loaded.organization.id, projectId: loaded.project.id, environmentId })
  }, [loaded, environmentId])
  usePageTitle([current?.label, loaded?.environment.name, loaded?.project.name])
  const base = `#/environment/${environmentId}`

  return (
    <Show loaded={context}>
      {(loaded) => (
        <div class="environment-page" data-environment-id={environmentId} data-tab={tab}>
          <Breadcrumbs items={environmentCrumbs(loaded)} />
          <header class="page-head">
            <h1 class="wrap">{loaded.environment.name}</h1>
            <span class="chip">{loaded.environment.mode.toLowerCase()}</span>
            <span class="role" title="your role in this organization">
              {loaded.role}
            </span>
            {hasRole(loaded.role, 'WRITE') ? (
              <a class="button" href={`${base}/new`} data-action="new-service">
                New service
              </a>
            ) : null}
          </header>
          <Actions
            environmentId={environmentId}
            role={loaded.role}
            onTriggered={() => {
              setPokes((n) => n + 1)
              // What was started shows in the history.
              if (tab !== 'deployments') location.hash = `${base}/deployments`
            }}
          />
          <Tabs
            label="Environment"
            current={tab}
            tabs={ENVIRONMENT_TABS.map((entry) => ({
              id: entry.id,
              label: entry.label,
              href: entry.id === 'services' ? base : `${base}/${entry.id}`,
            }))}
          />
          <section class="tab-panel" aria-label={current?.label ?? 'Not found'}>
            {current ? (
              current.render({ context: loaded, pokes, poke: () => setPokes((n) => n + 1) })
            ) : (
              <Empty next={<a href={base}>Go to its services</a>}>This environment has no such tab.</Empty>
            )}
          </section>
        </div>
      )}
    </Show>
  )
}

const ACTIONS = [
  { action: 'deploy', label: 'Deploy', path: 'deploy' },
  { action: 'dry-run', label: 'Dry run', path: 'deploy?dry_run=true' },
  { action: 'redeploy', label: 'Redeploy', path: 'redeploy' },
  { action: 'stop', label: 'Stop', path: 'stop' },
  { action: 'cancel', label: 'Cancel', path: 'cancelDeployment' },
] as const

/**
 * The environment's triggers, shown only to DEPLOY and above. Hiding them is a convenience: the
 * API checks the role of every call.
 */
function Actions({ environmentId, role, onTriggered }: { environmentId: string; role: Role; onTriggered: () => void }) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  const allowed = hasRole(role, 'DEPLOY')

  async function trigger(path: string) {
    setBusy(true)
    setError(undefined)
    try {
      await api.post(`/environment/${environmentId}/${path}`, path === 'cancelDeployment' ? {} : undefined)
      onTriggered()
    } catch (failure) {
      setError(messageOf(failure))
    } finally {
      setBusy(false)
    }
  }

  return (
    <section class="actions" data-role={role} aria-label="Environment actions">
      {allowed ? (
        ACTIONS.map(({ action, label, path }) => (
          <button
            key={action}
            type="button"
            data-action={action}
            class={action === 'deploy' ? '' : 'secondary'}
            disabled={busy}
            onClick={() => trigger(path)}
          >
            {label}
          </button>
        ))
      ) : (
        <p class="hint">Your {role} token can look at this environment; deploying needs DEPLOY.</p>
      )}
      <ErrorMessage message={error} />
    </section>
  )
}
