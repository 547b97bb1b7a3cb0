// The git providers Berth speaks to, a word both the git tokens (organization-credentials/) and the
// provider adapters (git-providers/) use, so it lives below them both.

export const GIT_PROVIDERS = ['BITBUCKET', 'GITHUB', 'GITLAB'] as const
export type GitProvider = (typeof GIT_PROVIDERS)[number]
