import type { Principal } from '#src/platform/auth/principal.ts'
import type { createEnvironmentTriggers } from './environment-triggers.ts'
import type { DeploymentTriggersDeps } from './trigger-deps.ts'

// A project's delete: a project goes by deleting its environments, each as deleteEnvironment does
// (issue 42: their services uninstalled, an IAC service's resources destroyed, volumes and images removed).

type EnvironmentTriggers = ReturnType<typeof createEnvironmentTriggers>

export type ProjectTriggersDeps = Pick<DeploymentTriggersDeps, 'projects'>

export function createProjectTriggers(deps: ProjectTriggersDeps, environmentTriggers: Pick<EnvironmentTriggers, 'deleteEnvironment'>) {
  return {
    /**
     * deleteProject: the projects service marks the project deleting and hands over its environments;
     * the project goes with its last environment, at once when it has none.
     */
    async deleteProject(principal: Principal, projectId: string): Promise<void> {
      await deps.projects.delete(principal, projectId, async (environmentIds) => {
        // Every environment is asked, even after one refused: the first refusal is the answer.
        const refusals: unknown[] = []
        for (const environmentId of environmentIds) {
          await environmentTriggers.deleteEnvironment(principal, environmentId).catch((error: unknown) => refusals.push(error))
        }
        if (refusals.length > 0) throw refusals[0]
      })
    },
  }
}
