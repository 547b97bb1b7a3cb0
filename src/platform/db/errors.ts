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

/**
 * Runs a create whose parent rows may be deleted while it runs (a project in an organization being
 * deleted): the foreign key check then fails, and that becomes `gone()` (a 404 for the parent)
 * rather than a 500. Anything else is rethrown as it is. The statement failed whole, so nothing of
 * the create is left.
 */
export async function whenParentGone<T>(gone: () => Error, write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (violatedForeignKey(error) !== undefined) throw gone()
    throw error
  }
}

/** True for a transaction PostgreSQL aborted for a conflict with another one: a deadlock, or a serialization failure. */
export function isTransactionConflict(error: unknown): boolean {
  const code = (error as { code?: string })?.code
  return code === '40P01' || code === '40001'
}

/**
 * Runs a transaction again when PostgreSQL aborted it for a deadlock or a serialization failure:
 * it was rolled back whole, so running it again is safe. Deletes take their own locks in one order
 * (organization, projects, environments), but other writers (deployment runners, triggers) may take
 * the same rows in another order; the loser of such a race retries rather than fail the request.
 */
export async function retryTransactionConflicts<T>(work: () => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work()
    } catch (error) {
      if (!isTransactionConflict(error) || attempt >= attempts) throw error
    }
  }
}

// Connection failures (network errors, PostgreSQL's class 08 and shutdown codes, pool timeouts),
// and statements the server cancelled at BERTH_DB_QUERY_TIMEOUT_MS (57014).
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', '57P01', '57P02', '57P03', '57014'])

/** True for an error that says the database cannot be reached now (or cancelled a statement that took too long). */
export function isDatabaseUnavailable(error: { code?: string; message?: string }): boolean {
  const code = error.code ?? ''
  return (
    UNAVAILABLE_CODES.has(code) ||
    code.startsWith('08') ||
    /timeout exceeded when trying to connect|Connection terminated|Query read timeout|not queryable/i.test(error.message ?? '')
  )
}
