import type { FieldError } from '#src/platform/http/errors.ts'

/** An error of the request body at `path` (a JSON pointer), for the rules a schema cannot say. */
export const bodyError = (path: string, message: string): FieldError => ({ path, message, location: 'body' })
