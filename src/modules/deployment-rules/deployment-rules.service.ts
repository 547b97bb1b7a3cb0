import type { ProjectsService } from '#src/modules/projects/projects.service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import { whenParentGone, withUniqueName } from '#src/platform/db/errors.ts'
import { AppError, notFound, validationFailed } from '#src/platform/http/errors.ts'
import type { DeploymentRuleRow, DeploymentRuleValues, ProjectDeploymentRulesRepository } from './deployment-rules.repository.ts'
import type { RuleMode } from './deployment-rules.schemas.ts'
import { isKnownTimezone } from './schedule-events.ts'
import { wildcardMatches } from './wildcard.ts'

// Projects' deployment rules (docs/deployment-rules.md): their CRUD and priority order, and the
// rule a new environment of the project gets.

export interface DeploymentRuleInput {
  name: string
  description: string | null
  mode: RuleMode
  clusterId: string
  autoStop: boolean
  timezone: string
  startTime: Date
  stopTime: Date
  weekdays: string[]
  wildcard: string
}

interface Deps {
  repo: ProjectDeploymentRulesRepository
  projects: Pick<ProjectsService, 'requireProject'>
  /** Whether the cluster is one of the organization's. */
  isClusterOf(organizationId: string, clusterId: string): Promise<boolean>
}

const nameTaken = (name: string) => new AppError('conflict', `a deployment rule named "${name}" already exists in this project`)

export function createProjectDeploymentRulesService({ repo, projects, isClusterOf }: Deps) {
  async function checkInput(organizationId: string, input: DeploymentRuleInput): Promise<DeploymentRuleValues> {
    const errors = []
    if (!isKnownTimezone(input.timezone)) errors.push({ path: '/timezone', message: 'is not a known time zone', location: 'body' as const })
    if (!(await isClusterOf(organizationId, input.clusterId)))
      errors.push({ path: '/cluster_id', message: 'is not a cluster of this organization', location: 'body' as const })
    if (errors.length > 0) throw validationFailed(errors)
    return { ...input, weekdays: JSON.stringify(input.weekdays) }
  }

  const guardName = <T>(name: string, write: () => Promise<T>) => withUniqueName('project_deployment_rules_name_key', () => nameTaken(name), write)

  async function requireRule(principal: Principal, projectId: string, ruleId: string, needed: Role) {
    const { project } = await projects.requireProject(principal, projectId, needed)
    const rule = await repo.find(project.organizationId, project.id, ruleId)
    if (!rule) throw notFound('deployment rule')
    return { project, rule }
  }

  return {
    /** READ on the project; in priority order. */
    async list(principal: Principal, projectId: string): Promise<DeploymentRuleRow[]> {
      const { project } = await projects.requireProject(principal, projectId, 'READ')
      return repo.list(project.organizationId, project.id)
    },

    async get(principal: Principal, projectId: string, ruleId: string): Promise<DeploymentRuleRow> {
      return (await requireRule(principal, projectId, ruleId, 'READ')).rule
    },

    /** WRITE on the project; the new rule comes last in priority. */
    async create(principal: Principal, projectId: string, input: DeploymentRuleInput): Promise<DeploymentRuleRow> {
      const { project } = await projects.requireProject(principal, projectId, 'WRITE')
      const values = await checkInput(project.organizationId, input)
      return whenParentGone(
        () => notFound('project'),
        () => guardName(input.name, () => repo.insert(project.organizationId, project.id, values)),
      )
    },

    /** A full replacement; the rule keeps its place in the order. */
    async update(principal: Principal, projectId: string, ruleId: string, input: DeploymentRuleInput): Promise<DeploymentRuleRow> {
      const { project } = await requireRule(principal, projectId, ruleId, 'WRITE')
      const values = await checkInput(project.organizationId, input)
      const row = await whenParentGone(
        () => notFound('deployment rule'),
        () => guardName(input.name, () => repo.update(project.organizationId, project.id, ruleId, values)),
      )
      if (!row) throw notFound('deployment rule')
      return row
    },

    async delete(principal: Principal, projectId: string, ruleId: string): Promise<void> {
      const { project } = await projects.requireProject(principal, projectId, 'WRITE')
      if (!(await repo.delete(project.organizationId, project.id, ruleId))) throw notFound('deployment rule')
    },

    /**
     * The rules named come first, in the order named; those left out follow in their order of
     * before. An id that is not a rule of the project is a 400.
     */
    async reorder(principal: Principal, projectId: string, orderedIds: string[]): Promise<void> {
      const { project } = await projects.requireProject(principal, projectId, 'WRITE')
      const current = await repo.list(project.organizationId, project.id)
      const known = new Set(current.map((rule) => rule.id))
      const ids = orderedIds.map((id) => id.toLowerCase())
      const unknown = ids.findIndex((id) => !known.has(id))
      if (unknown !== -1) {
        throw validationFailed([
          { path: `/project_deployment_rule_ids_in_order/${unknown}`, message: 'is not a deployment rule of this project', location: 'body' },
        ])
      }
      const named = new Set(ids)
      await repo.reorder(project.id, [...ids, ...current.filter((rule) => !named.has(rule.id)).map((rule) => rule.id)])
    },

    /** The first rule, in priority order, whose wildcard matches a new environment's name; for no principal. */
    async ruleFor(organizationId: string, projectId: string, environmentName: string): Promise<DeploymentRuleRow | undefined> {
      return (await repo.list(organizationId, projectId)).find((rule) => wildcardMatches(rule.wildcard, environmentName))
    },
  }
}

export type ProjectDeploymentRulesService = ReturnType<typeof createProjectDeploymentRulesService>
