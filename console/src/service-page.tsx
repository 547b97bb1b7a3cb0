// The page of one service, the same for every kind (kinds.ts says what differs): its live status,
// its addresses and custom domains, the version it runs, its actions, its last deployments with a
// roll back on those that succeeded, its live logs, its configuration form and its variables.
import { type ComponentChildren, Fragment } from 'preact'
import { useState } from 'preact/hooks'
import { api, getWithTag } from './api.ts'
import { environmentCrumbs, loadEnvironmentContext } from './environment.tsx'
import { formatTime, toneOf, words } from './format.ts'
import { type AnyService, deployedVersion, KINDS, type KindName, type KindSpec, versionIn } from './kinds.ts'
import { clockOf } from './log-stream.ts'
import { Breadcrumbs, ErrorMessage, Show, useLoad } from './pages.tsx'
import { usePolled, usePolledPath } from './polled.ts'
import { ServiceActions } from './service-actions.tsx'
import { ServiceDeployments } from './service-deployments.tsx'
import { ServiceForm } from './service-form.tsx'
import { type InstanceSeen, ServiceLogs } from './service-logs.tsx'
import { hasRole, type List, type Role, type ServiceEntry } from './types.ts'
import { VariablesPanel } from './variables.tsx'

/** `GET /{kind}/{id}/status`. */
export interface ServiceStatus {
  id: string
  state: string
  service_deployment_status: string
  last_deployment_date?: string
  status_details: { action: string; status: string }
  deployment_requests_count: number
}

interface Link {
  url: string
  internal_port: number
  external_port: number
  is_qovery_domain: boolean
  is_default: boolean
}

interface CustomDomain {
  id: string
  domain: string
  validation_domain: string
  status: string
  check_status: string | null
  check_error_details: string | null
  /** The certificate the front door serves for it (docs/front-door.md); null when no front door runs. */
  certificate?: { state: 'ISSUED' | 'PENDING' | 'NOT_SERVED'; issuer: string | null; expires_at: string | null } | null
}

/** What a custom domain's certificate state says to a person. */
function certificateNote(certificate: NonNullable<CustomDomain['certificate']>): string {
  if (certificate.state === 'ISSUED')
    return `certificate issued${certificate.issuer ? ` by ${certificate.issuer}` : ''}${certificate.expires_at ? `, expires ${formatTime(certificate.expires_at)}` : ''}`
  return certificate.state === 'PENDING' ? 'certificate pending' : 'not served (its check has not passed)'
}

const STATUS_POLL_MS = 2000
const LINKS_POLL_MS = 5000

export function ServicePage({
  kind,
  id,
  extra,
}: {
  kind: KindName
  id: string
  extra?: (service: AnyService, role: Role, etag: string | null) => ComponentChildren
}) {
  const spec = KINDS[kind]
  const loaded = useLoad(async () => {
    const { data: service, etag } = await getWithTag<AnyService>(`/${kind}/${id}`)
    return { service, etag, context: await loadEnvironmentContext(service.environment.id) }
  }, `${kind}/${id}`)
  return (
    <Show loaded={loaded}>
      {({ service, etag, context }) => (
        <ServiceView
          key={service.id}
          spec={spec}
          initial={service}
          etag={etag}
          role={context.role}
          crumbs={environmentCrumbs(context, { label: service.name })}
          extra={extra}
        />
      )}
    </Show>
  )
}

