// The contract's kinds of service (section 3): a word every module may use, so it lives below them all.

export const SERVICE_TYPES = ['APPLICATION', 'DATABASE', 'CONTAINER', 'JOB', 'HELM', 'IAC', 'GITOPS_APP'] as const
export type ServiceType = (typeof SERVICE_TYPES)[number]
