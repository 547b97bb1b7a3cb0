import { type FieldError, validationFailed } from '#src/platform/http/errors.ts'
import { SECRET_NEEDED_AGAIN, sealedFields } from '#src/platform/secrets/sealed-fields.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'

// The `config` of a credential with sealed fields (helm repositories, container registries): some
// fields stored in the clear and returned, others sealed at rest and never returned; an edit keeps
// the secrets it leaves out unless it moves the credential to another address.

/** The fields both families have, which the shared rules below name. */
type CommonField = 'username' | 'password' | 'region' | 'accessKeyId' | 'secretAccessKey' | 'roleArn'

/** A family's config fields: the public ones, the sealed ones, and each field's name on the wire. */
export interface ConfigFields<Public extends string, Secret extends string, Value extends string | number = string> {
  public: readonly Public[]
  secret: readonly Secret[]
  wireNames: Record<Public | Secret | CommonField, string>
  /** Only for the type: what a public field holds. */
  value?: Value
}

type PublicOf<F> = F extends ConfigFields<infer P, string, infer V> ? Partial<Record<P, V>> : never
type SecretOf<F> = F extends ConfigFields<string, infer S, string | number> ? Partial<Record<S, string>> : never

/** A stored credential as an edit builds on it: its address, and its secrets opened. */
export interface StoredAddress<Secrets> {
  kind: string
  url: string | null
  secrets: Secrets
}

/** A request's `config` as public values (blank ones dropped, strings trimmed) and secret changes (verbatim; "" clears). */
export function configInput<F extends ConfigFields<string, string, string | number>>(
  fields: F,
  given: Record<string, string | number | null | undefined>,
): { config: PublicOf<F>; secrets: SecretOf<F> } {
  const config: Record<string, string | number> = {}
  for (const field of fields.public) {
    const value = given[fields.wireNames[field]!]
    const kept = typeof value === 'string' ? value.trim() : value
    if (kept !== undefined && kept !== null && kept !== '') config[field] = kept
  }
  const secrets: Record<string, string> = {}
  for (const field of fields.secret) {
    const value = given[fields.wireNames[field]!]
    if (typeof value === 'string') secrets[field] = value
  }
  return { config: config as PublicOf<F>, secrets: secrets as SecretOf<F> }
}

/** The stored public config by wire name, for a response: never a secret. */
export function configResponse(fields: ConfigFields<string, string, string | number>, stored: Record<string, unknown>) {
  const config: Record<string, string | number> = {}
  for (const field of fields.public) {
    const value = stored[field]
    if ((typeof value === 'string' && value !== '') || typeof value === 'number') config[fields.wireNames[field]!] = value
  }
  return config
}

/** The rules both families share, failing by JSON pointer into the request body; messages never quote values. */
export function configChecks<Field extends string>(
  fields: { wireNames: Record<Field | CommonField, string> },
  values: Partial<Record<Field | CommonField, string | number>>,
  errors: FieldError[],
) {
  const has = (field: Field | CommonField) => values[field] !== undefined && values[field] !== ''
  const need = (field: Field | CommonField, when: string) => {
    if (!has(field)) errors.push({ path: `/config/${fields.wireNames[field]}`, message: `is required ${when}`, location: 'body' })
  }
  return {
    has,
    need,
    /** An AWS registry's region, and its static keys unless it assumes a role. */
    awsKeys(kind: string) {
      need('region', `for ${kind}`)
      if (!has('roleArn')) {
        need('accessKeyId', `for ${kind} unless role_arn is set`)
        need('secretAccessKey', `for ${kind} unless role_arn is set`)
      }
    },
    /** A username goes with a password, and a password with a username. */
    basicAuthPair() {
      if (has('username') && !has('password')) need('password', 'with a username')
      if (has('password') && !has('username')) need('username', 'with a password')
    },
  }
}

/** The sealing of a family's secret fields, and the edit rules over the stored ones. */
export function sealedConfig<Secret extends string>(secrets: SecretBox, fields: ConfigFields<string, Secret, string | number>) {
  const sealed = sealedFields(secrets, fields.secret)
  type Secrets = Partial<Record<Secret, string>>
  return {
    /** The stored credential an edit builds on, its secrets opened; undefined when there is none. */
    storedOf<Row extends { kind: string; url: string | null; secretsSealed: Buffer | null }>(
      find: (organizationId: string, id: string) => Promise<Row | undefined>,
    ) {
      return async (organizationId: string, id: string): Promise<StoredAddress<Secrets> | undefined> => {
        const row = await find(organizationId, id)
        return row && { kind: row.kind, url: row.url, secrets: sealed.open(row.secretsSealed) }
      }
    },

    /**
     * The secrets the credential will hold, sealed: the request's changes over the stored ones.
     * `errorsOf` checks them; when the edit moves the credential (`moved`: another url or kind),
     * every stored secret must be given again (SECRET_NEEDED_AGAIN). Throws a 400 with every error.
     */
    seal(changes: Secrets, stored: { secrets: Secrets; moved: boolean } | undefined, errorsOf: (merged: Secrets) => FieldError[]): Buffer | null {
      const merged = sealed.merge(stored?.secrets ?? {}, changes)
      const errors = errorsOf(merged)
      if (stored?.moved) {
        for (const field of sealed.keptAcrossMove(stored.secrets, changes)) {
          errors.push({ path: `/config/${fields.wireNames[field]}`, message: SECRET_NEEDED_AGAIN, location: 'body' })
        }
      }
      if (errors.length > 0) throw validationFailed(errors)
      return sealed.seal(merged)
    },

    open: sealed.open,
  }
}