function ServiceView({
  spec,
  initial,
  etag,
  role,
  crumbs,
  extra,
}: {
  spec: KindSpec
  initial: AnyService
  etag: string | null
  role: Role
  crumbs: ReturnType<typeof environmentCrumbs>
  extra: ((service: AnyService, role: Role, etag: string | null) => ComponentChildren) | undefined
}) {
  const [service, setService] = useState(initial)
  const [instances, setInstances] = useState<InstanceSeen[]>([])
  const base = `/${spec.name}/${service.id}`
  const status = usePolled(() => api.get<ServiceStatus>(`${base}/status`), base, STATUS_POLL_MS)
  const history = usePolledPath<List<ServiceEntry>>(`${base}/deploymentHistoryV2?pageSize=10`, STATUS_POLL_MS)
  // A deploy publishes new ports: the addresses are read again too, less often.
  const links = usePolled(() => (spec.links ? api.get<List<Link>>(`${base}/link`) : Promise.resolve({ results: [] })), base, LINKS_POLL_MS)
  const domains = usePolled(
    () => (spec.customDomains ? api.get<List<CustomDomain>>(`${base}/customDomain`) : Promise.resolve({ results: [] })),
    base,
    LINKS_POLL_MS,
  )
  // The service's entries do not say which were dry runs: its dry runs are listed apart, and told apart by execution id.
  const dryRuns = usePolled(
    async () =>
      new Set(
        (await api.get<List<ServiceEntry>>(`${base}/deploymentHistoryV2?pageSize=10&trigger_action=DEPLOY_DRY_RUN`)).results.map(
          (e) => e.identifier.execution_id ?? '',
        ),
      ),
    base,
    STATUS_POLL_MS,
  )
  const running = history.data?.results.find(
    (e) => e.status_details.action === 'DEPLOY' && e.status_details.status === 'SUCCESS' && !dryRuns.data?.has(e.identifier.execution_id ?? ''),
  )
  const canDeploy = hasRole(role, 'DEPLOY')
  const versionField = spec.versionField(service)?.field
  // The versions deployed before, newest first, offered by the version chooser.
  const suggestions = versionField
    ? [...new Set((history.data?.results ?? []).map((e) => versionIn(e, versionField)).filter((v): v is string => Boolean(v)))]
    : []
  const refresh = () => {
    status.refresh()
    history.refresh()
    dryRuns.refresh()
  }

  return (
    <div class="service-page" data-kind={spec.name} data-service-id={service.id}>
      <Breadcrumbs items={crumbs} />
      <header class="page-head">
        <h2 class="name" title={service.name}>
          {service.name}
        </h2>
        <span class="kind">{spec.title}</span>
        {status.data ? <StateBadge state={status.data.state} /> : null}
        <span class="role" title="your role in this organization">
          {role}
        </span>
      </header>
      <section class="service-status" aria-label="Status" aria-live="polite">
        {status.data === undefined && !status.error ? <p class="loading">Loading…</p> : null}
        <ErrorMessage message={status.error} />
        {status.data ? (
          <dl>
            <dt>State</dt>
            <dd data-testid="service-state" data-state={status.data.state}>
              <StateBadge state={status.data.state} />
              {status.data.deployment_requests_count > 0 ? (
                <span class="note"> {status.data.deployment_requests_count} deployment(s) queued or running</span>
              ) : null}
            </dd>
            <dt>Configuration</dt>
            <dd data-testid="deployment-status">{words(status.data.service_deployment_status)}</dd>
            <dt>Instances</dt>
            <dd data-testid="instances">
              {instances.length === 0
                ? 'none seen in the logs'
                : instances.map((seen) => (
                    <span class="instance-seen" key={seen.instance} title={seen.pod}>
                      {seen.instance}
                      <span class="note">
                        {' '}
                        {seen.pod ? `${seen.pod}, ` : ''}last line {clockOf(seen.lastLineAt)}
                      </span>
                    </span>
                  ))}
            </dd>
            <dt>Running</dt>
            <dd data-testid="running-version">{running ? deployedVersion(running) : 'nothing deployed yet'}</dd>
            <dt>Configured</dt>
            <dd data-testid="configured-version">{spec.configuredVersion(service)}</dd>
            {status.data.last_deployment_date ? (
              <>
                <dt>Last deployed</dt>
                <dd>{formatTime(status.data.last_deployment_date)}</dd>
              </>
            ) : null}
          </dl>
        ) : null}
      </section>
      {spec.links || spec.customDomains ? <Addresses links={links} domains={domains} /> : null}
      {canDeploy ? (
        <ServiceActions spec={spec} service={service} role={role} suggestions={suggestions} onTriggered={refresh} />
      ) : (
        <p class="hint">Your {role} token can look at this service; deploying needs DEPLOY.</p>
      )}
      <ServiceDeployments
        spec={spec}
        serviceId={service.id}
        environmentId={service.environment.id}
        history={history}
        dryRuns={dryRuns.data}
        canDeploy={canDeploy}
        onTriggered={refresh}
      />
      <ServiceLogs
        kind={spec.name}
        serviceId={service.id}
        activity={status.data ? `${status.data.state} ${status.data.last_deployment_date ?? ''}` : ''}
        onInstances={setInstances}
      />
      {spec.summary(service).length > 0 ? (
        <section class="configuration">
          <h3>Configuration</h3>
          <dl>
            {spec.summary(service).map(([label, value]) => (
              <Fragment key={label}>
                <dt>{label}</dt>
                <dd class="wrap">{value}</dd>
              </Fragment>
            ))}
          </dl>
        </section>
      ) : null}
      {spec.form.length > 0 ? (
        <ServiceForm spec={spec} initial={service} initialTag={etag} editable={hasRole(role, 'WRITE')} onSaved={(saved) => setService(saved)} />
      ) : null}
      {extra?.(service, role, etag)}
      {spec.variableScope ? <VariablesPanel scope={spec.variableScope} parentId={service.id} role={role} /> : null}
    </div>
  )
}

export function StateBadge({ state }: { state: string }) {
  return (
    <span class={`badge tone-${toneOf(state)}`} data-state={state}>
      {words(state)}
    </span>
  )
}

function Addresses({ links, domains }: { links: { data?: List<Link>; error?: string }; domains: { data?: List<CustomDomain>; error?: string } }) {
  return (
    <section class="addresses">
      <h3>Addresses</h3>
      <ErrorMessage message={links.error} />
      {links.data === undefined ? (
        links.error ? null : (
          <p class="loading">Loading…</p>
        )
      ) : links.data.results.length === 0 ? (
        <p class="empty">No public address.</p>
      ) : (
        <ul class="links">
          {links.data.results.map((link) => (
            <li key={link.url}>
              <a href={link.url} target="_blank" rel="noopener noreferrer" data-testid="address" class="wrap">
                {link.url}
              </a>
              <span class="note">
                port {link.internal_port}
                {link.is_default ? ', default' : ''}
                {link.is_qovery_domain ? '' : ', custom domain'}
              </span>
            </li>
          ))}
        </ul>
      )}
      <h4>Custom domains</h4>
      <ErrorMessage message={domains.error} />
      {domains.data === undefined ? (
        domains.error ? null : (
          <p class="loading">Loading…</p>
        )
      ) : domains.data.results.length === 0 ? (
        <p class="empty">No custom domain.</p>
      ) : (
        <ul class="links">
          {domains.data.results.map((domain) => (
            <li key={domain.id}>
              <span class="wrap">{domain.domain}</span>
              <span class="note">
                CNAME → {domain.validation_domain}; {domain.check_status ? words(domain.check_status) : 'not checked yet'}
                {domain.check_error_details ? `: ${domain.check_error_details}` : ''}
              </span>
              {domain.certificate ? (
                <span
                  class={`badge tone-${domain.certificate.state === 'ISSUED' ? 'success' : domain.certificate.state === 'PENDING' ? 'running' : 'error'}`}
                  data-testid="certificate"
                >
                  {certificateNote(domain.certificate)}
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
