import { sql } from 'kysely'
import type { StatusRecord } from '#src/modules/deployments/api/triggers/deployment-statuses.ts'
import type { DeploymentTriggers } from '#src/modules/deployments/api/triggers/deployment-triggers.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { hasRole, type Role } from '#src/platform/auth/roles.ts'
import type { Db } from '#src/platform/db/database.ts'
import { AppError, validationFailed } from '#src/platform/http/errors.ts'

// autoDeployContainerEnvironments and autoDeployJobEnvironments: a CI that pushed a new tag of an
// image asks every container (or job from an image) of the organization that runs another tag of
// it, with auto_deploy on, to deploy the new tag (the deploy's `image_tag`: the configuration
// keeps its tag, as a deploy with image_tag does).

export type ImageKind = 'CONTAINER' | 'JOB'

interface Deps {
  db: Db
  deployments: Pick<DeploymentTriggers, 'deployService'>
  requireAccess(principal: Principal, organizationId: string, needed: Role): Promise<Role>
  /** Undefined unless the principal holds a custom role, which grants per environment. */
  visibility(principal: Principal, organizationId: string): Promise<unknown>
}

/** The image name and tag of a kind's stored configuration, as SQL. */
const IMAGE = {
  CONTAINER: { name: sql<string>`s.configuration->>'imageName'`, tag: sql<string>`s.configuration->>'tag'` },
  JOB: { name: sql<string>`s.configuration->'source'->'image'->>'imageName'`, tag: sql<string>`s.configuration->'source'->'image'->>'tag'` },
}

export function createImageAutoDeploy({ db, deployments, requireAccess, visibility }: Deps) {
  /** The services of the kind, outside previews, running another tag of the image with auto_deploy on, by environment. */
  function candidates(organizationId: string, kind: ImageKind, imageName: string, tag: string) {
    return db
      .selectFrom('services as s')
      .innerJoin('environments as e', 'e.id', 's.environmentId')
      .select(['s.id', 's.environmentId'])
      .where('s.organizationId', '=', organizationId)
      .where('s.kind', '=', kind)
      .where('e.mode', '<>', 'PREVIEW')
      .where(sql<boolean>`${IMAGE[kind].name} = ${imageName}`)
      .where(sql<boolean>`${IMAGE[kind].tag} is distinct from ${tag}`)
      .where(sql<boolean>`(s.configuration->>'autoDeploy')::boolean`)
      .orderBy('s.environmentId')
      .orderBy('s.id')
      .execute()
  }

  return {
    /**
     * Deploys `tag` to each matching service the principal may deploy; the first one's status. A
     * built-in role below DEPLOY is a 403 at once (a custom role grants per environment); none
     * matching is a 400 (the request names nothing to deploy); matches it may deploy none of, a 403.
     */
    async deploy(principal: Principal, organizationId: string, kind: ImageKind, imageName: string, tag: string): Promise<StatusRecord> {
      const role = await requireAccess(principal, organizationId, 'READ')
      if (!hasRole(role, 'DEPLOY') && (await visibility(principal, organizationId)) === undefined) {
        throw new AppError('forbidden', `deploying needs the DEPLOY role; this credential has ${role}`)
      }
      const statuses: StatusRecord[] = []
      let denied = 0
      for (const service of await candidates(organizationId, kind, imageName, tag)) {
        try {
          statuses.push(await deployments.deployService(principal, kind, service.id, { imageTag: tag }))
        } catch (error) {
          if (!(error instanceof AppError && (error.code === 'forbidden' || error.code === 'not_found'))) throw error
          denied++
        }
      }
      const [first] = statuses
      if (first) return first
      if (denied > 0) throw new AppError('forbidden', 'deploying needs the DEPLOY role on the environments of these services')
      throw validationFailed([
        {
          path: '/image_name',
          message: `no ${kind === 'CONTAINER' ? 'container' : 'job'} of the organization with auto_deploy runs another tag of this image`,
          location: 'body',
        },
      ])
    },
  }
}

export type ImageAutoDeploy = ReturnType<typeof createImageAutoDeploy>
