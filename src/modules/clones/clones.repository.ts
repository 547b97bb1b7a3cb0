import { type Selectable, sql, type Transaction } from 'kysely'
import { databaseKeyId } from '#src/modules/services/kinds/database/database-credentials.ts'
import { insertReferences } from '#src/modules/services/services.repository.ts'
import type { PreparedClone } from '#src/modules/services/services.service.ts'
import type { DeploymentStagesRepository } from '#src/modules/services/stages/deployment-stages.repository.ts'
import { lockStages } from '#src/modules/services/stages/deployment-stages.repository.ts'
import type { Db } from '#src/platform/db/database.ts'
import type { Database, VariablesTable } from '#src/platform/db/schema.ts'
import type { ServiceType } from '#src/platform/deployment-states.ts'
import { validationFailed } from '#src/platform/http/errors.ts'

// What a clone copies, read and written as rows: stages, services and their references, variables
// (secrets still sealed, as stored), a job's advanced settings. A clone is written in one
// transaction: it happens whole or not at all.

type VariableRow = Selectable<VariablesTable>

/** A variable to copy, with what its alias or override points at. */
export interface SourceVariable extends VariableRow {
  link: { id: string; projectId: string; environmentId: string | null; serviceId: string | null; key: string; variableType: string } | null
}

/** A service of a clone: what the core prepared, and where it goes. */
export interface ServiceClone {
  sourceId: string
  kind: ServiceType
  prepared: PreparedClone
  deploymentSkipped: boolean
}

/** Where a clone's copies go. */
interface Target {
  organizationId: string
  projectId: string
  environmentId: string
}

/** Thrown inside a clone's transaction to roll it back when the target environment is full. */
const ENVIRONMENT_FULL = new Error('the environment holds the most services it may')

/** The ids of what a clone made, by the ids of what it copied. */
interface Copies {
  services: Map<string, string>
  /** A database's key id (`Z1A2B3C4D`) by its source's. */
  databaseKeys: Map<string, string>
  variables: Map<string, string>
}

/** The variable `link` points at, as the clone's target sees it: what the clone made of it, or the variable of its key at its level there. */
async function counterpart(trx: Transaction<Database>, link: NonNullable<SourceVariable['link']>, target: Target, copies: Copies) {
  const copied = copies.variables.get(link.id)
  if (copied) return copied
  let key = link.key
  // A database's built-ins are named by its id: the clone's database has its own.
  if (link.variableType === 'BUILT_IN' && link.serviceId === null) {
    for (const [from, to] of copies.databaseKeys) if (key.includes(`_${from}_`)) key = key.replace(`_${from}_`, `_${to}_`)
  }
  let query = trx.selectFrom('variables').select('id').where('key', '=', key).where('projectId', '=', target.projectId)
  if (link.serviceId !== null) {
    const serviceId = copies.services.get(link.serviceId)
    if (!serviceId) return undefined
    query = query.where('serviceId', '=', serviceId)
  } else if (link.environmentId !== null) {
    query = query.where('environmentId', '=', target.environmentId).where('serviceId', 'is', null)
  } else {
    query = query.where('environmentId', 'is', null)
  }
  return (await query.executeTakeFirst())?.id
}

/**
 * Copies variables into the target: each into its service's clone when it had a service, else into
 * the target environment. Plain ones first; then aliases and overrides, each pointed at the
 * counterpart of what it pointed at (400 when the target has none: its project lacks the project
 * variable, or its environment the database, an alias names).
 */
