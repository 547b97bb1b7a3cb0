import type { FieldError } from '#src/platform/http/errors.ts'
import { bodyError } from './field-errors.ts'

// The rules of a request's `ports` that every kind with ports keeps, each naming the port's field by JSON pointer.

interface RequestPort {
  name?: string | null | undefined
  internal_port: number
  is_default?: boolean | null | undefined
}

interface PublicPort {
  publicly_accessible: boolean
  protocol?: string | null | undefined
  public_path?: string | null | undefined
  public_path_rewrite?: string | null | undefined
}

/** The checks across a request's ports, called port by port in its order: one default port, unique names. */
export function portListChecks(errors: FieldError[]) {
  let defaultSeen = false
  const names = new Set<string>()
  return {
    /** Only one port may be the default. */
    isDefault(port: RequestPort, path: string): void {
      if (!port.is_default) return
      if (defaultSeen) errors.push(bodyError(`${path}/is_default`, 'only one port may be the default'))
      defaultSeen = true
    },
    /** Names are unique; a port without one is named `p{internal_port}`. */
    name(port: RequestPort, path: string): void {
      const name = port.name ?? `p${port.internal_port}`
      if (names.has(name)) errors.push(bodyError(`${path}/name`, `"${name}" is used by another port; port names must be unique`))
      names.add(name)
    },
  }
}

/** A public path (and its rewrite) belongs to a publicly accessible HTTP or GRPC port, and starts with /; `misplaced` says the first. */
export function checkPublicPath(port: PublicPort, path: string, misplaced: string, errors: FieldError[]): void {
  const web = (port.protocol ?? 'HTTP') === 'HTTP' || port.protocol === 'GRPC'
  for (const field of ['public_path', 'public_path_rewrite'] as const) {
    if (port[field] != null && !(port.publicly_accessible && web)) errors.push(bodyError(`${path}/${field}`, misplaced))
  }
  if (port.public_path != null && !port.public_path.startsWith('/')) errors.push(bodyError(`${path}/public_path`, 'must start with /'))
}
