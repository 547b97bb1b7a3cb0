import { type TSchema, Type } from 'typebox'
import { ROLE_IDS, ROLES, type Role } from '../auth/roles.ts'

export const Uuid = Type.String({ format: 'uuid' })
export const DateTime = Type.String({ format: 'date-time' })

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

/** A string enum named as the reference names it (`title`), so that generated clients get its type. */
export const Enum = <T extends string>(values: readonly T[], title: string, description?: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], title, ...(description ? { description } : {}) })

/** The one error body (docs/errors.md, "Errors"); `detail` repeats `message` for RFC 7807-style readers. */
export const ErrorResponse = Type.Object(
  {
    status: Type.Integer({ description: 'the HTTP status' }),
    error: Type.String({ description: 'the HTTP status text' }),
    message: Type.String({ description: 'what went wrong, for people' }),
    detail: Type.String({ description: 'the same text as `message`' }),
    code: Type.String({ description: 'stable machine-readable error code' }),
    request_id: Type.String({ description: 'also sent as the x-request-id header' }),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          path: Type.String({ description: 'JSON pointer to the offending value' }),
          message: Type.String(),
          location: Type.Optional(Type.String({ enum: ['body', 'path', 'query', 'header'] })),
        }),
      ),
    ),
  },
  { $id: 'ErrorResponse', title: 'ErrorResponse' },
)

export const ErrorRef = Type.Ref('ErrorResponse')

export const OrganizationParams = Type.Object({ organizationId: Uuid })

/** A role by name; `description` says what it is the role of. */
export const RoleName = (description: string) => Type.Unsafe<Role>({ type: 'string', enum: [...ROLES], description })

/** A built-in role by its fixed id, or a custom role by its id, as the reference's requests name roles. */
export const RoleId = Type.String({
  format: 'uuid',
  description: `id of a built-in role (${Object.entries(ROLE_IDS)
    .map(([role, id]) => `${role} ${id}`)
    .join(', ')}) or of a custom role of the organization`,
})

/** A 409 response of an operation, in the error shape, saying when it happens. */
export const conflictResponse = (description: string) => ({ 409: Type.Ref('ErrorResponse', { description: `${description} (\`conflict\`)` }) })
