import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { type TSchema, Type } from 'typebox'
import { EnvironmentParams } from '#src/modules/environments/environments.schemas.ts'
import type { KindRoutes } from '#src/modules/services/kind-routes.ts'
import type { ServiceType } from '#src/platform/deployment-states.ts'
import { EnvironmentStatus, Status } from '#src/platform/deployment-status.schemas.ts'
import { emptyBodyAsObject } from '#src/platform/http/body-parsing.ts'
import { conflictResponse, Uuid } from '#src/platform/http/common-schemas.ts'
import type { DeploymentTriggers, SelectionItem } from './deployment-triggers.service.ts'
import { toEnvironmentStatusResponse, toStatusResponse } from './triggers.wire.ts'

// The bulk actions of the reference's "Environment Actions" that the CLI uses for every service
// command (`qovery helm deploy|stop|delete`, …): one deployment of the selected services.

const MAX_SELECTED = 100
const Ids = (description: string) => Type.Optional(Type.Array(Uuid, { maxItems: MAX_SELECTED, description }))
const Text = Type.String({ minLength: 1, maxLength: 255 })

/** The kinds in the order of the members of one of the reference's requests. */
const ranked = (kinds: readonly KindRoutes[], rank: (kind: KindRoutes) => number | undefined) =>
  kinds.filter((kind) => rank(kind) !== undefined).sort((a, b) => rank(a)! - rank(b)!)

/** deployAllServices' body: a member per kind (`helms`), of items with what a deploy of the kind takes, or of bare ids. */
function deployAllRequest(kinds: readonly KindRoutes[]) {
  const members = ranked(kinds, (kind) => kind.bulk.deploy.rank).map(({ bulk: { statuses, deploy } }): [string, TSchema] => [
    statuses,
    deploy.fields
      ? Type.Optional(
          Type.Array(
            Type.Object({ [deploy.idField ?? 'id']: Uuid, ...Object.fromEntries(deploy.fields.map((field) => [field, Type.Optional(Text)])) }),
            { maxItems: MAX_SELECTED },
          ),
        )
      : Ids(deploy.description ?? ''),
  ])
  return Type.Object(Object.fromEntries(members), { title: 'DeployAllRequest' })
}

/** The `<kind>_ids` members of the stop, uninstall and delete requests (the IAC kind's is the reference's `terraform_ids`). */
const serviceIdsRequest = (kinds: readonly KindRoutes[]) =>
  Type.Object(Object.fromEntries(ranked(kinds, (kind) => kind.bulk.idsRank).map(({ bulk }) => [bulk.ids, Ids(bulk.idsDescription)])), {
    title: 'EnvironmentServiceIdsAllRequest',
  })

/** rebootServices' body: the ids of the kinds that have a member in it. */
const rebootServicesRequest = (kinds: readonly KindRoutes[]) =>
  Type.Object(Object.fromEntries(ranked(kinds, (kind) => kind.bulk.reboot?.rank).map(({ bulk }) => [bulk.ids, Ids(bulk.reboot!.description)])), {
    title: 'RebootServicesRequest',
  })

type IdLists = Record<string, string[] | undefined>

function idItems(body: IdLists, kinds: readonly KindRoutes[]): SelectionItem[] {
  const members = ranked(kinds, (kind) => kind.bulk.idsRank).map((kind): [string, ServiceType] => [kind.bulk.ids, kind.type])
  return members.flatMap(([member, type]) => (body[member] ?? []).map((id, index) => ({ type, id, overrides: {}, path: `/${member}/${index}` })))
}

/** deployAllServices' members as selection items, each with what its kind takes of it as overrides. */
function deployItems(body: Record<string, unknown[] | undefined>, kinds: readonly KindRoutes[]): SelectionItem[] {
  return ranked(kinds, (kind) => kind.bulk.deploy.rank).flatMap((kind) => {
    const member = kind.bulk.statuses
    const { fields, idField = 'id' } = kind.bulk.deploy
    return (body[member] ?? []).map((item, index) =>
      fields
        ? {
            type: kind.type,
            id: (item as Record<string, string>)[idField]!,
            overrides: kind.deploy.overrides(item),
            path: `/${member}/${index}/${idField}`,
          }
        : { type: kind.type, id: item as string, overrides: {}, path: `/${member}/${index}` },
    )
  })
}

const QUEUES = 'Needs the DEPLOY role. One deployment of the selected services is queued behind those of the environment already queued or running.'

export function selectedServicesRoutes(deployments: DeploymentTriggers, kinds: readonly KindRoutes[]): FastifyPluginAsyncTypebox {
  const DeployAllRequest = deployAllRequest(kinds)
  const ServiceIdsRequest = serviceIdsRequest(kinds)
  const RebootServicesRequest = rebootServicesRequest(kinds)
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
          .send(
            toEnvironmentStatusResponse(
              await deployments.deploySelected(
                req.principal,
                req.params.environmentId,
                deployItems(req.body as Record<string, unknown[] | undefined>, kinds),
              ),
            ),
          ),
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
        reply
          .code(202)
          .send(toStatusResponse(await deployments.restartSelected(req.principal, req.params.environmentId, idItems(req.body as IdLists, kinds)))),
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
          toEnvironmentStatusResponse(
            await deployments.triggerSelected(req.principal, req.params.environmentId, trigger, idItems(req.body as IdLists, kinds)),
          ),
      )
    }
  }
}
