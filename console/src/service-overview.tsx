// A service's Overview tab: its state, what runs against what is configured (told apart, never
// "up to date" when they differ), its addresses (the front door's, custom domains', and published
// debugging ports, each labelled), its instances by name, its configuration and its actions.
import { Fragment } from 'preact'
import { api } from './api.ts'
import { formatTime, words } from './format.ts'
import { deployedVersion, type KindSpec, versionIn } from './kinds.ts'
import { clockOf } from './log-stream.ts'
import { usePolled } from './polled.ts'
import { ServiceActions } from './service-actions.tsx'
import { instancesSeen } from './service-instances.ts'
import type { ServiceLogLine } from './service-log-stream.ts'
import type { ServiceTabProps } from './service-tab-props.ts'
import { type CustomDomain, hasRole, type Link, type List, type ServiceEntry } from './types.ts'
import { Empty, ErrorMessage, StateBadge, When } from './ui.tsx'

const LINKS_POLL_MS = 5000
const INSTANCES_POLL_MS = 5000

/** How what runs compares with the configuration, in words that claim no more than the API and the history say. */
export function deploymentNote(spec: KindSpec, service: ServiceTabProps['service'], deploymentStatus: string, running: ServiceEntry | undefined) {
  if (!running || deploymentStatus === 'NEVER_DEPLOYED') return { text: 'never deployed', differs: false }
  const field = spec.versionField(service)?.field
  const ran = field ? versionIn(running, field) : undefined
  const configured = spec.configuredValue?.(service)
  if (ran !== undefined && configured !== undefined && ran !== configured) {
    return { text: `runs ${ran}, not the configured ${configured}: the next deploy without a version runs ${configured}`, differs: true }
  }
  if (deploymentStatus === 'OUT_OF_DATE') return { text: 'the configuration changed since the last deploy: deploy to run it', differs: true }
  return { text: 'runs the configuration as saved', differs: false }
}

export function ServiceOverview(props: ServiceTabProps) {
  const { spec, service, role, status, history, running } = props
  const canDeploy = hasRole(role, 'DEPLOY')
  const versionField = spec.versionField(service)?.field
  // The versions deployed before, newest first, offered by the version chooser.
  const suggestions = versionField
    ? [...new Set((history.data?.results ?? []).map((e) => versionIn(e, versionField)).filter((v): v is string => Boolean(v)))]
    : []
  const summary = spec.summary(service)
  return (
    <div class="overview-tab">
      <div class="overview-main">
        <section class="service-status panel" aria-label="Status" aria-live="polite">
          <h2>Status</h2>
          {status.data === undefined && !status.error ? <p class="loading">Loading…</p> : null}
          <ErrorMessage message={status.error} />
          {status.data ? (
            <dl class="facts">
              <dt>State</dt>
              <dd data-testid="service-state" data-state={status.data.state}>
                <StateBadge state={status.data.state} />
                {status.data.deployment_requests_count > 0 ? (
                  <span class="note"> {status.data.deployment_requests_count} deployment(s) queued or running</span>
                ) : null}
              </dd>
              <dt>Running</dt>
              <dd data-testid="running-version">{running ? deployedVersion(running) : 'nothing deployed yet'}</dd>
              <dt>Configured</dt>
              <dd data-testid="configured-version">{spec.configuredVersion(service)}</dd>
              <dt>Running vs configured</dt>
              <dd data-testid="deployment-status">
                {(() => {
                  const note = deploymentNote(spec, service, status.data.service_deployment_status, running)
                  return <span class={note.differs ? 'differs' : ''}>{note.text}</span>
                })()}
              </dd>
              <dt>Instances</dt>
              <dd data-testid="instances">
                <Instances spec={spec} serviceId={service.id} />
              </dd>
              {status.data.last_deployment_date ? (
                <>
                  <dt>Last deployed</dt>
                  <dd>
                    <When at={status.data.last_deployment_date} />
                  </dd>
                </>
              ) : null}
            </dl>
          ) : null}
        </section>
        {spec.links || spec.customDomains ? <Addresses spec={spec} serviceId={service.id} /> : null}
      </div>
      <div class="overview-side">
        {canDeploy ? (
          <ServiceActions spec={spec} service={service} role={role} suggestions={suggestions} onTriggered={props.refresh} />
        ) : (
          <p class="hint panel">Your {role} token can look at this service; deploying needs DEPLOY.</p>
        )}
        {summary.length > 0 ? (
          <section class="configuration panel" aria-label="Configuration">
            <h2>Configuration</h2>
            <dl class="facts">
              {summary.map(([label, value]) => (
                <Fragment key={label}>
                  <dt>{label}</dt>
                  <dd class="wrap" data-fact={label}>
                    {value}
                  </dd>
                </Fragment>
              ))}
            </dl>
            <p class="more">
              <a href={`#/${spec.segment}/${service.id}/settings`}>Change it in Settings</a>
            </p>
          </section>
        ) : null}
      </div>
    </div>
  )
}

