import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { TSchema } from 'typebox'
import type { KindWorkload } from '#src/modules/executors/workload.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { CappedList } from '#src/platform/http/lists.ts'
import type { KindSettings } from './advanced-settings/advanced-settings.schemas.ts'
import type { KindRouteContext } from './kind-route-context.ts'
import type { KindBulkMembers, KindRoutes } from './kind-routes.ts'
import type { AnyServiceKind, CloneInputContext, ServiceRecord } from './service-kinds.ts'

// One kind of service, registered once (docs/adding-a-kind.md): what the core and the deployments
// need (`kind`), how the wire names it, its create/read/edit/delete as `kindCrudRoutes` makes them,
// which side features it has, and the routes only it has.

/** The service core's operations on one kind, answering the kind's records for its wire mapping. */
export interface KindCrudService<Rec = { entityTag: string }, Write = unknown> {
  /** A page of the environment's services of the kind; `startId` continues after that one; `heldUntil` as the core's. */
  list(principal: Principal, environmentId: string, options: { startId?: string; heldUntil?: () => Promise<unknown> }): Promise<CappedList<Rec>>
  get(principal: Principal, serviceId: string): Promise<Rec>
  create(principal: Principal, environmentId: string, write: Write): Promise<Rec>
  /** An edit; `ifMatch`: the ETags If-Match accepts. */
  update(principal: Principal, serviceId: string, write: Write, ifMatch?: string[]): Promise<Rec>
  /** `overrides`: what the delete's query asks of the deployment that uninstalls it (a terraform's SKIP_DESTROY). */
  delete(principal: Principal, serviceId: string, overrides?: object): Promise<void>
}

/** What a kind's records may need of other modules (the application's deployed commit). */
export interface RecordLookups {
  /** What each service's last successful deploy or redeploy added to its configuration. */
  deployedOverrides(serviceIds: string[]): Promise<Map<string, Record<string, unknown>>>
}

/** What a kind's edit may have to tell other modules (a cron job's new schedule). */
export interface EditHooks {
  reschedule(serviceId: string, configuration: unknown): Promise<void>
}

/** The side features a kind has; each side module serves the kinds that name it (`kindsWith` in the registry). */
export interface KindFeatures {
  /** Where the kind's side routes stand among the kinds' in `/openapi.json` (the reference's order). */
  documentOrder: number
  /**
   * `/{segment}/{id}/advancedSettings` and `/default<Name>AdvancedSettings`, with these operation ids;
   * `title` and `settings` its table (composed of `SETTING_GROUPS`), which the registry hands the kind's `advancedSettings`.
   */
  advancedSettings?: { get: string; edit: string } & KindSettings
  /** `/{segment}/{id}/deploymentRestriction`. */
  restrictions?: true
  /** Its services hold variables, each its own scope of the `/variable` routes (the project's, the environment's and these kinds'). */
  variables?: true
  /** `/{segment}/{id}/environmentVariable` and `/secret`, with the import's operation id. */
  scopedVariables?: { importOperation: string }
  /** `/{segment}/{id}/customDomain`, with these operation ids; `getSuffix` the path of `get` under a domain. */
  customDomains?: {
    ids: { list: string; create: string; edit: string; delete: string; get: string; check: string }
    getSuffix: string
    /** The host a domain's CNAME must point at: the host of the service's default link, derived from the ids so it stays across deploys and edits. */
    validationDomain(service: { id: string; environmentId: string }): string
  }
}

/**
 * What a kind's services run (executors/workload.ts): its `workload` (`<kind>.workload.ts`), the
 * same for every executor; or one per executor where they differ (`<kind>.docker.ts`,
 * `<kind>.kubernetes.ts`), or where only one runs them (an Argo CD application: Kubernetes).
 */
export interface KindExecutors {
  workload?: KindWorkload
  docker?: KindWorkload
  kubernetes?: KindWorkload
}

/** The routes only the kind has, registered before its list, after its create, or after its delete (the document's order). */
export interface KindOwnRoutes<Rec> {
  before?(context: KindRouteContext, crud: KindCrudService<Rec>): FastifyPluginAsyncTypebox
  afterCreate?(context: KindRouteContext, crud: KindCrudService<Rec>): FastifyPluginAsyncTypebox
  after?(context: KindRouteContext, crud: KindCrudService<Rec>): FastifyPluginAsyncTypebox
}

