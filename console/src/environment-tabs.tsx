// The tabs of an environment's page, as one table: a tab is one entry (its id is its address,
// `#/environment/<id>/<tab>`), its component in a file of its own. Services come first, with the
// newest deployment; the history, previews, stages and variables are one click away.
import type { JSX } from 'preact'
import { api } from './api.ts'
import type { EnvironmentContext } from './context.ts'
import { LatestDeployment } from './environment-latest.tsx'
import { History } from './history.tsx'
import { Previews } from './previews.tsx'
import { ServicesAtAGlance } from './services-glance.tsx'
import { DeploymentStages } from './stages.tsx'
import { hasRole } from './types.ts'
import { VariablesPanel } from './variables.tsx'

export interface EnvironmentTabProps {
  context: EnvironmentContext
  /** Bumped after a trigger, so that the history asks for its first page at once. */
  pokes: number
  poke: () => void
}

export interface EnvironmentTab {
  id: string
  label: string
  render(props: EnvironmentTabProps): JSX.Element
}

export const ENVIRONMENT_TABS: EnvironmentTab[] = [
  {
    id: 'services',
    label: 'Services',
    render: ({ context }) => (
      <>
        <LatestDeployment environmentId={context.environment.id} />
        <ServicesAtAGlance environmentId={context.environment.id} />
      </>
    ),
  },
  {
    id: 'deployments',
    label: 'Deployments',
    render: ({ context, pokes, poke }) => (
      <History
        environmentId={context.environment.id}
        pokes={pokes}
        onRollback={
          hasRole(context.role, 'DEPLOY')
            ? async (executionId) => {
                await api.post(`/environment/${context.environment.id}/rollback`, { execution_id: executionId })
                poke()
              }
            : undefined
        }
      />
    ),
  },
  { id: 'previews', label: 'Previews', render: ({ context }) => <Previews environmentId={context.environment.id} /> },
  { id: 'stages', label: 'Stages', render: ({ context }) => <DeploymentStages environmentId={context.environment.id} role={context.role} /> },
  {
    id: 'variables',
    label: 'Variables',
    render: ({ context }) => <VariablesPanel scope="ENVIRONMENT" parentId={context.environment.id} role={context.role} />,
  },
]
