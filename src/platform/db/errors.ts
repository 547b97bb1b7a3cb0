/** True when `error` is PostgreSQL's unique_violation, optionally on the named constraint or index. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const pgError = error as { code?: string; constraint?: string }
  return pgError?.code === '23505' && (constraint === undefined || pgError.constraint === constraint)
}

/** The constraint a foreign_key_violation broke, or undefined when `error` is not one. */
export function violatedForeignKey(error: unknown): string | undefined {
  const pgError = error as { code?: string; constraint?: string }
  return pgError?.code === '23503' ? pgError.constraint : undefined
}

/**
 * Runs a write whose only expected failure is a clash on a unique name: that clash becomes
 * `clash()` (a 409 naming the name), anything else is rethrown as it is.
 */
export async function withUniqueName<T>(constraint: string, clash: () => Error, write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (isUniqueViolation(error, constraint)) throw clash()
    throw error
  }
}
