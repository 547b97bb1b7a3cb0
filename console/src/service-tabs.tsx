// The tabs of a service's page, as one table: a tab is one entry (its id is its address,
// `#/<kind>/<id>/<tab>`; `applies` says which kinds have it), its component in a file of its own.
// This round's features add theirs here: Metrics for every kind, Backups for databases.
import type { JSX } from 'preact'
import { ArgoCdAppTab } from './argocd.tsx'
import { DatabaseBackups } from './database-backups.tsx'
import { HelmValuesTab } from './helm.tsx'
import { TerraformResources } from './iac.tsx'
import type { KindSpec } from './kinds.ts'
import { ServiceDeploymentsTab } from './service-deployments.tsx'
import { ServiceLogs } from './service-logs.tsx'
import { ServiceMetrics } from './service-metrics.tsx'
import { ServiceOverview } from './service-overview.tsx'
import { ServiceSettings } from './service-settings.tsx'
import type { ServiceTabProps } from './service-tab-props.ts'
import { VariablesPanel } from './variables.tsx'

export interface ServiceTab {
  id: string
  label: string
  applies(kind: KindSpec): boolean
  render(props: ServiceTabProps): JSX.Element
}

const always = () => true

export const SERVICE_TABS: ServiceTab[] = [
  { id: 'overview', label: 'Overview', applies: always, render: (props) => <ServiceOverview {...props} /> },
  { id: 'deployments', label: 'Deployments', applies: always, render: (props) => <ServiceDeploymentsTab {...props} /> },
  {
    id: 'logs',
    label: 'Logs',
    applies: always,
    render: ({ spec, service, status }) => (
      <ServiceLogs
        kind={spec.segment}
        serviceId={service.id}
        activity={status.data ? `${status.data.state} ${status.data.last_deployment_date ?? ''}` : ''}
      />
    ),
  },
  {
    id: 'variables',
    label: 'Variables',
    applies: (kind) => kind.variableScope !== null,
    render: ({ spec, service, role }) => <VariablesPanel scope={spec.variableScope!} parentId={service.id} role={role} />,
  },
  { id: 'values', label: 'Values', applies: (kind) => kind.segment === 'helm', render: (props) => <HelmValuesTab {...props} /> },
  {
    id: 'resources',
    label: 'Resources',
    applies: (kind) => kind.segment === 'terraform',
    render: ({ service }) => <TerraformResources serviceId={service.id} />,
  },
  {
    id: 'backups',
    label: 'Backups',
    applies: (kind) => kind.segment === 'database',
    render: ({ service, role }) => (
      <DatabaseBackups databaseId={service.id} databaseName={service.name} environmentId={service.environment.id} role={role} />
    ),
  },
  { id: 'settings', label: 'Settings', applies: always, render: (props) => <ServiceSettings {...props} /> },
  { id: 'argocd', label: 'Argo CD', applies: (kind) => kind.type === 'GITOPS_APP', render: ({ service }) => <ArgoCdAppTab serviceId={service.id} /> },
  { id: 'metrics', label: 'Metrics', applies: always, render: (props) => <ServiceMetrics {...props} /> },
]
