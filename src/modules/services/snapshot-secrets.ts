import type { ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import { revealVariables } from '#src/modules/variables/resolved-variables.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'

/** The values a kind's configuration holds that logs must never show (a database's password); none for most kinds. */
export type ConfigurationSecrets = (snapshot: SnapshotSecrets, secrets: SecretBox) => string[]

/** What of a deployment's snapshot holds its secrets. */
export type SnapshotSecrets = Pick<ServiceSnapshot, 'kind' | 'variables' | 'configuration'>

/**
 * The secret values a deployment gives a service (its secret variables, and what its kind names
 * of its configuration): what every line its instances print is masked of (secret-masking.ts), in a
 * deployment's logs and in the service's own.
 */
export function snapshotSecretValues(snapshot: SnapshotSecrets, secrets: SecretBox, configurationSecrets?: ConfigurationSecrets): string[] {
  const values = revealVariables(
    snapshot.variables.filter((variable) => variable.isSecret),
    secrets,
  ).map((variable) => variable.value)
  values.push(...(configurationSecrets?.(snapshot, secrets) ?? []))
  return values
}
