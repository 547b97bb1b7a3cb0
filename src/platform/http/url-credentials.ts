/**
 * Whether a URL carries credentials in its authority (`https://user:pass@host`, or a user name
 * alone). Such a URL would be stored, returned and logged in clear, and is sent to whatever server
 * it names: credentials belong in the fields that seal them. Text that does not parse as a URL is
 * read with the RFC 3986 authority pattern, so that a malformed URL does not slip through either.
 */
export function hasUrlCredentials(text: string): boolean {
  if (URL.canParse(text)) {
    const url = new URL(text)
    return url.username !== '' || url.password !== ''
  }
  return /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(text.trim())
}

/** The field error for such a URL; `where` says which fields take the credentials instead. */
export const urlCredentialsMessage = (where: string) => `must not contain credentials (user:password@ before the host): ${where}`
