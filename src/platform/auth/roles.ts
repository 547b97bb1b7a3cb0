import { AppError } from '../http/errors.ts'

/** Roles, weakest first: each holds the powers of those before it (README, "Authentication and roles"). */
export const ROLES = ['READ', 'DEPLOY', 'WRITE', 'ADMIN'] as const
export type Role = (typeof ROLES)[number]

export const roleRank = (role: Role): number => ROLES.indexOf(role)

export const hasRole = (held: Role, needed: Role): boolean => roleRank(held) >= roleRank(needed)

export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value)

/**
 * Fixed ids of the built-in roles, the same in every organization. The reference's token request
 * names a role by `role_id`; these are the ids it accepts.
 */
export const ROLE_IDS: Record<Role, string> = {
  ADMIN: '00000000-0000-4000-8000-0000000000a1',
  WRITE: '00000000-0000-4000-8000-0000000000a2',
  DEPLOY: '00000000-0000-4000-8000-0000000000a3',
  READ: '00000000-0000-4000-8000-0000000000a4',
}

export const roleById = (id: string): Role | undefined =>
  (Object.entries(ROLE_IDS) as [Role, string][]).find(([, roleId]) => roleId === id.toLowerCase())?.[0]

/** How a request may name a role: by name, by built-in id, or by the deprecated `scope`. */
export interface RoleFields {
  role?: Role | undefined
  role_id?: string | null | undefined
  scope?: Role | null | undefined
}

/** A 400 about the role field at `path` of a request body. */
export const roleFieldError = (path: string, message: string) =>
  new AppError('validation_failed', `${path.slice(1)} ${message}`, { errors: [{ path, message, location: 'body' }] })

/**
 * The role a request names by `role`, `role_id` or `scope`, undefined when it names none. Several
 * may be given when they agree; an unknown `role_id` or a disagreement is a 400.
 */
export function requestedRole(fields: RoleFields): Role | undefined {
  const byId = fields.role_id ? roleById(fields.role_id) : undefined
  if (fields.role_id && !byId) throw roleFieldError('/role_id', `must be one of ${Object.values(ROLE_IDS).join(', ')}`)
  const named = [fields.role, byId, fields.scope ?? undefined].filter((role): role is Role => role !== undefined)
  if (new Set(named).size > 1) {
    const [first, ...others] = (['role', 'role_id', 'scope'] as const).filter((field) => fields[field] !== undefined && fields[field] !== null)
    throw roleFieldError(`/${first}`, `must agree with ${others.join(' and ')}`)
  }
  return named[0]
}
