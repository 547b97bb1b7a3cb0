import type { ObservedSync } from '#src/modules/argocd/argocd-poller.ts'
import type { CoreRecord } from '#src/modules/services/service-records.ts'

/** A GITOPS_APP service's configuration, as the Argo CD poller stores it: which application of which Argo CD it shows (docs/argocd.md). */
export interface GitOpsConfig {
  application: string
  namespace: string
  credentials_id: string
}

export type GitOpsRecord = GitOpsConfig & CoreRecord & { version: number }

/** What a deploy of a GITOPS_APP asks beyond its configuration. */
export interface GitOpsOverrides {
  /** The revision Argo CD syncs to; absent: the application's target revision. */
  revision?: string
  argocd_observed?: ObservedSync
}

/** Why Berth does not create, edit or stop these services. */
export const ARGO_CD_OWNS =
  'Argo CD owns this application: create, edit and stop it in Argo CD or its git repository; Berth shows it, and syncs or rolls it back on request (docs/argocd.md)'
