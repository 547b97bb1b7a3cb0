// The contract's kinds of service (section 3): a word every module may use, so it lives below them all.
// This is the one file outside the kinds' folders that lists kinds by name (docs/adding-a-kind.md):
// the contract's list, the order of their default stages, and the reference's enums that name
// kinds among other words. Everything else takes its kinds from the registry
// (src/modules/services/kinds/registry.ts) or from the lists here.

export const SERVICE_TYPES = ['APPLICATION', 'DATABASE', 'CONTAINER', 'JOB', 'HELM', 'IAC', 'GITOPS_APP'] as const
export type ServiceType = (typeof SERVICE_TYPES)[number]

/** The kinds' default stages, in deploy order: what others depend on first. */
export const STAGE_ORDER: readonly ServiceType[] = ['DATABASE', 'IAC', 'JOB', 'HELM', 'CONTAINER', 'APPLICATION', 'GITOPS_APP']

// --- the reference's enums that name kinds ------------------------------------------------------
// Frozen as the reference orders them (the document must not change): a new kind joins one only
// when the reference's enum names it. TERRAFORM is the reference's word for the contract's IAC.

/** Whose variables a variable is (APIVariableScopeEnum): an IAC service's answer with IAC, and TERRAFORM is taken as its alias. */
export const VARIABLE_SCOPES = [
  'APPLICATION',
  'BUILT_IN',
  'ENVIRONMENT',
  'PROJECT',
  'CONTAINER',
  'JOB',
  'HELM',
  'TERRAFORM',
  'AGENTIC_WORKFLOW',
  'IAC',
] as const

/** The kind of the service an alias points at (LinkedServiceTypeEnum). */
export const LINKED_SERVICE_TYPES = ['APPLICATION', 'CONTAINER', 'DATABASE', 'JOB', 'HELM', 'TERRAFORM', 'IAC'] as const

/** The kinds whose variables the service-type query lists (ServiceTypeForVariableEnum). */
export const SERVICE_TYPES_FOR_VARIABLES = ['APPLICATION', 'CONTAINER', 'JOB', 'HELM', 'TERRAFORM', 'AGENTIC_WORKFLOW', 'IAC'] as const

/** The kinds of service an alert rule may target (the rest of ALERT_TARGET_TYPES are a cluster or an environment). */
export const ALERT_SERVICE_TARGETS = ['APPLICATION', 'CONTAINER', 'JOB', 'CRONJOB', 'HELM', 'TERRAFORM'] as const
/** What an alert rule targets, as the reference spells it (its leading-space ' CLUSTER' included). */
export const ALERT_TARGET_TYPES = [' CLUSTER', 'CLUSTER', 'ENVIRONMENT', ...ALERT_SERVICE_TARGETS] as const

/** What an audit event is about (OrganizationEventTargetType). */
export const AUDIT_TARGET_TYPES = [
  'AGENTIC_WORKFLOW',
  'APPLICATION',
  'CLUSTER',
  'CONTAINER',
  'CONTAINER_REGISTRY',
  'DATABASE',
  'ENTERPRISE_CONNECTION',
  'ENVIRONMENT',
  'JOB',
  'HELM',
  'HELM_REPOSITORY',
  'MEMBERS_AND_ROLES',
  'ORGANIZATION',
  'PROJECT',
  'WEBHOOK',
  'IAC',
] as const

/** What a labels or annotations group is attached to, in its associated items. */
export const GROUP_ASSOCIATED_ITEM_TYPES = ['APPLICATION', 'DATABASE', 'CONTAINER', 'LIFECYCLE', 'ENVIRONMENT', 'CLUSTER', 'CRON'] as const

/** The kinds of service a git token's associated services are (GitTokenAssociatedServiceType). */
export const GIT_TOKEN_ASSOCIATED_SERVICE_TYPES = ['APPLICATION', 'CRON', 'LIFECYCLE', 'HELM', 'IAC'] as const

/** The kinds whose links the environment's link list holds (Link.service_type). */
export const LINK_SERVICE_TYPES = ['APPLICATION', 'CONTAINER', 'HELM'] as const

/** The services a route brings the outside to (getIngressDeploymentStatus's serviceType), in the reference's order. */
export const INGRESS_SERVICE_TYPES = ['CONTAINER', 'APPLICATION', 'HELM'] as const