/** The instances its last lines name, each by its container's (or pod's) name, with its index as a detail. */
function Instances({ spec, serviceId }: { spec: KindSpec; serviceId: string }) {
  const lines = usePolled(() => api.get<List<ServiceLogLine>>(`/${spec.segment}/${serviceId}/log`), serviceId, INSTANCES_POLL_MS)
  if (lines.error) return <span class="note">{lines.error}</span>
  if (!lines.data) return <span class="loading">Loading…</span>
  const seen = instancesSeen(lines.data.results)
  if (seen.length === 0) return <span class="note">none seen in its logs</span>
  return (
    <ul class="instances">
      {seen.map((instance) => (
        <li key={instance.instance} class="instance-seen">
          <span class="instance-name">{instance.pod || `instance #${instance.instance}`}</span>
          <span class="note">
            {' '}
            instance #{instance.instance} · last line at {clockOf(instance.lastLineAt)}
          </span>
        </li>
      ))}
    </ul>
  )
}

/** What an address is, from what the API says of it: a custom domain, a published port (not through the front door), or the front door's. */
function addressKind(link: Link, domains: Set<string>): 'front-door' | 'custom-domain' | 'published-port' {
  const host = URL.canParse(link.url) ? new URL(link.url).hostname : ''
  if (domains.has(host)) return 'custom-domain'
  // A published port answers plain http (or tcp/udp) on the engine's host: the front door serves https.
  if (link.url.startsWith('http://') || !link.is_qovery_domain) return 'published-port'
  return 'front-door'
}

const ADDRESS_LABELS = {
  'front-door': 'through the front door',
  'custom-domain': 'custom domain, through the front door',
  'published-port': 'published port, for debugging',
}

function Addresses({ spec, serviceId }: { spec: KindSpec; serviceId: string }) {
  const base = `/${spec.segment}/${serviceId}`
  // A deploy publishes new ports: the addresses are read again, less often than the status.
  const links = usePolled(() => (spec.links ? api.get<List<Link>>(`${base}/link`) : Promise.resolve({ results: [] })), base, LINKS_POLL_MS)
  const domains = usePolled(
    () => (spec.customDomains ? api.get<List<CustomDomain>>(`${base}/customDomain`) : Promise.resolve({ results: [] })),
    base,
    LINKS_POLL_MS,
  )
  const domainNames = new Set((domains.data?.results ?? []).map((domain) => domain.domain))
  return (
    <section class="addresses panel" aria-label="Addresses">
      <h2>Addresses</h2>
      <ErrorMessage message={links.error} />
      {links.data === undefined ? (
        links.error ? null : (
          <p class="loading">Loading…</p>
        )
      ) : links.data.results.length === 0 ? (
        <Empty next={spec.segment === 'helm' ? 'Give its chart a port in its configuration, then deploy it.' : 'Make a port public, then deploy it.'}>
          No public address.
        </Empty>
      ) : (
        <ul class="links">
          {links.data.results.map((link) => {
            const kind = addressKind(link, domainNames)
            return (
              <li key={link.url} data-address-kind={kind}>
                <a href={link.url} target="_blank" rel="noopener noreferrer" data-testid="address" class="wrap">
                  {link.url}
                </a>
                <span class={`chip${kind === 'published-port' ? ' tone-queued' : ''}`}>{ADDRESS_LABELS[kind]}</span>
                <span class="note">
                  {kind === 'published-port' ? 'reaches the instance directly, not through the front door: ' : ''}
                  to its port {link.internal_port}
                  {link.is_default ? ', its default address' : ''}
                </span>
              </li>
            )
          })}
        </ul>
      )}
      {spec.customDomains ? <CustomDomains domains={domains} /> : null}
    </section>
  )
}

/** What a custom domain's certificate state says to a person. */
function certificateNote(certificate: NonNullable<CustomDomain['certificate']>): string {
  if (certificate.state === 'ISSUED')
    return `certificate issued${certificate.issuer ? ` by ${certificate.issuer}` : ''}${certificate.expires_at ? `, expires ${formatTime(certificate.expires_at)}` : ''}`
  return certificate.state === 'PENDING' ? 'certificate pending' : 'not served (its check has not passed)'
}

function CustomDomains({ domains }: { domains: { data?: List<CustomDomain>; error?: string } }) {
  return (
    <>
      <h3>Custom domains</h3>
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
    </>
  )
}
