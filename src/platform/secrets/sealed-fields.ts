import type { SecretBox } from './secret-box.ts'

/** Why an edit that moves a resource to another address must give a stored secret again (`keptAcrossMove`). */
export const SECRET_NEEDED_AGAIN =
  'must be given again, or "" to clear it: the url or kind changed, and a stored secret is only sent to the address it was given for'

/**
 * A resource's secret config fields (a registry's or a helm repository's password, keys), kept
 * together as one sealed JSON object. A request's changes apply field by field: a value sets, ""
 * clears, an absent field keeps the stored value, unless the resource's address changes
 * (`keptAcrossMove`).
 */
export function sealedFields<Field extends string>(secrets: SecretBox, fields: readonly Field[]) {
  type Values = Partial<Record<Field, string>>
  return {
    open: (sealed: Buffer | null): Values => (sealed ? (JSON.parse(secrets.open(sealed)) as Values) : {}),
    /** Null when no field is set. */
    seal: (values: Values): Buffer | null => (Object.keys(values).length > 0 ? secrets.seal(JSON.stringify(values)) : null),
    /** The stored values with the request's changes applied; cleared ones are dropped. */
    merge(stored: Values, changes: Values): Values {
      const merged: Values = {}
      for (const field of fields) {
        const value = changes[field] ?? stored[field]
        if (value) merged[field] = value
      }
      return merged
    },
    /**
     * The stored fields a request leaves out. When the request moves the resource to another address
     * (its url or kind), each of them must be given again, or cleared with "": a stored secret is
     * only ever sent to the address it was given for, whoever edits the address.
     */
    keptAcrossMove(stored: Values, changes: Values): Field[] {
      return fields.filter((field) => !!stored[field] && changes[field] === undefined)
    },
  }
}
