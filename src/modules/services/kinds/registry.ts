import type { KindRoutes } from '../kind-routes.ts'
import { serviceKinds } from '../service-kinds.ts'
import { helmRoutes } from './helm/helm.http.ts'
import { helmKind } from './helm/helm.kind.ts'

// Every kind of service Berth serves: adding a kind is adding it here (docs/architecture.md).

export const KINDS = serviceKinds(helmKind)

/** The kinds on the wire, in the order the environment's service list and statuses show them. */
export const KIND_ROUTES: readonly KindRoutes[] = [helmRoutes]
