import type { EnvironmentsService } from '#src/modules/environments/environments.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { notFound } from '#src/platform/http/errors.ts'
import type { DeploymentRuleEdit, DeploymentRulesRepository } from './deployment-rules.repository.ts'

// An environment's deployment rule, the reference's home of its preview settings
// (getEnvironmentDeploymentRule, editEnvironmentDeploymentRule): `auto_preview` is the
// environment's own, the rest is kept as given. Berth starts and stops nothing on a schedule.

export interface DeploymentRuleRecord extends DeploymentRuleEdit {
  /** The rule's id is its environment's: each environment has one. */
  id: string
  autoPreview: boolean
  createdAt: Date
  updatedAt: Date | null
}

interface Deps {
  repo: DeploymentRulesRepository
  environments: Pick<EnvironmentsService, 'requireEnvironment'>
}

/** What an environment's rule is until it is edited: the reference's defaults. */
const DEFAULT_RULE: DeploymentRuleEdit = {
  onDemandPreview: false,
  autoStop: false,
  timezone: 'UTC',
  startTime: new Date('1970-01-01T08:00:00.000Z'),
  stopTime: new Date('1970-01-01T19:00:00.000Z'),
  weekdays: [],
}

export function createDeploymentRulesService({ repo, environments }: Deps) {
  return {
    /** READ on the environment. */
    async get(principal: Principal, environmentId: string): Promise<DeploymentRuleRecord> {
      const { environment } = await environments.requireEnvironment(principal, environmentId, 'READ')
      const row = await repo.find(environment.id)
      const { environmentId: _, ...rule } = row ?? {
        ...DEFAULT_RULE,
        environmentId: environment.id,
        createdAt: environment.createdAt,
        updatedAt: null,
      }
      return { ...rule, id: environment.id, autoPreview: environment.autoPreview }
    },

    /** WRITE on the environment; `deploymentRuleId` is the environment's id (404 else). */
    async edit(principal: Principal, environmentId: string, deploymentRuleId: string, edit: DeploymentRuleEdit & { autoPreview: boolean }) {
      const { environment } = await environments.requireEnvironment(principal, environmentId, 'WRITE')
      if (deploymentRuleId.toLowerCase() !== environment.id) throw notFound('deployment rule')
      const { autoPreview, ...rule } = edit
      const { environmentId: _, ...row } = await repo.put(environment.id, rule, autoPreview)
      return { ...row, id: environment.id, autoPreview } satisfies DeploymentRuleRecord
    },
  }
}

export type DeploymentRulesService = ReturnType<typeof createDeploymentRulesService>
