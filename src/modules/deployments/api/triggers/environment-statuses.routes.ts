import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import type { KindRoutes } from '#src/modules/services/kind-routes.ts'
import type { ServiceSummary } from '#src/modules/services/service-kinds.ts'
import { type ServiceType, STAGE_STATUSES } from '#src/platform/deployment-states.ts'
import { EnvironmentStatus, Status } from '#src/platform/deployment-status.schemas.ts'
import { Enum, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'
import type { StatusRecord } from './deployment-statuses.ts'
import type { DeploymentTriggers } from './deployment-triggers.service.ts'
import { toEnvironmentStatusResponse, toStatusResponse } from './triggers.wire.ts'

/** The reference's members of a status list, each required even while Berth has no service of that kind. */
const REQUIRED_MEMBERS = ['applications', 'containers', 'jobs', 'databases', 'helms', 'terraforms'] as const

const statusLists = (description: string) =>
  Object.fromEntries(REQUIRED_MEMBERS.map((member) => [member, Type.Array(Status, { description: `${description} ${member}` })]))

const EnvironmentStatuses = Type.Object({ environment: EnvironmentStatus, ...statusLists('the statuses of its') }, { title: 'EnvironmentStatuses' })

const StageWithStatuses = Type.Object(
  {
    ...statusLists("the statuses of the stage's"),
    stage: Type.Object(
      {
        id: Uuid,
        name: Type.String(),
        description: Type.String(),
        status: Type.Optional(
          Enum(STAGE_STATUSES, 'StageStatusEnum', "the stage's status in the deployment the environment is busy with, else in its newest"),
        ),
      },
      { title: 'Stage' },
    ),
  },
  { title: 'DeploymentStageWithServicesStatuses' },
)

const EnvironmentStatusesWithStages = Type.Object(
  { environment: EnvironmentStatus, stages: Type.Array(StageWithStatuses), pre_check_stage: Type.Optional(Nullable(Type.Object({}))) },
  { title: 'EnvironmentStatusesWithStages' },
)

/** Statuses grouped in the reference's members by kind (`helms`, …). */
function grouped(kinds: readonly KindRoutes[], statuses: { service: ServiceSummary; status: StatusRecord }[]) {
  const memberOf = new Map<ServiceType, string>(kinds.map((kind) => [kind.type, kind.bulk.statuses]))
  const groups: Record<string, ReturnType<typeof toStatusResponse>[]> = Object.fromEntries(REQUIRED_MEMBERS.map((member) => [member, []]))
  for (const { service, status } of statuses) {
    const member = memberOf.get(service.kind)
    if (member) groups[member] = [...(groups[member] ?? []), toStatusResponse(status)]
  }
  return groups
}

export function environmentStatusesRoutes(deployments: DeploymentTriggers, kinds: readonly KindRoutes[]): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['Environment Main Calls']

    app.get(
      '/environment/:environmentId/statuses',
      {
        schema: {
          operationId: 'getEnvironmentStatuses',
          summary: 'Get environment statuses with services status',
          tags,
          params: EnvironmentParams,
          response: { 200: EnvironmentStatuses },
        },
      },
      async (req) => {
        const { environment, services } = await deployments.getEnvironmentStatuses(req.principal, req.params.environmentId)
        return { environment: toEnvironmentStatusResponse(environment), ...grouped(kinds, services) }
      },
    )

    app.get(
      '/environment/:environmentId/statusesWithStages',
      {
        schema: {
          operationId: 'getEnvironmentStatusesWithStages',
          summary: 'Get environment statuses with stages',
          description: 'The stages in deploy order, each with the statuses of its services.',
          tags,
          params: EnvironmentParams,
          response: { 200: EnvironmentStatusesWithStages },
        },
      },
      async (req) => {
        const { environment, stages } = await deployments.getEnvironmentStatusesWithStages(req.principal, req.params.environmentId)
        return {
          environment: toEnvironmentStatusResponse(environment),
          stages: stages.map(({ stage, status, services }) => ({
            ...grouped(kinds, services),
            stage: { id: stage.id, name: stage.name, description: stage.description ?? '', ...(status ? { status } : {}) },
          })),
        }
      },
    )
  }
}
