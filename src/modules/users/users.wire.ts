import type { UserRow } from './users.repository.ts'
import type { AccountInfo } from './users.schemas.ts'

export function toAccountInfoResponse(user: UserRow): AccountInfo {
  return {
    id: user.id,
    created_at: user.createdAt.toISOString(),
    ...(user.email ? { communication_email: user.email } : {}),
    name: user.name,
    email: user.email,
  }
}
