import { recordHead } from '#src/platform/http/named-resources.ts'
import type { StageWithServices } from './deployment-stages.repository.ts'
import type { DeploymentStageRequest, DeploymentStageResponse } from './deployment-stages.schemas.ts'
import type { StageInput } from './deployment-stages.service.ts'

export const stageInput = (body: DeploymentStageRequest): StageInput => ({ name: body.name.trim(), description: body.description ?? null })

export function toStageResponse(stage: StageWithServices): DeploymentStageResponse {
  return {
    ...recordHead(stage),
    environment: { id: stage.environmentId },
    name: stage.name,
    description: stage.description ?? '',
    deployment_order: stage.position,
    services: stage.services.map((service) => ({
      // A service is in one stage at a time: its id names its membership too.
      ...recordHead(service),
      service_id: service.id,
      service_type: service.kind,
      is_skipped: service.skipped,
    })),
  }
}

export const toStageList = (stages: StageWithServices[]) => ({ results: stages.map(toStageResponse) })
