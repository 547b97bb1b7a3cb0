// An environment's deployment stages in the order its deployments run them, each with its
// services. WRITE and above move a service to another stage with a select; READ and DEPLOY see
// the stages only (the API refuses them the move in any case).
import { useState } from 'preact/hooks'
import { api, messageOf } from './api.ts'
import { kindOfType, servicePage } from './kinds.ts'
import { type DeploymentStage, hasRole, type List, type Role, type ServiceSummary, type StageService } from './types.ts'
import { ErrorMessage, Show, useLoad } from './ui.tsx'

export function DeploymentStages({ environmentId, role }: { environmentId: string; role: Role }) {
  const loaded = useLoad(
    () =>
      Promise.all([
        api.get<List<DeploymentStage>>(`/environment/${environmentId}/deploymentStage`),
        api.allPages<ServiceSummary>(`/environment/${environmentId}/services`),
      ]),
    environmentId,
  )
  return (
    <section class="deployment-stages panel" data-editable={String(hasRole(role, 'WRITE'))}>
      <h2>Deployment stages</h2>
      <Show loaded={loaded}>
        {([stages, services]) => (
          <StagePlan key={environmentId} initial={stages.results} services={services.results} editable={hasRole(role, 'WRITE')} />
        )}
      </Show>
    </section>
  )
}

const byOrder = (stages: DeploymentStage[]) => [...stages].sort((a, b) => a.deployment_order - b.deployment_order)

function StagePlan({ initial, services, editable }: { initial: DeploymentStage[]; services: ServiceSummary[]; editable: boolean }) {
  const [stages, setStages] = useState(() => byOrder(initial))
  const [moving, setMoving] = useState<string>()
  const [error, setError] = useState<string>()
  const named = new Map(services.map((service) => [service.id, service]))

  async function move(serviceId: string, stageId: string) {
    setMoving(serviceId)
    setError(undefined)
    try {
      // The API answers the environment's stages as they are after the move.
      const { data } = await api.put<List<DeploymentStage>>(`/deploymentStage/${stageId}/service/${serviceId}`, {})
      setStages(byOrder(data.results))
    } catch (failure) {
      setError(messageOf(failure))
    } finally {
      setMoving(undefined)
    }
  }

  if (stages.length === 0) return <p class="empty">No deployment stage: a service's first one is made with it.</p>
  return (
    <>
      {editable ? null : <p class="hint">Moving a service to another stage needs the WRITE role.</p>}
      <ErrorMessage message={error} />
      <ol class="stage-plan">
        {stages.map((stage) => (
          <li key={stage.id} class="plan-stage" data-stage-id={stage.id} data-stage-name={stage.name}>
            <div class="plan-stage-head">
              <span class="plan-order" title="deployment order">
                {stage.deployment_order}
              </span>
              <span class="stage-name">{stage.name}</span>
            </div>
            {stage.description ? <p class="hint plan-description">{stage.description}</p> : null}
            {stage.services.length === 0 ? (
              <p class="empty">No service.</p>
            ) : (
              <ul class="plan-services">
                {stage.services.map((service) => (
                  <PlannedService
                    key={service.service_id}
                    service={service}
                    summary={named.get(service.service_id)}
                    stage={stage}
                    stages={stages}
                    editable={editable}
                    busy={moving !== undefined}
                    onMove={(stageId) => void move(service.service_id, stageId)}
                  />
                ))}
              </ul>
            )}
          </li>
        ))}
      </ol>
    </>
  )
}

interface PlannedServiceProps {
  service: StageService
  /** The service's name, when the environment's list of services has it (one made since the page loaded has none). */
  summary: ServiceSummary | undefined
  stage: DeploymentStage
  stages: DeploymentStage[]
  editable: boolean
  busy: boolean
  onMove: (stageId: string) => void
}

function PlannedService({ service, summary, stage, stages, editable, busy, onMove }: PlannedServiceProps) {
  const name = summary?.name ?? 'a new service'
  const kind = service.service_type
  return (
    <li class="plan-service" data-service-id={service.service_id} data-skipped={String(service.is_skipped)}>
      <a class="service-name" href={servicePage(kind, service.service_id)}>
        {name}
      </a>
      <span class="chip" title="kind">
        {kindOfType(kind)?.title ?? kind}
      </span>
      {service.is_skipped ? (
        <span class="badge tone-canceled" title="left out of environment-level deployments">
          skipped
        </span>
      ) : null}
      {editable && stages.length > 1 ? (
        <select
          data-action="move-stage"
          aria-label={`Stage of ${name}`}
          title="move to another stage"
          disabled={busy}
          value={stage.id}
          onChange={(event) => {
            const target = event.currentTarget.value
            if (target !== stage.id) onMove(target)
          }}
        >
          {stages.map((option) => (
            <option key={option.id} value={option.id}>
              {`${option.deployment_order}. ${option.name}`}
            </option>
          ))}
        </select>
      ) : null}
    </li>
  )
}
