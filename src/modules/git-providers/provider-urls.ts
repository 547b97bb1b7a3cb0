export interface ApiRootRules {
  /** The public service's API root, used without a git_api_url. */
  publicApi: string
  /** Web hosts of the public service (github.com): a git_api_url naming one means the public API. */
  webHosts: string[]
  /** The API's path under an instance's address (`/api/v4`), or '' when it is served at the root. */
  apiPath(url: URL): string
}

/**
 * The API root under a git_api_url, or the public API's without one: credentials, query and fragment
 * dropped, and the provider's API path appended unless the URL already ends with it.
 */
export function apiRootOf(gitApiUrl: string | null, rules: ApiRootRules): URL {
  let url = new URL(gitApiUrl ?? rules.publicApi)
  if (rules.webHosts.includes(url.hostname.toLowerCase())) url = new URL(rules.publicApi)
  url.username = ''
  url.password = ''
  url.search = ''
  url.hash = ''
  const path = url.pathname.replace(/\/+$/, '')
  const apiPath = rules.apiPath(url)
  url.pathname = path.endsWith(apiPath) ? path : `${path}${apiPath}`
  return url
}

/** The URL of `path` (already percent-encoded) under an API root that may have a path of its own. */
export function apiUrl(root: URL, path: string): URL {
  return new URL(`${root.pathname.replace(/\/+$/, '')}/${path}`, root)
}

/** The URL with these query parameters set. */
export function withQuery(url: URL, query: Record<string, string | number>): URL {
  const copy = new URL(url)
  for (const [name, value] of Object.entries(query)) copy.searchParams.set(name, String(value))
  return copy
}

/**
 * Whether `text` can be one segment of an API path: not empty, `.` or `..`, no slash, no surrounding
 * blanks. Anything else would change the path it is put in (`..` climbs out of the repository).
 */
export function isPathSegment(text: string): boolean {
  return text !== '' && text !== '.' && text !== '..' && !text.includes('/') && text.trim() === text
}

/**
 * The path segments of a repository `name` such as `owner/repo` or `group/sub/project` (surrounding
 * slashes and a trailing `.git` ignored); undefined when a segment is not a path segment.
 */
export function repositorySegments(name: string): string[] | undefined {
  const segments = name
    .trim()
    .replace(/^\/+|\/+$/g, '')
    .replace(/\.git$/i, '')
    .split('/')
  return segments.every(isPathSegment) ? segments : undefined
}

/** Each segment percent-encoded for a URL path. */
export const encodeSegments = (segments: string[]): string => segments.map(encodeURIComponent).join('/')
