import { useState } from 'preact/hooks'
import { api, messageOf } from './api.ts'
import { History } from './history.tsx'
import { NewContainer } from './new-container.tsx'
import { Breadcrumbs, type Crumb, ErrorMessage, Show, useLoad } from './pages.tsx'
import { Previews, ServicesAtAGlance } from './services-glance.tsx'
import { DeploymentStages } from './stages.tsx'
import { type CurrentRole, type Environment, hasRole, type Organization, type Project, type Role } from './types.ts'
import { VariablesPanel } from './variables.tsx'

export interface EnvironmentContext {
  environment: Environment
  project: Project
  organization: Organization
  /** The caller's role in the environment's organization; the buttons it allows are shown. */
  role: Role
}

export async function loadEnvironmentContext(environmentId: string): Promise<EnvironmentContext> {
  const environment = await api.get<Environment>(`/environment/${environmentId}`)
  const organizationId = environment.organization.id
  const [project, organization, { role }] = await Promise.all([
    api.get<Project>(`/project/${environment.project.id}`),
    api.get<Organization>(`/organization/${organizationId}`),
    api.get<CurrentRole>(`/organization/${organizationId}/currentRole`),
  ])
  return { environment, project, organization, role }
}

export const environmentCrumbs = ({ organization, project, environment }: EnvironmentContext, here?: Crumb): Crumb[] => [
  { label: 'Organizations', href: '#/' },
  { label: organization.name, href: `#/organization/${organization.id}` },
  { label: project.name, href: `#/project/${project.id}` },
  here ? { label: environment.name, href: `#/environment/${environment.id}` } : { label: environment.name },
  ...(here ? [here] : []),
]

export function EnvironmentPage({ environmentId }: { environmentId: string }) {
  const context = useLoad(() => loadEnvironmentContext(environmentId), environmentId)
  // Bumped after a trigger, so that the history asks for its first page at once.
  const [pokes, setPokes] = useState(0)

  return (
    <Show loaded={context}>
      {(loaded) => (
        <>
          <Breadcrumbs items={environmentCrumbs(loaded)} />
          <header class="page-head">
            <h2>{loaded.environment.name}</h2>
            <span class="role" title="your role in this organization">
              {loaded.role}
            </span>
          </header>
          <Actions environmentId={environmentId} role={loaded.role} onTriggered={() => setPokes((n) => n + 1)} />
          <ServicesAtAGlance environmentId={environmentId} />
          {hasRole(loaded.role, 'WRITE') ? <NewContainer environmentId={environmentId} organizationId={loaded.organization.id} /> : null}
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
