import type { Selectable } from 'kysely'
import type { MetricsSettings } from '#src/config.ts'
import type { MonitoringPaths } from '#src/modules/metrics/monitoring-engines.ts'
import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { AppError, notFound, validationFailed } from '#src/platform/http/errors.ts'
import { asNotFound } from '#src/platform/http/not-found.ts'
import { ALERT_SERVICE_TARGETS } from '#src/platform/service-types.ts'
import type { AlertingRepository, RuleColumns } from './alerting.repository.ts'
import type { AlertRuleCreationRequest, AlertRuleEditRequest } from './alerting.schemas.ts'
import type { AlertRulesTable } from './alerting.tables.ts'
import { durationSeconds } from './engine-config.ts'
import { promqlProblem } from './promql-check.ts'
import { scopePromql } from './promql-scope.ts'
import { type RuleView, readRuleViews } from './rule-state.ts'

// Alert rules: PromQL that Prometheus runs, checked by Prometheus before it is stored, limited to
// the organization's series, notified through the organization's receivers.

type RuleRow = Selectable<AlertRulesTable>
export type RuleWithView = RuleRow & RuleView & { targetKind: string | undefined }

interface Deps {
  repo: AlertingRepository
  organizations: OrganizationsService
  settings: MetricsSettings
  paths: MonitoringPaths
  listLimit: number
  changed(): void
}

const SERVICE_TARGETS = new Set<string>(ALERT_SERVICE_TARGETS)
/** The stored organization label: a rule of one organization sees its series only. */
const SCOPE_LABEL = 'organization_id'

