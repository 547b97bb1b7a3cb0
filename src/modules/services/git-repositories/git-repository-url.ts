import type { GitProvider } from '#src/modules/organization-credentials/git-tokens/git-tokens.schemas.ts'

const PUBLIC_HOSTS: Record<string, GitProvider> = {
  'github.com': 'GITHUB',
  'www.github.com': 'GITHUB',
  'gitlab.com': 'GITLAB',
  'www.gitlab.com': 'GITLAB',
  'bitbucket.org': 'BITBUCKET',
  'www.bitbucket.org': 'BITBUCKET',
}

export interface ParsedGitUrl {
  /** The provider a well-known public host belongs to; undefined for a self-hosted instance. */
  hostProvider: GitProvider | undefined
  /** Everything before the repository name: a user, an organization, or GitLab groups. */
  owner: string
  name: string
  /** Plain http: a token must never travel over it. */
  secure: boolean
}

// Repository and owner names at GitHub, GitLab and Bitbucket use these characters only. Nothing is
// percent-decoded, so an encoded `/` or `..` cannot reach the provider API paths built from them.
const SEGMENT = /^[A-Za-z0-9_.~+-]+$/

/**
 * Reads owner and repository name from an http(s) repository URL such as
 * `https://gitlab.com/group/sub/app.git`; undefined when it is not one.
 */
export function parseGitUrl(url: string): ParsedGitUrl | undefined {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return undefined
  }
  if ((parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || parsed.username || parsed.password || parsed.search || parsed.hash) {
    return undefined
  }
  const segments = parsed.pathname
    .replace(/\.git\/?$/, '')
    .split('/')
    .filter((segment) => segment !== '')
  if (segments.length < 2 || segments.some((segment) => !SEGMENT.test(segment) || /^\.+$/.test(segment))) return undefined
  const name = segments.pop()!
  return { hostProvider: PUBLIC_HOSTS[parsed.hostname.toLowerCase()], owner: segments.join('/'), name, secure: parsed.protocol === 'https:' }
}
