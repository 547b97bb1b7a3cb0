import type { KindRoutes } from '../kind-routes.ts'
import { serviceKinds } from '../service-kinds.ts'
import { applicationRoutes } from './application/application.http.ts'
import { applicationKind } from './application/application.kind.ts'
import { containerRoutes } from './container/container.http.ts'
import { containerKind } from './container/container.kind.ts'
import { databaseRoutes } from './database/database.http.ts'
import { databaseKind } from './database/database.kind.ts'
import { helmRoutes } from './helm/helm.http.ts'
import { helmKind } from './helm/helm.kind.ts'
import { jobRoutes } from './job/job.http.ts'
import { jobKind } from './job/job.kind.ts'

// Every kind of service Berth serves: adding a kind is adding it here (docs/architecture.md).

export const KINDS = serviceKinds(helmKind, databaseKind, containerKind, applicationKind, jobKind)

/** The kinds on the wire, in the order the environment's service list and statuses show them. */
export const KIND_ROUTES: readonly KindRoutes[] = [helmRoutes, databaseRoutes, containerRoutes, applicationRoutes, jobRoutes]
