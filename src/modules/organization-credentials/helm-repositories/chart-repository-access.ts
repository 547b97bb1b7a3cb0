import type { Db } from '#src/platform/db/database.ts'
import { sealedFields } from '#src/platform/secrets/sealed-fields.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { SECRET_CONFIG_FIELDS } from './helm-repositories.rules.ts'

// How the Kubernetes executor reaches a helm repository of the organization: its URL and kind, its
// credentials unsealed. Handed to it at wiring.

export function chartRepositoryAccess(db: Db, secrets: SecretBox) {
  return async (organizationId: string, repositoryId: string) => {
    const row = await db
      .selectFrom('helmRepositories')
      .select(['kind', 'url', 'skipTlsVerification', 'config', 'secretsSealed'])
      .where('organizationId', '=', organizationId)
      .where('id', '=', repositoryId)
      .executeTakeFirst()
    if (!row?.url) throw new Error('the helm repository of the service is gone, or has no URL')
    const sealed = sealedFields(secrets, SECRET_CONFIG_FIELDS).open(row.secretsSealed)
    return { kind: row.kind, url: row.url, skipTlsVerification: row.skipTlsVerification, username: row.config.username, password: sealed.password }
  }
}
