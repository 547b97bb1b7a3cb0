import type { TSchema } from 'typebox'
import type { ServiceType } from '#src/platform/deployment-states.ts'
import type { ServiceRecord } from './service-kinds.ts'

/**
 * A kind of service on the wire: the path and operation ids of its actions, its deploy request,
 * and its response shape, for the routes written once for every kind (actions, statuses, the
 * environment's service list).
 */
export interface KindRoutes {
  type: ServiceType
  /** The path segment: `/helm/{helmId}/deploy`. */
  segment: string
  /** The path parameter: `helmId`. */
  param: string
  /** The word of its operation ids and summaries: `deployHelm`, "Deploy helm". */
  name: string
  tags: { actions: string; main: string; history: string }
  deploy: { body: TSchema; description: string; overrides(body: unknown): object }
  /** The query the platform's deploy and redeploy take (accepted for compatibility). */
  actionQuery?: TSchema
  /** The query its uninstall takes (a terraform's `force_terraform_action`), read by `queryOverrides` too. */
  uninstallQuery?: TSchema
  /** What the deploy, redeploy and uninstall query asks beyond the configuration (a job's `forceEvent`); nothing when absent. */
  queryOverrides?(query: unknown): object
  /** Whether the kind has an uninstall action (`/helm/{id}/uninstall`). */
  uninstall: boolean
  /** Whether the kind has the reference's reboot action (`/application/{id}/restart-service`, trigger RESTART as a redeploy). */
  reboot?: boolean
  /** Whether the reference lists the environment's services of the kind at `/environment/{id}/{segment}/status` (service-views). */
  statusList?: boolean
  /** The reference's response shape of one service of the kind, and the mapping to it. */
  response: { schema: TSchema; of(service: ServiceRecord): object }
  /** The members of the reference's bulk requests and status lists that name the kind's services. */
  bulk: KindBulkMembers & { statuses: string; ids: string }
}

/**
 * How the reference's bulk requests (selected-services.routes.ts) list a kind's services: `rank`s
 * are the kind's places among the members of each request, in the reference's order.
 */
export interface KindBulkMembers {
  /**
   * deployAllServices' member (`helms`): items with the id in `idField` (`id` by default) and the
   * optional text `fields` a deploy of the kind takes; bare ids, described so, without `fields`.
   */
  deploy: { rank: number; idField?: string; fields?: string[]; description?: string }
  /** The `<segment>_ids` member of the stop, uninstall and delete requests. */
  idsRank: number
  idsDescription: string
  /** The rebootServices member, when the kind has one. */
  reboot?: { rank: number; description: string }
}
