import type { KindWorkloads } from '#src/modules/executors/workload.ts'
import type { AnyKindDescriptor } from '../kind-descriptor.ts'
import type { KindRoutes } from '../kind-routes.ts'
import { serviceKinds } from '../service-kinds.ts'
import { applicationDescriptor } from './application/application.descriptor.ts'
import { containerDescriptor } from './container/container.descriptor.ts'
import { databaseDescriptor } from './database/database.descriptor.ts'
import { gitOpsDescriptor } from './gitops/gitops.descriptor.ts'
import { helmDescriptor } from './helm/helm.descriptor.ts'
import { iacDescriptor } from './iac/iac.descriptor.ts'
import { jobDescriptor } from './job/job.descriptor.ts'

/**
 * Every kind of service Berth serves, in the order the environment's service list, its statuses
 * and the document show them: adding a kind is one folder and one line here (docs/adding-a-kind.md).
 */
export const SERVICE_KINDS: readonly AnyKindDescriptor[] = [
  helmDescriptor,
  databaseDescriptor,
  containerDescriptor,
  applicationDescriptor,
  jobDescriptor,
  iacDescriptor,
  gitOpsDescriptor,
]

/** The kinds, each with its table of advanced settings from its descriptor, as the core, the runner and cron take them. */
export const KINDS = serviceKinds(
  ...SERVICE_KINDS.map(({ kind, features }) =>
    features.advancedSettings ? { ...kind, advancedSettings: features.advancedSettings.settings } : kind,
  ),
)

/** The kinds on the wire. */
export const KIND_ROUTES: readonly KindRoutes[] = SERVICE_KINDS.map((descriptor) => descriptor.routes)

/** The kinds that have a side feature, in the order the document lists their side routes. */
export const kindsWith = <F extends keyof AnyKindDescriptor['features']>(feature: F) =>
  SERVICE_KINDS.filter((descriptor) => descriptor.features[feature] !== undefined).sort(
    (a, b) => a.features.documentOrder - b.features.documentOrder,
  ) as (AnyKindDescriptor & { features: Required<Pick<AnyKindDescriptor['features'], F>> })[]

/** An executor's table: what each kind's services run there (docs/adding-a-kind.md), handed to it at wiring. */
const workloadsOn = (executor: 'docker' | 'kubernetes'): KindWorkloads =>
  Object.fromEntries(
    SERVICE_KINDS.flatMap(({ kind, executors }) => {
      const workload = executors?.[executor] ?? executors?.workload
      return workload ? [[kind.type, workload]] : []
    }),
  )

/** The Docker executor's table. */
export const DOCKER_KINDS = workloadsOn('docker')

/** The Kubernetes executor's table. */
export const KUBERNETES_KINDS = workloadsOn('kubernetes')
