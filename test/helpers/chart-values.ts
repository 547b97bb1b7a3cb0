import type { ExecutorAction, ServiceSnapshot } from '#src/modules/executors/executor.ts'
import {
  type ChartOwner,
  type ChartValues,
  type IngressSettings,
  type PulledImage,
  workloadValues,
} from '#src/modules/executors/kubernetes/builtin-chart-values.ts'
import type { OpenVariable } from '#src/modules/executors/snapshot-secrets.ts'
import type { WorkloadSettings } from '#src/modules/executors/workload.ts'
import { KUBERNETES_KINDS } from '#src/modules/services/kinds/registry.ts'

/**
 * The values of the chart Berth ships for a snapshot, as the Kubernetes executor makes them: its
 * kind's workload for `action`, then that workload's values (an image of `image`, but a public one
 * the workload names itself).
 */
export function chartValuesOf(
  snapshot: ServiceSnapshot,
  options: {
    owner: ChartOwner
    variables: OpenVariable[]
    image?: PulledImage
    action?: ExecutorAction
    ingress?: IngressSettings
    settings?: Partial<WorkloadSettings>
    openSecret?: (sealed: string) => string
    namespace?: string
  },
): ChartValues {
  const action = options.action ?? 'DEPLOY'
  const workload = KUBERNETES_KINDS[snapshot.kind]!.describe(snapshot, {
    action,
    settings: { databaseImages: 'docker.io/library', iacImages: '', ...options.settings },
    openSecret: options.openSecret ?? (() => ''),
    namespace: options.namespace ?? 'berth-ns',
  })
  if (workload.type !== 'instances' && workload.type !== 'run' && workload.type !== 'schedule' && workload.type !== 'steps')
    throw new Error(`${snapshot.kind} ${action} is no release of the chart Berth ships: ${JSON.stringify(workload)}`)
  const image = workload.image && 'public' in workload.image ? { reference: workload.image.public, registry: { auth: undefined } } : options.image
  if (!image) throw new Error('give the image the release pulls')
  return workloadValues({ snapshot, owner: options.owner, variables: options.variables, image }, workload, { action, ingress: options.ingress })
}
