/** True when `error` is PostgreSQL's unique_violation, optionally on the named constraint or index. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const pgError = error as { code?: string; constraint?: string }
  return pgError?.code === '23505' && (constraint === undefined || pgError.constraint === constraint)
}
