import type { FieldError } from '#src/platform/http/errors.ts'

// What a variable's key, value and mount path may be (docs/variables.md, "Variables and secrets").

/** A name a POSIX shell and every language's environment accept: letters, digits and `_`, not starting with a digit. */
const KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/

export const KEY_MAX_LENGTH = 255

/** Keys the platform keeps for its built-in variables, and the double underscore the reference reserves. */
const RESERVED_PREFIXES = ['QOVERY_', '__']

/** The most bytes of one value (UTF-8): a file variable's content included. */
export const VALUE_MAX_BYTES = 64 * 1024

/** Where a variable's value is delivered as a file: an absolute path, without `.` or `..` segments. */
export const MOUNT_PATH_MAX_LENGTH = 1024

type Location = 'body' | 'query'

export function keyErrors(key: string, path: string, location: Location = 'body'): FieldError[] {
  if (key.length === 0 || key.length > KEY_MAX_LENGTH) return [{ path, message: `must have 1 to ${KEY_MAX_LENGTH} characters`, location }]
  if (!KEY_PATTERN.test(key)) {
    return [{ path, message: 'may hold only letters, digits and underscores, and may not start with a digit', location }]
  }
  const reserved = RESERVED_PREFIXES.find((prefix) => key.toUpperCase().startsWith(prefix))
  if (reserved) return [{ path, message: `may not start with ${reserved}: keys starting so are reserved for built-in variables`, location }]
  return []
}

export function valueErrors(value: string, path: string, location: Location = 'body'): FieldError[] {
  return Buffer.byteLength(value, 'utf8') > VALUE_MAX_BYTES ? [{ path, message: `may hold at most ${VALUE_MAX_BYTES} bytes`, location }] : []
}

export function mountPathErrors(mountPath: string, path: string): FieldError[] {
  const error = (message: string) => [{ path, message, location: 'body' as const }]
  if (mountPath.length > MOUNT_PATH_MAX_LENGTH) return error(`may have at most ${MOUNT_PATH_MAX_LENGTH} characters`)
  if (!mountPath.startsWith('/') || mountPath.endsWith('/')) return error('must be an absolute path to a file, such as /etc/app/config.json')
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
  if (/[\u0000-\u001f\u007f]/.test(mountPath)) return error('may not hold control characters')
  const segments = mountPath.slice(1).split('/')
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    return error('may not hold empty, . or .. segments')
  }
  return []
}

export interface VariableLimits {
  /** The most variables one project, environment or service holds (BERTH_VARIABLES_PER_SCOPE). */
  perScope: number
  /** The most bytes of values one scope holds (BERTH_VARIABLE_BYTES_PER_SCOPE). */
  bytesPerScope: number
}

/**
 * The limits BERTH_VARIABLES_PER_SCOPE and BERTH_VARIABLE_BYTES_PER_SCOPE default to: 1 MiB is what
 * Kubernetes holds in one ConfigMap or Secret, where a scope's variables end up.
 */
export const DEFAULT_VARIABLE_LIMITS: VariableLimits = { perScope: 500, bytesPerScope: 1024 * 1024 }
