import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import type { ServiceSnapshot, SnapshotVariable } from './executor.ts'

// A snapshot's secrets opened, only where an executor hands them to the service or masks them out
// of what the service prints.

/** Opens a sealed (base64) value. */
export type OpenSecret = (sealed: string) => string

/** How `secrets` opens a sealed (base64) value. */
export const opener =
  (secrets: SecretBox): OpenSecret =>
  (sealed) =>
    secrets.open(Buffer.from(sealed, 'base64'))

/** A variable in clear, as the service gets it; never log its value. */
export interface OpenVariable {
  key: string
  value: string
  mountPath: string | null
}

/** The variables' values in clear, for an executor to give to the service. */
export function openVariables(variables: readonly SnapshotVariable[], open: OpenSecret): OpenVariable[] {
  return variables.map((variable) => ({
    key: variable.key,
    value: variable.isSecret ? open(variable.sealed ?? '') : (variable.value ?? ''),
    mountPath: variable.mountPath,
  }))
}

/** The values a kind's configuration holds that logs must never show (a database's password); none for most kinds. */
export type ConfigurationSecrets = (snapshot: SnapshotSecrets, open: OpenSecret) => string[]

/** What of a deployment's snapshot holds its secrets. */
export type SnapshotSecrets = Pick<ServiceSnapshot, 'kind' | 'variables' | 'configuration'>

/**
 * The secret values a deployment gives a service (its secret variables, and what its kind names
 * of its configuration): what every line its instances print is masked of (secret-masking.ts), in a
 * deployment's logs and in the service's own.
 */
export function snapshotSecretValues(snapshot: SnapshotSecrets, open: OpenSecret, configurationSecrets?: ConfigurationSecrets): string[] {
  const values = openVariables(
    snapshot.variables.filter((variable) => variable.isSecret),
    open,
  ).map((variable) => variable.value)
  values.push(...(configurationSecrets?.(snapshot, open) ?? []))
  return values
}
