import { AppError, notFound } from './errors.ts'

/**
 * For `.catch()` after an access check on a resource's organization: "no access to the
 * organization" is reported as the resource itself not existing (docs/authentication.md, "Authentication and roles").
 */
export function asNotFound(what: string) {
  return (error: unknown): never => {
    if (error instanceof AppError && error.code === 'not_found') throw notFound(what)
    throw error
  }
}
