import type { OrganizationsService } from '#src/modules/organizations/organizations.service.ts'
import type { Db } from '#src/platform/db/database.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { createBackupDestinationsService } from './backup-destinations.service.ts'
import { createBackupsRepository } from './backups.repository.ts'
import { createBackupsService } from './backups.service.ts'

// The backups module as services.ts wires it: its two services over one repository.

export interface BackupsModuleDeps {
  organizations: OrganizationsService
  requireService: Parameters<typeof createBackupsService>[0]['requireService']
  actorName: Parameters<typeof createBackupsService>[0]['actorName']
  secrets: SecretBox
  /** BERTH_ALLOW_PRIVATE_URLS: may a store's endpoint lead into the server's own network. */
  allowPrivateUrls: boolean
  /** Where backups without a destination go (`backups` under the data dir). */
  localRoot: string
  defaultExecutor: 'SIMULATED' | 'DOCKER'
  listLimit?: number
}

export function createBackupsModule(db: Db, deps: BackupsModuleDeps) {
  const repo = createBackupsRepository(db)
  return {
    backups: createBackupsService({
      repo,
      requireService: deps.requireService,
      actorName: deps.actorName,
      defaultExecutor: deps.defaultExecutor,
      stores: { secrets: deps.secrets, localRoot: deps.localRoot, allowPrivateUrls: deps.allowPrivateUrls },
    }),
    destinations: createBackupDestinationsService({
      repo,
      organizations: deps.organizations,
      secrets: deps.secrets,
      allowPrivateUrls: deps.allowPrivateUrls,
      listLimit: deps.listLimit,
    }),
  }
}

export type BackupsModule = ReturnType<typeof createBackupsModule>
