import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { TSchema } from 'typebox'
import type { KindCrudService } from './kind-crud.ts'
import type { KindRouteContext } from './kind-route-context.ts'
import type { KindRoutes } from './kind-routes.ts'
import type { AnyServiceKind, CloneInputContext, ServiceRecord } from './service-kinds.ts'

// One kind of service, registered once (docs/adding-a-kind.md): what the core and the deployments
// need (`kind`), the kind on the wire (`routes`), its create/read/edit/delete (`crud`), which side
// features it has, and the routes only it has.

/** What a kind's records may need of other modules (the application's deployed commit). */
export interface RecordLookups {
  /** What each service's last successful deploy or redeploy added to its configuration. */
  deployedOverrides(serviceIds: string[]): Promise<Map<string, Record<string, unknown>>>
}

/** What a kind's edit may have to tell other modules (a cron job's new schedule). */
export interface EditHooks {
  reschedule(serviceId: string, configuration: unknown): Promise<void>
}

/**
 * The create, read, edit and delete routes of a kind, as `kindCrudRoutes` makes them: the
 * schemas, the body → write mapping, the record → wire mapping, and the documentation strings that
 * differ from kind to kind.
 */
export interface KindCrud<Rec extends { entityTag: string } = { entityTag: string }, Write = unknown> {
  /** The tag of the environment's list and create: "Helms". */
  plural: string
  /** The kind with its article, as summaries say it: "a helm", "an application". */
  aNoun: string
  /** What the ETag names: "the helm service". */
  etagNoun: string
  schemas: {
    request: TSchema
    /** The edit's body, when it is not the create's (a partial edit). */
    editRequest?: TSchema
    response: TSchema
    responseList: TSchema
    params: TSchema
    deleteQuery: TSchema
  }
  /** Operation ids and summaries that do not follow `list<Name>`, "List <plural>", "Edit <segment>", "Delete <segment>". */
  names?: { list?: string; listSummary?: string; editSummary?: string; deleteSummary?: string }
  descriptions: { create: string; edit: string; get?: string; delete?: string }
  /** The validated create body as the core's write (it may throw a 400 at once); `context` seals what it makes anew. */
  createWrite(body: unknown, context: CloneInputContext): Write
  /** The validated edit body as the core's write. */
  editWrite(body: unknown): Write
  /** The core's records as the kind's, for its wire mapping. */
  records(services: ServiceRecord[], lookups: RecordLookups): Rec[] | Promise<Rec[]>
  toResponse(record: Rec): object
  /** What an edit changes beyond the service row (a cron job's schedule). */
  afterEdit?(record: Rec, hooks: EditHooks): Promise<void>
}

/** The side features a kind has; each side module serves the kinds that name it. */
export interface KindFeatures {
  /** Where the kind's side routes stand among the kinds' in `/openapi.json` (the reference's order). */
  documentOrder: number
  /** `/{segment}/{id}/advancedSettings` and `/default<Name>AdvancedSettings`, with these operation ids. */
  advancedSettings?: { get: string; edit: string }
  /** `/{segment}/{id}/deploymentRestriction`. */
  restrictions?: boolean
  /** `/{segment}/{id}/environmentVariable` and `/secret`, with the import's operation id. */
  scopedVariables?: { importOperation: string }
  /** `/{segment}/{id}/customDomain`, with these operation ids; `getSuffix` the path of `get` under a domain. */
  customDomains?: { ids: { list: string; create: string; edit: string; delete: string; get: string; check: string }; getSuffix: string }
}

/** The routes only the kind has, registered before its list, after its create, or after its delete (the document's order). */
export interface KindOwnRoutes<Rec> {
  before?(context: KindRouteContext, crud: KindCrudService<Rec>): FastifyPluginAsyncTypebox
  afterCreate?(context: KindRouteContext, crud: KindCrudService<Rec>): FastifyPluginAsyncTypebox
  after?(context: KindRouteContext, crud: KindCrudService<Rec>): FastifyPluginAsyncTypebox
}

export interface KindDescriptor<Rec extends { entityTag: string } = { entityTag: string }, Write = unknown> {
  kind: AnyServiceKind
  routes: KindRoutes
  crud: KindCrud<Rec, Write>
  features: KindFeatures
  ownRoutes?: KindOwnRoutes<Rec>
}

// biome-ignore lint/suspicious/noExplicitAny: the registry holds kinds of every record and write type
export type AnyKindDescriptor = KindDescriptor<any, any>
