// The page of one service, the same for every kind (kinds.ts says what differs): a header with
// its state, and tabs (service-tabs.tsx), each a deep link `#/<kind>/<id>/<tab>`. What several
// tabs show (its status, its history) is read here, once, while the page is open.
import { useEffect, useState } from 'preact/hooks'
import { api, getWithTag } from './api.ts'
import { type EnvironmentContext, environmentCrumbs, loadEnvironmentContext } from './context.ts'
import type { AnyService, KindSpec } from './kinds.ts'
import { place } from './place.ts'
import { usePolled, usePolledPath } from './polled.ts'
import type { ServiceTabProps } from './service-tab-props.ts'
import { SERVICE_TABS } from './service-tabs.tsx'
import type { List, ServiceEntry, ServiceStatus } from './types.ts'
import { Breadcrumbs, Empty, Show, StateBadge, Tabs, useLoad, usePageTitle } from './ui.tsx'

const STATUS_POLL_MS = 2000

export function ServicePage({ kind, id, tab }: { kind: KindSpec; id: string; tab: string }) {
  const loaded = useLoad(async () => {
    const { data: service, etag } = await getWithTag<AnyService>(`/${kind.segment}/${id}`)
    return { service, etag, context: await loadEnvironmentContext(service.environment.id) }
  }, `${kind.segment}/${id}`)
  return (
    <Show loaded={loaded}>
      {(data) => <ServiceView key={data.service.id} spec={kind} initial={data.service} etag={data.etag} context={data.context} tab={tab} />}
    </Show>
  )
}

function ServiceView({
  spec,
  initial,
  etag,
  context,
  tab,
}: {
  spec: KindSpec
  initial: AnyService
  etag: string | null
  context: EnvironmentContext
  tab: string
}) {
  const [service, setService] = useState(initial)
  const [tag, setTag] = useState(etag)
  const base = `/${spec.segment}/${service.id}`
  const status = usePolled(() => api.get<ServiceStatus>(`${base}/status`), base, STATUS_POLL_MS)
  const history = usePolledPath<List<ServiceEntry>>(`${base}/deploymentHistoryV2?pageSize=10`, STATUS_POLL_MS)
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
  const { organization, project, environment } = context
  useEffect(() => place.set({ organizationId: organization.id, projectId: project.id, environmentId: environment.id }), [environment.id])
  const tabs = SERVICE_TABS.filter((entry) => entry.applies(spec))
  const current = tabs.find((entry) => entry.id === tab)
  usePageTitle([current?.label, service.name, environment.name])
  const props: ServiceTabProps = {
    spec,
    service,
    // A form that saved hands back the service; its new ETag is read with it.
    setService: (saved) => {
      setService(saved)
      void getWithTag<AnyService>(base).then(
        ({ etag: fresh }) => setTag(fresh),
        () => {},
      )
    },
    etag: tag,
    role: context.role,
    context,
    status,
    history,
    dryRuns: dryRuns.data,
    running,
    refresh: () => {
      status.refresh()
      history.refresh()
      dryRuns.refresh()
    },
  }

  return (
    <div class="service-page" data-kind={spec.segment} data-service-id={service.id} data-tab={tab}>
      <Breadcrumbs items={environmentCrumbs(context, { label: service.name })} />
      <header class="page-head">
        <h1 class="name" title={service.name}>
          {service.name}
        </h1>
        <span class="kind">{spec.title}</span>
        {status.data ? <StateBadge state={status.data.state} /> : null}
        <span class="role" title="your role in this organization">
          {context.role}
        </span>
      </header>
      <Tabs
        label="Service"
        current={tab}
        tabs={tabs.map((entry) => ({ id: entry.id, label: entry.label, href: `#${base}${entry.id === 'overview' ? '' : `/${entry.id}`}` }))}
      />
      <section class="tab-panel" aria-label={current?.label ?? 'Not found'}>
        {current ? current.render(props) : <Empty next={<a href={`#${base}`}>Go to its overview</a>}>This service has no such tab.</Empty>}
      </section>
    </div>
  )
}
