import type { DeploymentTriggers } from '#src/modules/deployments/api/triggers/deployment-triggers.service.ts'
import { toStatusResponse } from '#src/modules/deployments/api/triggers/triggers.wire.ts'
import type { KindTriggers } from '#src/modules/services/kind-route-context.ts'

// The deployment triggers the kinds' own routes call (a restart, an environment's statuses), answered
// in the wire's Status shape, so that no kind imports the API side of deployments.

export function kindTriggers(deployments: DeploymentTriggers): KindTriggers {
  return {
    restart: async (principal, type, serviceId) => toStatusResponse(await deployments.redeployService(principal, type, serviceId)),
    environmentStatuses: async (principal, environmentId) =>
      (await deployments.getEnvironmentStatuses(principal, environmentId)).services.map(({ service, status }) => ({
        serviceId: service.id,
        kind: service.kind,
        status: toStatusResponse(status),
      })),
  }
}