async function copyVariables(trx: Transaction<Database>, variables: SourceVariable[], target: Target, copies: Copies): Promise<void> {
  const ordered = [...variables.filter((variable) => !variable.link), ...variables.filter((variable) => variable.link)]
  for (const variable of ordered) {
    let linkedId: string | null = null
    if (variable.link) {
      const found = await counterpart(trx, variable.link, target, copies)
      if (!found) {
        const message = `${variable.key} is ${variable.variableType === 'ALIAS' ? 'an alias' : 'an override'} of ${variable.link.key}, which the target ${variable.link.environmentId === null ? 'project' : 'environment'} does not have`
        throw validationFailed([{ path: '', message, location: 'body' }])
      }
      linkedId = found
    }
    const serviceId = variable.serviceId === null ? null : copies.services.get(variable.serviceId)
    if (serviceId === undefined) continue
    const { id } = await trx
      .insertInto('variables')
      .values({
        organizationId: target.organizationId,
        projectId: target.projectId,
        environmentId: target.environmentId,
        serviceId,
        scope: variable.scope,
        variableType: variable.variableType,
        key: variable.key,
        value: variable.value,
        valueSealed: variable.valueSealed,
        isSecret: variable.isSecret,
        mountPath: variable.mountPath,
        description: variable.description,
        enableInterpolationInFile: variable.enableInterpolationInFile,
        aliasedVariableId: variable.variableType === 'ALIAS' ? linkedId : null,
        overriddenVariableId: variable.variableType === 'OVERRIDE' ? linkedId : null,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    copies.variables.set(variable.id, id)
  }
}

async function insertService(trx: Transaction<Database>, clone: ServiceClone, target: Target, stageId: string, copies: Copies): Promise<void> {
  const { prepared } = clone
  const { id } = await trx
    .insertInto('services')
    .values({
      ...(prepared.id === undefined ? {} : { id: prepared.id }),
      organizationId: target.organizationId,
      environmentId: target.environmentId,
      kind: clone.kind,
      name: prepared.name,
      deploymentStageId: stageId,
      deploymentSkipped: clone.deploymentSkipped,
      configuration: JSON.stringify(prepared.configuration),
      pushRepository: prepared.pushRepository,
      pushBranch: prepared.pushBranch,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  copies.services.set(clone.sourceId, id)
  if (clone.kind === 'DATABASE') copies.databaseKeys.set(databaseKeyId(clone.sourceId), databaseKeyId(id))
  await insertReferences(trx, id, prepared.references)
  // The service's advanced settings (src/modules/services/advanced-settings/), as last written.
  await sql`insert into service_advanced_settings (service_id, settings)
    select ${id}::uuid, settings from service_advanced_settings where service_id = ${clone.sourceId}::uuid`.execute(trx)
}

export function createClonesRepository(db: Db, stages: DeploymentStagesRepository) {
  return {
    /**
     * The variables a clone copies: the environment's own (`environmentId`, when given) and the
     * services' own, built-ins left out (the database writes the clone's), with what each alias
     * or override points at.
     */
    async sourceVariables(environmentId: string | null, serviceIds: string[]): Promise<SourceVariable[]> {
      if (environmentId === null && serviceIds.length === 0) return []
      const rows = await db
        .selectFrom('variables as v')
        .leftJoin('variables as t', (join) => join.on(sql<boolean>`t.id = coalesce(v.aliased_variable_id, v.overridden_variable_id)`))
        .selectAll('v')
        .select(['t.id as linkId', 't.projectId as linkProjectId', 't.environmentId as linkEnvironmentId'])
        .select(['t.serviceId as linkServiceId', 't.key as linkKey', 't.variableType as linkType'])
        .where('v.variableType', '<>', 'BUILT_IN')
        .where((eb) =>
          eb.or([
            ...(environmentId === null ? [] : [eb.and([eb('v.environmentId', '=', environmentId), eb('v.serviceId', 'is', null)])]),
            ...(serviceIds.length === 0 ? [] : [eb('v.serviceId', 'in', serviceIds)]),
          ]),
        )
        .orderBy('v.createdAt')
        .orderBy('v.id')
        .execute()
      return rows.map(({ linkId, linkProjectId, linkEnvironmentId, linkServiceId, linkKey, linkType, ...row }) => ({
        ...row,
        link:
          linkId === null
            ? null
            : {
                id: linkId,
                projectId: linkProjectId!,
                environmentId: linkEnvironmentId,
                serviceId: linkServiceId,
                key: linkKey!,
                variableType: linkType!,
              },
      }))
    },

    /**
     * Writes an environment's clone: the environment, its stages in their order, its services each
     * in its stage's copy, their references, variables and job settings. Returns the new
     * environment's id.
     */
    cloneEnvironment(
      environment: { organizationId: string; projectId: string; clusterId: string; name: string; mode: string; autoPreview: boolean },
      sourceStages: { id: string; name: string; description: string | null; position: number }[],
      services: (ServiceClone & { sourceStageId: string })[],
      variables: SourceVariable[],
    ): Promise<string> {
      return db.transaction().execute(async (trx) => {
        const { id: environmentId } = await trx.insertInto('environments').values(environment).returning('id').executeTakeFirstOrThrow()
        const target = { organizationId: environment.organizationId, projectId: environment.projectId, environmentId }
        const stageIds = new Map<string, string>()
        for (const stage of sourceStages) {
          const { id } = await trx
            .insertInto('deploymentStages')
            .values({
              organizationId: target.organizationId,
              environmentId,
              name: stage.name,
              description: stage.description,
              position: stage.position,
            })
            .returning('id')
            .executeTakeFirstOrThrow()
          stageIds.set(stage.id, id)
        }
        const copies: Copies = { services: new Map(), databaseKeys: new Map(), variables: new Map() }
        for (const service of services) {
          const stageId =
            stageIds.get(service.sourceStageId) ?? (await stages.defaultStageId(trx, target.organizationId, environmentId, service.kind))
          await insertService(trx, service, target, stageId, copies)
        }
        await copyVariables(trx, variables, target, copies)
        return environmentId
      })
    },

    /**
     * Writes a service's clone into `target`: into `stageId` when it is a stage there (the source's,
     * cloned into its own environment), else the stage of the same name, else the kind's default
     * stage. Undefined, and nothing written, when the environment holds `perEnvironment` services
     * already: the environment's stages are locked, so clones and creates count one at a time.
     */
    async cloneService(
      clone: ServiceClone,
      target: Target,
      stage: { id: string; name: string },
      variables: SourceVariable[],
      perEnvironment: number,
    ): Promise<string | undefined> {
      try {
        return await db.transaction().execute(async (trx) => {
          const locked = await lockStages(trx, target.environmentId)
          const { count } = await trx
            .selectFrom('services')
            .select((eb) => eb.fn.countAll<string>().as('count'))
            .where('environmentId', '=', target.environmentId)
            .executeTakeFirstOrThrow()
          if (Number(count) >= perEnvironment) throw ENVIRONMENT_FULL
          const same =
            locked.find((candidate) => candidate.id === stage.id) ??
            locked.find((candidate) => candidate.name.toLowerCase() === stage.name.toLowerCase())
          const stageId = same?.id ?? (await stages.defaultStageId(trx, target.organizationId, target.environmentId, clone.kind))
          const copies: Copies = { services: new Map(), databaseKeys: new Map(), variables: new Map() }
          await insertService(trx, { ...clone, deploymentSkipped: same?.id === stage.id && clone.deploymentSkipped }, target, stageId, copies)
          await copyVariables(trx, variables, target, copies)
          return copies.services.get(clone.sourceId)!
        })
      } catch (error) {
        if (error === ENVIRONMENT_FULL) return undefined
        throw error
      }
    },
  }
}

export type ClonesRepository = ReturnType<typeof createClonesRepository>
