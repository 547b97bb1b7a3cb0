import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { AnyKindDescriptor } from '#src/modules/services/kind-descriptor.ts'
import { Uuid } from '#src/platform/http/common-schemas.ts'
import type { RestrictionRecord } from './deployment-restrictions.repository.ts'
import { restrictionSchemas } from './deployment-restrictions.schemas.ts'
import { type DeploymentRestrictionsService, RESTRICTIONS_PER_SERVICE, type RestrictedType } from './deployment-restrictions.service.ts'

// The reference's `/{kind}/{id}/deploymentRestriction` operations of applications, jobs and helm
// services, as the Terraform provider calls them (list on every read; delete, then create, on
// apply; it never edits).

interface RestrictedKind {
  type: RestrictedType
  segment: string
  param: string
  prefix: string
  /** How the reference's summaries name the kind. */
  noun: string
}

const toResponse = (record: RestrictionRecord) => ({
  id: record.id,
  created_at: record.createdAt.toISOString(),
  ...(record.updatedAt ? { updated_at: record.updatedAt.toISOString() } : {}),
  mode: record.mode,
  type: record.type,
  value: record.value,
})

const SEMANTICS =
  'A value is a path prefix from the repository root. A push deploys the service when one of its changed paths is under no EXCLUDE value and, if there are MATCH values, under one of them (README, "Deployment restrictions").'
const conflict = Type.Ref('ErrorResponse', {
  description: `the service has a restriction with the same mode, type and value, or ${RESTRICTIONS_PER_SERVICE} restrictions already (\`conflict\`)`,
})

function kindRoutes(restrictions: DeploymentRestrictionsService, kind: RestrictedKind): FastifyPluginAsyncTypebox {
  const schemas = restrictionSchemas(kind.prefix)
  const tags = [`${kind.prefix} Deployment Restriction`]
  const Params = Type.Object({ [kind.param]: Uuid })
  const ItemParams = Type.Object({ [kind.param]: Uuid, deploymentRestrictionId: Uuid })
  const serviceOf = (params: Record<string, string>) => params[kind.param]!
  const base = `/${kind.segment}/:${kind.param}/deploymentRestriction`
  return async (app) => {
    app.get(
      base,
      {
        schema: {
          operationId: `get${kind.prefix}DeploymentRestrictions`,
          summary: `Get ${kind.segment} deployment restrictions`,
          description: `Oldest first. ${SEMANTICS}`,
          tags,
          params: Params,
          response: { 200: schemas.list },
        },
      },
      async (req) => ({ results: (await restrictions.list(req.principal, kind.type, serviceOf(req.params))).map(toResponse) }),
    )

    app.post(
      base,
      {
        schema: {
          operationId: `create${kind.prefix}DeploymentRestriction`,
          summary: `Create ${kind.noun} deployment restriction`,
          description: `Needs the WRITE role. ${SEMANTICS}`,
          tags,
          params: Params,
          body: schemas.request,
          response: { 201: schemas.response, 409: conflict },
        },
      },
      async (req, reply) => reply.code(201).send(toResponse(await restrictions.create(req.principal, kind.type, serviceOf(req.params), req.body))),
    )

    app.put(
      `${base}/:deploymentRestrictionId`,
      {
        schema: {
          operationId: `edit${kind.prefix}DeploymentRestriction`,
          summary: `Edit ${kind.noun} deployment restriction`,
          description: 'Needs the WRITE role. Replaces mode, type and value.',
          tags,
          params: ItemParams,
          body: schemas.request,
          response: { 200: schemas.response, 409: conflict },
        },
      },
      async (req) =>
        toResponse(
          await restrictions.update(req.principal, kind.type, serviceOf(req.params), req.params.deploymentRestrictionId as string, req.body),
        ),
    )

    app.delete(
      `${base}/:deploymentRestrictionId`,
      {
        schema: {
          operationId: `delete${kind.prefix}DeploymentRestriction`,
          summary: `Delete ${kind.noun} deployment restriction`,
          description: 'Needs the WRITE role.',
          tags,
          params: ItemParams,
        },
      },
      async (req, reply) => {
        await restrictions.delete(req.principal, kind.type, serviceOf(req.params), req.params.deploymentRestrictionId as string)
        return reply.code(204).send()
      },
    )
  }
}

/** The restrictions routes of each of `kinds` (those whose descriptor has `features.restrictions`). */
export function deploymentRestrictionsRoutes(
  restrictions: DeploymentRestrictionsService,
  kinds: readonly AnyKindDescriptor[],
): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const { routes, names } of kinds) {
      const kind = { type: routes.type, segment: routes.segment, param: routes.param, prefix: names.name, noun: names.aNoun }
      await app.register(kindRoutes(restrictions, kind))
    }
  }
}
