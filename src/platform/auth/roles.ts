/** Roles, weakest first: each holds the powers of those before it (DESIGN 5). */
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
