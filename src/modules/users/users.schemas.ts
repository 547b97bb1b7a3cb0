import { type Static, Type } from 'typebox'
import { DateTime, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'

export const AccountInfo = Type.Object(
  {
    id: Uuid,
    created_at: DateTime,
    communication_email: Type.Optional(Type.String({ description: 'the email editAccountInformation set, else the `email` claim' })),
    name: Nullable(Type.String({ description: 'Berth extension: from the `name` or `preferred_username` claim' })),
    email: Nullable(Type.String({ description: 'Berth extension: from the `email` claim' })),
  },
  { title: 'AccountInfo' },
)
export type AccountInfo = Static<typeof AccountInfo>

export const AccountInfoEditRequest = Type.Object(
  { communication_email: Type.Optional(Type.String({ format: 'email', maxLength: 320, description: 'the email to write to; absent: unchanged' })) },
  { title: 'AccountInfoEditRequest' },
)