/** What a kind's folder writes: everything else of the kind on the wire follows from it (`defineKind`). */
export interface KindDefinition<Rec extends { entityTag: string }, Write> {
  kind: AnyServiceKind
  /**
   * `name` makes the path segment (`helm`), parameter (`helmId`), operation ids and tags; `plural` the
   * tag of the environment's list and create and the bulk member; `aNoun` and `etagNoun` the summaries
   * and the ETag's description; the rest the operation ids and summaries that differ from the pattern.
   */
  names: {
    name: string
    plural: string
    aNoun: string
    etagNoun: string
    list?: string
    listSummary?: string
    editSummary?: string
    deleteSummary?: string
  }
  deploy: KindRoutes['deploy']
  actionQuery?: TSchema
  /** The query the reference's uninstall of the kind takes (a terraform's `force_terraform_action`); `queryOverrides` reads it. */
  uninstallQuery?: TSchema
  /** The query of its delete when more than `DeleteServiceQuery` (a terraform's `force_terraform_action`); `queryOverrides` reads it. */
  deleteQuery?: TSchema
  queryOverrides?: KindRoutes['queryOverrides']
  reboot?: true
  /** The reference's environment status list of the kind (`getEnvironmentFooStatus`), served by service-views. */
  statusList?: true
  bulk: KindBulkMembers
  /** The create's body, the edit's when it differs (a partial edit), and the response. */
  schemas: { request: TSchema; editRequest?: TSchema; response: TSchema }
  descriptions: { create: string; edit: string; get?: string; delete?: string }
  /** The validated create body as the core's write (it may throw a 400 at once); `context` seals what it makes anew. */
  createWrite(body: unknown, context: CloneInputContext): Write
  /** The validated edit body as the core's write; the create's mapping when absent. */
  editWrite?(body: unknown): Write
  /** The core's record as the kind's, for its wire mapping. */
  toRecord(service: ServiceRecord): Rec
  /** The kind's records of a page of services, when they need more than `toRecord` (the application's deployed commit). */
  records?(services: ServiceRecord[], lookups: RecordLookups): Promise<Rec[]>
  toResponse(record: Rec): object
  /** What an edit changes beyond the service row (a cron job's schedule). */
  afterEdit?(record: Rec, hooks: EditHooks): Promise<void>
  features: KindFeatures
  ownRoutes?: KindOwnRoutes<Rec>
  /** What each executor does to its services: the executors' tables, filled from the registry at wiring; absent: that executor refuses the kind. */
  executors?: KindExecutors
}

export interface KindDescriptor<Rec extends { entityTag: string } = { entityTag: string }, Write = unknown> extends KindDefinition<Rec, Write> {
  /** The kind on the wire, for the routes written once for every kind (actions, statuses, lists, bulk requests). */
  routes: KindRoutes
}

// biome-ignore lint/suspicious/noExplicitAny: the registry holds kinds of every record and write type
export type AnyKindDescriptor = KindDescriptor<any, any>

/** A kind's descriptor: its definition, and the wire names that follow from it. */
export function defineKind<Rec extends { entityTag: string }, Write>(definition: KindDefinition<Rec, Write>): KindDescriptor<Rec, Write> {
  const { kind, names, toRecord, toResponse } = definition
  const segment = names.name.toLowerCase()
  const routes: KindRoutes = {
    type: kind.type,
    segment,
    param: `${segment}Id`,
    name: names.name,
    tags: { actions: `${names.name} Actions`, main: `${names.name} Main Calls`, history: `${names.name} Deployment History` },
    deploy: definition.deploy,
    uninstall: true,
    response: { schema: definition.schemas.response, of: (service) => toResponse(toRecord(service)) },
    bulk: { ...definition.bulk, statuses: names.plural.toLowerCase(), ids: `${segment}_ids` },
  }
  if (definition.actionQuery) routes.actionQuery = definition.actionQuery
  if (definition.uninstallQuery) routes.uninstallQuery = definition.uninstallQuery
  if (definition.queryOverrides) routes.queryOverrides = definition.queryOverrides
  if (definition.reboot) routes.reboot = true
  if (definition.statusList) routes.statusList = true
  return { ...definition, routes }
}
