// What the API's error answers become in the console (api.ts throws them). No DOM here.

export interface FieldError {
  /** JSON pointer to the offending value, e.g. `/values_override/set/0/0`. */
  path: string
  message: string
  location?: string
}

/** An error answer of the API, carrying its `message` (what the console shows) and field errors. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    readonly errors: FieldError[] = [],
  ) {
    super(message)
    this.name = 'ApiError'
  }
}
