import { recordHead } from '#src/platform/http/named-resources.ts'

// What the wire mappings of the three families share, in the order their schemas list it
// (credentials.schemas.ts).

/** The first fields of every credential in a response. */
export const credentialResponseHead = (row: { id: string; createdAt: Date; updatedAt: Date; name: string }) => ({
  ...recordHead(row),
  name: row.name,
})

/** A request's name and description as the service takes them: the name trimmed, an absent description null. */
export const credentialNameAndDescription = (body: { name: string; description?: string | null }) => ({
  name: body.name.trim(),
  description: body.description ?? null,
})
