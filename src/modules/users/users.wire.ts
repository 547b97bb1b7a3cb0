import type { UserRow } from './users.repository.ts'
import type { AccountInfo } from './users.schemas.ts'

export function toAccountInfoResponse(user: UserRow): AccountInfo {
  const communicationEmail = user.communicationEmail ?? user.email
  return {
    id: user.id,
    created_at: user.createdAt.toISOString(),
    ...(communicationEmail ? { communication_email: communicationEmail } : {}),
    name: user.name,
    email: user.email,
  }
}
