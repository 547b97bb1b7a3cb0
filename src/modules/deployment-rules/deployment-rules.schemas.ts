import { type Static, Type } from 'typebox'
import { DateTime, Enum, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'
import { NamedResource, RequestBody, RequestName } from '#src/platform/http/named-resources.ts'

// The reference's Project Deployment Rule shapes (ProjectDeploymentRuleRequest, ProjectDeploymentRule).

export const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const
export type Weekday = (typeof WEEKDAYS)[number]
/** The modes a rule may give: those a client may create an environment in. */
export const RULE_MODES = ['DEVELOPMENT', 'PRODUCTION', 'STAGING'] as const
export type RuleMode = (typeof RULE_MODES)[number]

export const ProjectDeploymentRuleRequest = RequestBody('ProjectDeploymentRuleRequest', {
  name: RequestName('name is case insensitive; unique in the project'),
  description: Type.Optional(Nullable(Type.String({ maxLength: 1024 }))),
  mode: Enum(RULE_MODES, 'EnvironmentModeEnum'),
  cluster_id: Uuid,
  auto_stop: Type.Optional(Type.Boolean({ default: false, description: 'stop matching environments at `stop_time` and start them at `start_time`' })),
  timezone: Type.String({ minLength: 1, maxLength: 64, description: 'an IANA time zone (`Europe/Paris`, `UTC`)' }),
  start_time: Type.String({ format: 'date-time', description: 'only the time of day counts, read in `timezone`' }),
  stop_time: Type.String({ format: 'date-time', description: 'only the time of day counts, read in `timezone`' }),
  weekdays: Type.Array(Enum(WEEKDAYS, 'WeekdayEnum'), { maxItems: 7, uniqueItems: true }),
  wildcard: Type.String({
    maxLength: 255,
    default: '',
    description:
      "pattern of `?` (one character) and `*` (any characters) matched against new environments' names, case insensitive; empty matches none",
  }),
})
export type ProjectDeploymentRuleRequest = Static<typeof ProjectDeploymentRuleRequest>

export const ProjectDeploymentRule = NamedResource('ProjectDeploymentRule', {
  description: Nullable(Type.String()),
  mode: Enum(RULE_MODES, 'EnvironmentModeEnum'),
  cluster_id: Uuid,
  auto_stop: Type.Boolean(),
  timezone: Type.String(),
  start_time: DateTime,
  stop_time: DateTime,
  weekdays: Type.Array(Enum(WEEKDAYS, 'WeekdayEnum')),
  wildcard: Type.String(),
  priority_index: Type.Integer({ description: 'used to select the first deployment rule to match new created environments' }),
})
export type ProjectDeploymentRule = Static<typeof ProjectDeploymentRule>

export const ProjectDeploymentRuleResponseList = Type.Object(
  { results: Type.Array(ProjectDeploymentRule) },
  { title: 'ProjectDeploymentRuleResponseList' },
)

export const ProjectDeploymentRulesPriorityOrderRequest = Type.Object(
  { project_deployment_rule_ids_in_order: Type.Array(Uuid, { maxItems: 1000, uniqueItems: true }) },
  { additionalProperties: false, title: 'ProjectDeploymentRulesPriorityOrderRequest' },
)

export const ProjectParams = Type.Object({ projectId: Uuid })
export const DeploymentRuleParams = Type.Object({ projectId: Uuid, deploymentRuleId: Uuid })
