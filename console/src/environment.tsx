// An environment's page: its actions, its services with their live states, its previews, its
// deployment stages, its variables and its deployment history.
import { useEffect, useState } from 'preact/hooks'
import { api, messageOf } from './api.ts'
import { environmentCrumbs, loadEnvironmentContext } from './context.ts'
import { History } from './history.tsx'
import { place } from './place.ts'
import { Previews, ServicesAtAGlance } from './services-glance.tsx'
import { DeploymentStages } from './stages.tsx'
import { hasRole, type Role } from './types.ts'
import { Breadcrumbs, ErrorMessage, Show, useLoad, usePageTitle } from './ui.tsx'
import { VariablesPanel } from './variables.tsx'

export function EnvironmentPage({ environmentId }: { environmentId: string }) {
  const context = useLoad(() => loadEnvironmentContext(environmentId), environmentId)
  // Bumped after a trigger, so that the history asks for its first page at once.
  const [pokes, setPokes] = useState(0)
  const loaded = context.data
  useEffect(() => {
    if (loaded) place.set({ organizationId: loaded.organization.id, projectId: loaded.project.id, environmentId })
  }, [loaded, environmentId])
  usePageTitle([loaded?.environment.name, loaded?.project.name])

  return (
    <Show loaded={context}>
      {(loaded) => (
        <>
          <Breadcrumbs items={environmentCrumbs(loaded)} />
          <header class="page-head">
            <h1>{loaded.environment.name}</h1>
            <span class="note">{loaded.environment.mode}</span>
            <span class="role" title="your role in this organization">
              {loaded.role}
            </span>
            {hasRole(loaded.role, 'WRITE') ? (
              <a class="button" href={`#/environment/${environmentId}/new`} data-action="new-service">
                New service
              </a>
            ) : null}
          </header>
          <Actions environmentId={environmentId} role={loaded.role} onTriggered={() => setPokes((n) => n + 1)} />
          <ServicesAtAGlance environmentId={environmentId} />
          <Previews environmentId={environmentId} />
          <DeploymentStages environmentId={environmentId} role={loaded.role} />
          <VariablesPanel scope="ENVIRONMENT" parentId={environmentId} role={loaded.role} />
          <History
            environmentId={environmentId}
            pokes={pokes}
            onRollback={
              hasRole(loaded.role, 'DEPLOY')
                ? async (executionId) => {
                    await api.post(`/environment/${environmentId}/rollback`, { execution_id: executionId })
                    setPokes((n) => n + 1)
                  }
                : undefined
            }
          />
        </>
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
    <section class="actions" data-role={role}>
      {allowed ? (
        ACTIONS.map(({ action, label, path }) => (
          <button
            key={action}
            type="button"
            data-action={action}
            class={action === 'cancel' || action === 'stop' || action === 'dry-run' ? 'secondary' : ''}
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