export function createAlertRulesService({ repo, organizations, settings, paths, listLimit, changed }: Deps) {
  async function checked(organizationId: string, input: AlertRuleEditRequest): Promise<RuleColumns> {
    const forSeconds = durationSeconds(input.for_duration)
    if (forSeconds === undefined)
      throw validationFailed([{ path: '/for_duration', message: 'must be an ISO-8601 duration such as PT10S or PT5M', location: 'body' }])
    if ((await repo.countReceiversOf(organizationId, input.alert_receiver_ids)) !== input.alert_receiver_ids.length)
      throw validationFailed([{ path: '/alert_receiver_ids', message: 'must name alert receivers of the same organization', location: 'body' }])
    const problem = await promqlProblem(settings.promtoolPath, input.condition.promql, forSeconds)
    if (problem) throw validationFailed([{ path: '/condition/promql', message: problem, location: 'body' }])
    const scopedPromql = scopePromql(input.condition.promql, SCOPE_LABEL, organizationId)
    const scopedProblem = await promqlProblem(settings.promtoolPath, scopedPromql, forSeconds)
    if (scopedProblem)
      throw validationFailed([
        { path: '/condition/promql', message: `could not limit the expression to the organization: ${scopedProblem}`, location: 'body' },
      ])
    return {
      name: input.name,
      description: input.description,
      tag: input.tag,
      condition: input.condition as RuleColumns['condition'],
      scopedPromql,
      forDuration: input.for_duration,
      severity: input.severity,
      presentation: input.presentation,
      enabled: input.enabled,
      alertReceiverIds: input.alert_receiver_ids,
    }
  }

  async function target(organizationId: string, input: AlertRuleCreationRequest['target']): Promise<{ name: string; type: string }> {
    const type = String(input.target_type).trim()
    const found =
      type === 'CLUSTER'
        ? await repo.clusterOf(organizationId, input.target_id)
        : type === 'ENVIRONMENT'
          ? await repo.environmentOf(organizationId, input.target_id)
          : SERVICE_TARGETS.has(type)
            ? await repo.serviceOf(organizationId, input.target_id)
            : undefined
    if (!found)
      throw validationFailed([{ path: '/target/target_id', message: `names no ${type.toLowerCase()} of the organization`, location: 'body' }])
    return { name: found.name, type }
  }

  async function withViews(rows: RuleRow[]): Promise<RuleWithView[]> {
    const forOf = new Map(rows.map((row) => [row.id, durationSeconds(row.forDuration) ?? 0]))
    const views = await readRuleViews(paths, settings, (id) => forOf.get(id) ?? 0)
    const kinds = new Map<string, string>()
    for (const row of rows) {
      if (!SERVICE_TARGETS.has(row.targetType)) continue
      const service = await repo.serviceOf(row.organizationId, row.targetId)
      if (service) kinds.set(row.id, service.kind)
    }
    return rows.map((row) => {
      const running = views?.get(row.id)
      const view: RuleView =
        running && row.enabled
          ? { ...running.view, upToDate: running.version === String(row.version) }
          : { state: 'UNDEPLOYED', upToDate: !row.enabled && running === undefined && views !== undefined, startsAt: undefined }
      return { ...row, ...view, targetKind: kinds.get(row.id) }
    })
  }

  async function requireRule(principal: Principal, id: string, role: 'READ' | 'WRITE') {
    const row = await repo.findRule(id)
    if (!row) throw notFound('alert rule')
    // Another organization's answers as an id that does not exist.
    await organizations.requireAccess(principal, row.organizationId, role).catch(asNotFound('alert rule'))
    return row
  }

  return {
    async list(principal: Principal, organizationId: string) {
      await organizations.requireAccess(principal, organizationId, 'READ')
      return withViews(await repo.listRules(organizationId, listLimit))
    },

    async get(principal: Principal, id: string) {
      return (await withViews([await requireRule(principal, id, 'READ')]))[0]!
    },

    async create(principal: Principal, input: AlertRuleCreationRequest) {
      await organizations.requireAccess(principal, input.organization_id, 'WRITE')
      if (!(await repo.clusterOf(input.organization_id, input.cluster_id)))
        throw validationFailed([{ path: '/cluster_id', message: 'names no cluster of the organization', location: 'body' }])
      const aimed = await target(input.organization_id, input.target)
      const columns = await checked(input.organization_id, input)
      const row = await repo.insertRule({
        ...columns,
        organizationId: input.organization_id,
        clusterId: input.cluster_id,
        targetType: aimed.type,
        targetId: input.target.target_id,
        targetName: aimed.name,
      })
      changed()
      return (await withViews([row]))[0]!
    },

    async edit(principal: Principal, id: string, input: AlertRuleEditRequest) {
      const stored = await requireRule(principal, id, 'WRITE')
      const row = await repo.updateRule(id, await checked(stored.organizationId, input))
      if (!row) throw notFound('alert rule')
      changed()
      return (await withViews([row]))[0]!
    },

    async delete(principal: Principal, id: string) {
      await requireRule(principal, id, 'WRITE')
      await repo.deleteRule(id)
      changed()
    },

    /** get-cluster-metrics: Prometheus' answer to a query, limited to the cluster's organization. */
    async clusterMetrics(principal: Principal, clusterId: string, query: Record<string, string | undefined>): Promise<string> {
      const cluster = await repo.clusterById(clusterId)
      if (!cluster) throw notFound('cluster')
      await organizations.requireAccess(principal, cluster.organizationId, 'READ').catch(asNotFound('cluster'))
      if (paths.embedded && !settings.run)
        throw new AppError('bad_request', 'no Prometheus runs for this server: set BERTH_EXECUTOR=docker (Berth runs one) or BERTH_PROMETHEUS_URL')
      const endpoint = (query.endpoint ?? '').replace(/^\/+/, '')
      if (endpoint !== 'api/v1/query' && endpoint !== 'api/v1/query_range')
        throw validationFailed([{ path: '/endpoint', message: 'must be api/v1/query or api/v1/query_range', location: 'query' }])
      const params = new URLSearchParams({ query: scopePromql(query.query ?? '', SCOPE_LABEL, cluster.organizationId) })
      for (const key of ['start', 'end', 'step', 'time', 'timeout']) if (query[key]) params.set(key, query[key]!)
      let res: Response
      try {
        res = await fetch(`${paths.prometheusUrl}/${endpoint}?${params}`, { signal: AbortSignal.timeout(30_000) })
      } catch (error) {
        throw new AppError('bad_gateway', `Prometheus did not answer: ${(error as Error).message}`)
      }
      const text = await res.text()
      if (res.status === 400 || res.status === 422) throw new AppError('bad_request', `Prometheus refused the query: ${text}`)
      if (!res.ok) throw new AppError('bad_gateway', `Prometheus answered ${res.status}`)
      return text
    },
  }
}

export type AlertRulesService = ReturnType<typeof createAlertRulesService>
