// What each organization page is handed (organization-pages.tsx reads it once for all of them).
import type { Organization, Role } from './types.ts'

export interface OrganizationPageProps {
  organization: Organization
  role: Role
}
