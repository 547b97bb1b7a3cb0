import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { type Static, Type } from 'typebox'
import { EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import type { KindRoutes } from '#src/modules/services/kind-routes.ts'
import { emptyBodyAsObject } from '#src/platform/http/body-parsing.ts'
import { conflictResponse, Uuid } from '#src/platform/http/common-schemas.ts'
import type { ServiceType } from '../../deployment-states.ts'
import { EnvironmentStatus, Status } from '../../deployments.schemas.ts'
import type { DeploymentTriggersService, SelectionItem } from './deployment-triggers.service.ts'
import { toEnvironmentStatusResponse, toStatusResponse } from './triggers.wire.ts'

// The bulk actions of the reference's "Environment Actions" that the CLI uses for every service
// command (`qovery helm deploy|stop|delete`, …): one deployment of the selected services.

const MAX_SELECTED = 100
const Ids = (description: string) => Type.Optional(Type.Array(Uuid, { maxItems: MAX_SELECTED, description }))
const Text = Type.String({ minLength: 1, maxLength: 255 })

const DeployAllRequest = Type.Object(
  {
    applications: Type.Optional(Type.Array(Type.Object({ application_id: Uuid, git_commit_id: Type.Optional(Text) }), { maxItems: MAX_SELECTED })),
    databases: Ids('ids of the databases to deploy'),
    containers: Type.Optional(Type.Array(Type.Object({ id: Uuid, image_tag: Type.Optional(Text) }), { maxItems: MAX_SELECTED })),
    jobs: Type.Optional(
      Type.Array(Type.Object({ id: Uuid, image_tag: Type.Optional(Text), git_commit_id: Type.Optional(Text) }), { maxItems: MAX_SELECTED }),
    ),
    helms: Type.Optional(
      Type.Array(
        Type.Object({
          id: Uuid,
          chart_version: Type.Optional(Text),
          git_commit_id: Type.Optional(Text),
          values_override_git_commit_id: Type.Optional(Text),
        }),
        { maxItems: MAX_SELECTED },
      ),
    ),
  },
  { title: 'DeployAllRequest' },
)
type DeployAllRequest = Static<typeof DeployAllRequest>

const ServiceIdsRequest = Type.Object(
  {
    application_ids: Ids('applications'),
    container_ids: Ids('containers'),
    database_ids: Ids('databases'),
    job_ids: Ids('jobs'),
    helm_ids: Ids('helm services'),
    terraform_ids: Ids('infrastructure-as-code services'),
  },
  { title: 'EnvironmentServiceIdsAllRequest' },
)
type ServiceIdsRequest = Static<typeof ServiceIdsRequest>

const RebootServicesRequest = Type.Object(
  {
    application_ids: Ids('applications'),
    database_ids: Ids('databases'),
    container_ids: Ids('containers'),
    helm_ids: Ids('Berth extension: helm services'),
  },
  { title: 'RebootServicesRequest' },
)

/** The members of the reference's id lists, by the kind they name. */
const ID_MEMBERS: [keyof ServiceIdsRequest, ServiceType][] = [
  ['application_ids', 'APPLICATION'],
  ['container_ids', 'CONTAINER'],
  ['database_ids', 'DATABASE'],
  ['job_ids', 'JOB'],
  ['helm_ids', 'HELM'],
  ['terraform_ids', 'IAC'],
]

function idItems(body: ServiceIdsRequest): SelectionItem[] {
  return ID_MEMBERS.flatMap(([member, type]) => (body[member] ?? []).map((id, index) => ({ type, id, overrides: {}, path: `/${member}/${index}` })))
}

/** deployAllServices' members as selection items, each with what its kind takes of it as overrides. */
function deployItems(body: DeployAllRequest, kinds: readonly KindRoutes[]): SelectionItem[] {
  const overrides = (type: ServiceType, item: object) => kinds.find((kind) => kind.type === type)?.deploy.overrides(item) ?? {}
  return [
    ...(body.applications ?? []).map((item, index) => ({
      type: 'APPLICATION' as const,
      id: item.application_id,
      overrides: overrides('APPLICATION', item),
      path: `/applications/${index}/application_id`,
    })),
    ...(body.databases ?? []).map((id, index) => ({ type: 'DATABASE' as const, id, overrides: {}, path: `/databases/${index}` })),
    ...(body.containers ?? []).map((item, index) => ({
      type: 'CONTAINER' as const,
      id: item.id,
      overrides: overrides('CONTAINER', item),
      path: `/containers/${index}/id`,
    })),
    ...(body.jobs ?? []).map((item, index) => ({ type: 'JOB' as const, id: item.id, overrides: overrides('JOB', item), path: `/jobs/${index}/id` })),
    ...(body.helms ?? []).map((item, index) => ({
      type: 'HELM' as const,
      id: item.id,
      overrides: overrides('HELM', item),
      path: `/helms/${index}/id`,
    })),
  ]
}

const QUEUES = 'Needs the DEPLOY role. One deployment of the selected services is queued behind those of the environment already queued or running.'

export function selectedServicesRoutes(deployments: DeploymentTriggersService, kinds: readonly KindRoutes[]): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['Environment Actions']

    app.post(
      '/environment/:environmentId/service/deploy',
      {
        preValidation: emptyBodyAsObject,
        schema: {
          operationId: 'deployAllServices',
          summary: 'Deploy services',
          description: `Deploys the selected services, each with what its entry asks (a chart version, a commit). ${QUEUES} A service that is not of this environment, or not of the kind it is listed as, is a 400.`,
          tags,
          params: EnvironmentParams,
          body: DeployAllRequest,
          response: { 202: EnvironmentStatus },
        },
      },
      async (req, reply) =>
        reply
          .code(202)
          .send(toEnvironmentStatusResponse(await deployments.deploySelected(req.principal, req.params.environmentId, deployItems(req.body, kinds)))),
    )

    app.post(
      '/environment/:environmentId/service/restart-service',
      {
        preValidation: emptyBodyAsObject,
        schema: {
          operationId: 'rebootServices',
          summary: 'Reboot services',
          description: `Restarts the selected services (trigger RESTART). ${QUEUES}`,
          tags,
          params: EnvironmentParams,
          body: RebootServicesRequest,
          response: { 202: Status },
        },
      },
      async (req, reply) =>
        reply.code(202).send(toStatusResponse(await deployments.restartSelected(req.principal, req.params.environmentId, idItems(req.body)))),
    )

    const selectedActions = [
      {
        action: 'stop',
        trigger: 'STOP',
        operationId: 'stopSelectedServices',
        summary: 'Stop services',
        conflict: 'every selected service is already stopped and nothing queued includes one',
      },
      { action: 'uninstall', trigger: 'UNINSTALL', operationId: 'uninstallSelectedServices', summary: 'Uninstall services', conflict: undefined },
      { action: 'delete', trigger: 'DELETE', operationId: 'deleteSelectedServices', summary: 'Delete services', conflict: undefined },
    ] as const
    for (const { action, trigger, operationId, summary, conflict } of selectedActions) {
      app.post(
        `/environment/:environmentId/service/${action}`,
        {
          preValidation: emptyBodyAsObject,
          schema: {
            operationId,
            summary,
            description:
              trigger === 'DELETE'
                ? `Needs the WRITE role, as deleting a service does. Uninstalls the selected services, then deletes each whose uninstall succeeded (trigger DELETE); their history stays. ${QUEUES.replace('Needs the DEPLOY role. ', '')}`
                : `${summary} (trigger ${trigger}). ${QUEUES}`,
            tags,
            params: EnvironmentParams,
            ...(trigger === 'DELETE'
              ? { querystring: Type.Object({ skipReconcile: Type.Optional(Type.Boolean({ description: 'accepted for compatibility' })) }) }
              : {}),
            body: ServiceIdsRequest,
            response: { 200: EnvironmentStatus, ...(conflict ? conflictResponse(conflict) : {}) },
          },
        },
        async (req) =>
          toEnvironmentStatusResponse(await deployments.triggerSelected(req.principal, req.params.environmentId, trigger, idItems(req.body))),
      )
    }
  }
}
