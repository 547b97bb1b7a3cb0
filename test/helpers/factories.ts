import { randomUUID } from 'node:crypto'
import type { Role } from '#src/platform/auth/roles.ts'
import type { Db } from '#src/platform/db/database.ts'
import { createServices } from '#src/services.ts'
import { testSecretBox } from './app.ts'

export const uniqueName = (prefix: string) => `${prefix} ${randomUUID().slice(0, 8)}`

/** Factories that go through the real services and repositories; every test makes its own data. */
export function factories(db: Db) {
  const { organizations, apiTokens } = createServices(db, { tokenUsageFlushMs: 60_000, onBackgroundError: () => {}, secrets: testSecretBox() })

  return {
    async organization(name = uniqueName('org')) {
      return organizations.findOrCreateByName(name)
    },

    /** A real API token of `role` in the organization: `Authorization` header value included. */
    async apiToken(organizationId: string, role: Role = 'ADMIN', options: { expiredAt?: Date; name?: string } = {}) {
      const created = await apiTokens.mint(organizationId, {
        name: options.name ?? uniqueName(`token ${role}`),
        role,
        expiredAt: options.expiredAt ?? null,
      })
      return { ...created, authorization: `Token ${created.token}` }
    },

    /** An organization with one token per role. */
    async organizationWithTokens(name = uniqueName('org')) {
      const organization = await this.organization(name)
      const [admin, write, deploy, read] = await Promise.all(
        (['ADMIN', 'WRITE', 'DEPLOY', 'READ'] as const).map((role) => this.apiToken(organization.id, role)),
      )
      return { organization, tokens: { admin: admin!, write: write!, deploy: deploy!, read: read! } }
    },
  }
}
