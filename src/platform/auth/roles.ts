import { AppError } from '../http/errors.ts'

/** Roles, weakest first: each holds the powers of those before it (docs/authentication.md, "Authentication and roles"). */
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

/** A role a member, an invitation or an API token may hold: a built-in one, or a custom role of the organization by id. */
export type HeldRole = { role: Role; customRoleId?: undefined } | { role: 'READ'; customRoleId: string }

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * As `requestedRole`, but a `role_id` that is no built-in role's id may name a custom role: the
 * caller checks it is one of the organization's (400 otherwise). A custom role's holder is READ on
 * the organization (docs/custom-roles.md, "Custom roles"), so `role` or `scope` may be given beside it only as READ.
 */
export function requestedHeldRole(fields: RoleFields): HeldRole | undefined {
  if (!fields.role_id || roleById(fields.role_id) || !UUID.test(fields.role_id)) {
    const role = requestedRole(fields)
    return role ? { role } : undefined
  }
  for (const field of ['role', 'scope'] as const) {
    const other = fields[field]
    if (other !== undefined && other !== null && other !== 'READ') throw roleFieldError(`/${field}`, 'must agree with role_id')
  }
  return { role: 'READ', customRoleId: fields.role_id.toLowerCase() }
}

/** The 400 for a `role_id` that names neither a built-in role nor a custom role of the organization. */
export const unknownRoleId = () =>
  roleFieldError('/role_id', `must be one of ${Object.values(ROLE_IDS).join(', ')} or the id of a custom role of this organization`)
