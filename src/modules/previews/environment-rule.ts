import type { RuleMode } from '#src/modules/deployment-rules/deployment-rules.schemas.ts'
import type { ProjectDeploymentRulesService } from '#src/modules/deployment-rules/deployment-rules.service.ts'
import type { NewEnvironmentRule } from '#src/modules/environments/environments.service.ts'
import type { DeploymentRulesRepository } from './deployment-rules.repository.ts'

// What a project's deployment rule gives a new environment of the project (issue 48): its mode and
// cluster, and, once it exists, its own rule with the project rule's auto-stop schedule.

export function environmentRuleFromProject(
  projectRules: Pick<ProjectDeploymentRulesService, 'ruleFor'>,
  environmentRules: DeploymentRulesRepository,
) {
  return async (organizationId: string, projectId: string, name: string): Promise<NewEnvironmentRule | undefined> => {
    const rule = await projectRules.ruleFor(organizationId, projectId, name)
    if (!rule) return undefined
    const { autoStop, timezone, startTime, stopTime, weekdays } = rule
    return {
      mode: rule.mode as RuleMode,
      clusterId: rule.clusterId,
      apply: async (environment) => {
        await environmentRules.put(
          environment.id,
          { onDemandPreview: false, autoStop, timezone, startTime, stopTime, weekdays },
          environment.autoPreview,
        )
      },
    }
  }
}
