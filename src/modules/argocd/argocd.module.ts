import type { ServiceOutput } from '#src/modules/executors/service-output.ts'
import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Db } from '#src/platform/db/database.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { createArgoCdRepository } from './argocd.repository.ts'
import { createArgoCdService } from './argocd.service.ts'
import { createArgoCdApi } from './argocd-api.ts'
import { argoCdServiceOutput } from './argocd-output.ts'
import { createArgoCdPoller, type ObservedSyncs } from './argocd-poller.ts'
import { createArgoCdSyncRepository } from './argocd-sync.repository.ts'

// The Argo CD module as services.ts wires it (docs/argocd.md).

export interface ArgoCdModuleDeps<S extends { organizationId: string }> {
  organizations: OrganizationsService
  secrets: SecretBox
  /** BERTH_ALLOW_PRIVATE_URLS: may an Argo CD's URL lead into the server's own network. */
  allowPrivateUrls: boolean
  /** BERTH_ARGOCD_TIMEOUT_MS and BERTH_ARGOCD_POLL_INTERVAL_MS. */
  timeoutMs: number
  pollIntervalMs: number
  /** How syncs Argo CD performed reach the environments' history. */
  history: ObservedSyncs<S>
  log: { warn(details: object, message: string): void }
}

export function createArgoCdModule<S extends { organizationId: string }>(db: Db, deps: ArgoCdModuleDeps<S>) {
  const api = createArgoCdApi({ allowPrivateUrls: deps.allowPrivateUrls, timeoutMs: deps.timeoutMs })
  const sync = createArgoCdSyncRepository(db)
  const repo = createArgoCdRepository(db)
  const service = createArgoCdService({
    repo,
    organizations: deps.organizations,
    secrets: deps.secrets,
    api,
    allowPrivateUrls: deps.allowPrivateUrls,
    onCredentialsDeleted: (credentialsId) => sync.removeInstance(credentialsId),
  })
  const poller = createArgoCdPoller({
    repo,
    sync,
    api,
    secrets: deps.secrets,
    history: deps.history,
    intervalMs: deps.pollIntervalMs,
    log: deps.log,
  })
  return {
    service,
    api,
    poller,
    /** The service logs' output, with GITOPS_APP services' lines read through Argo CD. */
    serviceOutput: (inner: ServiceOutput) => argoCdServiceOutput(db, deps.secrets, api, inner),
    async close() {
      await poller.stop()
      await api.close()
    },
  }
}
