import type { DatabaseConfig } from '#src/modules/services/kinds/database/database.types.ts'
import { openPassword } from '#src/modules/services/kinds/database/database-credentials.ts'
import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import { revealVariables } from '#src/modules/variables/resolved-variables.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'

/**
 * The secret values a deployment gives a service (its secret variables, a database's password):
 * what every line its instances print is masked of (secret-masking.ts), in a deployment's logs
 * and in the service's own.
 */
export function snapshotSecretValues(snapshot: Pick<ServiceSnapshot, 'kind' | 'variables' | 'configuration'>, secrets: SecretBox): string[] {
  const values = revealVariables(
    snapshot.variables.filter((variable) => variable.isSecret),
    secrets,
  ).map((variable) => variable.value)
  if (snapshot.kind === 'DATABASE') values.push(openPassword((snapshot.configuration as DatabaseConfig).credentials, secrets))
  return values
}
