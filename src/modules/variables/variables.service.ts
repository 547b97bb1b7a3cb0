import type { CheckedScope } from '#src/modules/organizations/organizations.service.ts'
import type { RequireService } from '#src/modules/services/require-service.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import { violatedForeignKey, withUniqueName } from '#src/platform/db/errors.ts'
import { AppError, type FieldError, notFound, validationFailed } from '#src/platform/http/errors.ts'
import { asNotFound } from '#src/platform/http/not-found.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { type ResolvedVariables, resolveServiceVariables } from './resolved-variables.ts'
import { keyErrors, mountPathErrors, type VariableLimits, valueErrors } from './variable-rules.ts'
import type { NewVariable, ResolvableVariable, VariableChanges, VariablesRepository } from './variables.repository.ts'
import { isVisibleFrom, levelOf, type ParentScope, type ScopeTarget, type ServiceScope, type VariableRecord } from './variables.types.ts'

// Variables and secrets of projects, environments and services: one store behind the generic
// `/variable` API and the per-scope ones (docs/variables.md, "Variables and secrets").

export interface VariablesDeps {
  repo: VariablesRepository
  secrets: SecretBox
  limits: VariableLimits
  /** The organizations service's `requireScoped`: the role held where the resource lies (a custom role grants per environment). */
  requireScopedRole(principal: Principal, organizationId: string, scope: CheckedScope, needed: Role): Promise<Role>
  requireProject(principal: Principal, projectId: string, needed: Role): Promise<{ project: { id: string; organizationId: string } }>
  requireEnvironment(
    principal: Principal,
    environmentId: string,
    needed: Role,
  ): Promise<{ environment: { id: string; organizationId: string; projectId: string } }>
  requireService: RequireService
}

/** A variable or secret as created. */
export interface VariableInput {
  key: string
  value: string
  isSecret: boolean
  mountPath: string | null
  description: string | null
  enableInterpolationInFile: boolean | null
}

/** An edit: what is absent is kept; a description given as null is cleared. */
export interface VariableEdit {
  key: string
  value?: string | null | undefined
  mountPath?: string | null | undefined
  description?: string | null | undefined
  enableInterpolationInFile?: boolean | null | undefined
}

/** What an alias or an override adds beyond the variable it points at. */
export interface LinkInput {
  description: string | null
  enableInterpolationInFile: boolean | null
}

/** Where a per-scope route expects the variable it names: in its scope, a secret or not. */
export interface Expectation {
  target: ScopeTarget
  isSecret: boolean
}

/** A variable of an import (VariableImportRequest's `vars`). */
export interface ImportedVariable {
  name: string
  value: string
  scope: string
  isSecret: boolean
}

export interface ImportResult {
  total: number
  imported: { name: string; value: string | null; scope: string; isSecret: boolean }[]
}

/** How errors name a scope: "project", "application". */
const scopeNoun = (scope: ParentScope): string => scope.toLowerCase()

const keyTaken = (key: string, target: ScopeTarget) =>
  new AppError('conflict', `a variable named "${key}" already exists in this ${scopeNoun(target.scope)}; edit it or choose another key`)

/** How errors name a variable: as the route that names it does. */
const nounOf = (isSecret?: boolean) => (isSecret === undefined ? 'variable' : isSecret ? 'secret' : 'environment variable')

/** The bytes a stored value takes in its scope's budget. */
const storedBytes = (variable: ResolvableVariable) =>
  variable.isSecret ? (variable.valueSealed?.length ?? 0) : Buffer.byteLength(variable.value ?? '')

/** A row to insert: what `row` says, nothing for the rest. */
const newRow = (row: Pick<NewVariable, 'variableType' | 'key' | 'isSecret'> & Partial<NewVariable>): NewVariable => ({
  value: null,
  valueSealed: null,
  mountPath: null,
  description: null,
  enableInterpolationInFile: null,
  aliasedVariableId: null,
  overriddenVariableId: null,
  ...row,
})

/** How a message names a variable of that type. */
const TYPE_NOUN: Record<string, string> = { ALIAS: 'an alias', OVERRIDE: 'an override', BUILT_IN: 'a built-in variable' }

const badRequest = (path: string, message: string) => validationFailed([{ path, message, location: 'body' }])

/** A byte count for people. */
const bytesText = (bytes: number) => (bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${Math.round(bytes / 1024)} KiB`)

export function createVariablesService(deps: VariablesDeps) {
  const { repo, secrets, limits } = deps

  /** The project, environment or service a variable lives in, if the principal holds `needed` in its organization. */
  async function locate(principal: Principal, scope: ParentScope, parentId: string, needed: Role): Promise<ScopeTarget> {
    if (scope === 'PROJECT') {
      const { project } = await deps.requireProject(principal, parentId, needed)
      return { scope, parentId, organizationId: project.organizationId, projectId: project.id, environmentId: null, serviceId: null }
    }
    if (scope === 'ENVIRONMENT') {
      const { environment } = await deps.requireEnvironment(principal, parentId, needed)
      return {
        scope,
        parentId,
        organizationId: environment.organizationId,
        projectId: environment.projectId,
        environmentId: environment.id,
        serviceId: null,
      }
    }
    const { service } = await deps.requireService(principal, parentId, needed, scope)
    const { environment } = await deps.requireEnvironment(principal, service.environmentId, 'READ').catch(asNotFound(scopeNoun(scope)))
    return {
      scope,
      parentId,
      organizationId: service.organizationId,
      projectId: environment.projectId,
      environmentId: environment.id,
      serviceId: service.id,
    }
  }

  /**
   * A variable the principal holds `needed` for, a secret or not as `isSecret` asks when it does;
   * 404 as for a variable that does not exist otherwise.
   */
  async function accessibleVariable(principal: Principal, variableId: string, needed: Role, isSecret?: boolean): Promise<ResolvableVariable> {
    const noun = nounOf(isSecret)
    const variable = await repo.findById(variableId)
    if (!variable) throw notFound(noun)
    const scope: CheckedScope = variable.environmentId
      ? { kind: 'environmentId', environmentId: variable.environmentId }
      : variable.projectId
        ? { kind: 'project', projectId: variable.projectId }
        : { kind: 'organization' }
    await deps.requireScopedRole(principal, variable.organizationId, scope, needed).catch(asNotFound(noun))
    if (isSecret !== undefined && variable.isSecret !== isSecret) throw notFound(noun)
    return variable
  }

  /** A variable to change: accessible, and in the scope a per-scope route names. */
  async function requireVariable(principal: Principal, variableId: string, needed: Role, expected?: Expectation): Promise<ResolvableVariable> {
    const variable = await accessibleVariable(principal, variableId, needed, expected?.isSecret)
    const target = expected?.target
    if (
      target &&
      !(variable.projectId === target.projectId && variable.environmentId === target.environmentId && variable.serviceId === target.serviceId)
    ) {
      throw notFound(nounOf(expected.isSecret))
    }
    return variable
  }

  /** Refuses a write that would take the scope past its limits. */
  function checkUsage(target: ScopeTarget, usage: { count: number; bytes: number }, added: { count: number; bytes: number }) {
    const noun = scopeNoun(target.scope)
    if (usage.count + added.count > limits.perScope) {
      throw new AppError(
        'conflict',
        `this ${noun} holds ${usage.count} variables, and at most ${limits.perScope} are allowed (BERTH_VARIABLES_PER_SCOPE)`,
      )
    }
    if (usage.bytes + added.bytes > limits.bytesPerScope) {
      throw new AppError(
        'conflict',
        `the values of this ${noun} would take more than ${bytesText(limits.bytesPerScope)} (BERTH_VARIABLE_BYTES_PER_SCOPE); a scope's variables are delivered together`,
      )
    }
  }

  /** A value as stored: in the clear, or sealed when it is a secret's. */
  const stored = (value: string, isSecret: boolean) =>
    isSecret ? { value: null, valueSealed: secrets.seal(value) } : { value, valueSealed: null as Buffer | null }

  /** A write that lost a race with the delete of its scope, or of the variable it points at: 404. */
  const whenGone = (target: ScopeTarget, linked?: string) => (error: unknown) => {
    const constraint = violatedForeignKey(error)
    if (constraint === undefined) throw error
    throw notFound(/aliased|overridden/.test(constraint) && linked ? linked : scopeNoun(target.scope))
  }

  /** Inserts a variable in its locked scope, within the scope's limits; a taken key is 409. */
  async function insert(target: ScopeTarget, variable: NewVariable, bytes: number): Promise<VariableRecord> {
    const id = await withUniqueName(
      'variables_key',
      () => keyTaken(variable.key, target),
      () =>
        repo.withScopeLocked(target, async (trx) => {
          if (await repo.findInScope(trx, target, variable.key)) throw keyTaken(variable.key, target)
          checkUsage(target, await repo.usage(trx, target), { count: 1, bytes })
          return repo.insert(trx, target, variable)
        }),
    ).catch(whenGone(target, 'variable'))
    return (await repo.findById(id))!
  }

  function inputErrors(input: { key: string; value: string; mountPath: string | null }): FieldError[] {
    return [
      ...keyErrors(input.key, '/key'),
      ...valueErrors(input.value, '/value'),
      ...(input.mountPath === null ? [] : mountPathErrors(input.mountPath, '/mount_path')),
    ]
  }

  async function create(target: ScopeTarget, input: VariableInput): Promise<VariableRecord> {
    const errors = inputErrors(input)
    if (errors.length > 0) throw validationFailed(errors)
    return insert(
      target,
      newRow({
        variableType: input.mountPath === null ? 'VALUE' : 'FILE',
        key: input.key,
        ...stored(input.value, input.isSecret),
        isSecret: input.isSecret,
        mountPath: input.mountPath,
        description: input.description,
        enableInterpolationInFile: input.enableInterpolationInFile,
      }),
      Buffer.byteLength(input.value),
    )
  }

  return {
    locate,

    /** What each of the environment's services deploys with now (for triggers, which checked access). */
    async resolveForDeployment(environmentId: string, serviceIds: string[]): Promise<Map<string, ResolvedVariables>> {
      if (serviceIds.length === 0) return new Map()
      const rows = await repo.resolvableInEnvironment(environmentId)
      return new Map(serviceIds.map((serviceId) => [serviceId, resolveServiceVariables(rows, serviceId)]))
    },

    /** What the scope sees: its own variables and its parents', built-ins included. */
    async list(principal: Principal, scope: ParentScope, parentId: string, isSecret?: boolean): Promise<VariableRecord[]> {
      return repo.visibleFrom(await locate(principal, scope, parentId, 'READ'), isSecret)
    },

    async create(principal: Principal, scope: ParentScope, parentId: string, input: VariableInput): Promise<VariableRecord> {
      return create(await locate(principal, scope, parentId, 'WRITE'), input)
    },

    /**
     * Edits a variable (reference editVariable): a built-in cannot be edited, an override's key is
     * its parent's, an alias's value is its target's key. A secret's value is replaced, never read.
     */
    async edit(principal: Principal, variableId: string, edit: VariableEdit, expected?: Expectation): Promise<VariableRecord> {
      const variable = await requireVariable(principal, variableId, 'WRITE', expected)
      const errors: FieldError[] = []
      if (variable.variableType === 'BUILT_IN') throw badRequest('', 'a BUILT_IN variable cannot be edited')
      if (variable.variableType === 'OVERRIDE' && edit.key !== variable.key) {
        errors.push({ path: '/key', message: `an override keeps the key of the variable it overrides (${variable.key})`, location: 'body' })
      } else if (edit.key !== variable.key) errors.push(...keyErrors(edit.key, '/key'))
      const value = edit.value ?? undefined
      if (variable.variableType === 'ALIAS' && value !== undefined && value !== variable.aliased?.key) {
        errors.push({ path: '/value', message: `an alias has the value of the variable it aliases (${variable.aliased?.key})`, location: 'body' })
      }
      if (value !== undefined) errors.push(...valueErrors(value, '/value'))
      const mountPath = edit.mountPath ?? undefined
      if (mountPath !== undefined && variable.variableType !== 'FILE' && variable.variableType !== 'VALUE') {
        errors.push({ path: '/mount_path', message: `cannot be set on ${TYPE_NOUN[variable.variableType]}`, location: 'body' })
      } else if (mountPath !== undefined) errors.push(...mountPathErrors(mountPath, '/mount_path'))
      if (errors.length > 0) throw validationFailed(errors)

      const changes: VariableChanges = { key: edit.key }
      if (value !== undefined && variable.variableType !== 'ALIAS') Object.assign(changes, stored(value, variable.isSecret))
      if (mountPath !== undefined) Object.assign(changes, { mountPath, variableType: 'FILE' })
      if (edit.description !== undefined) changes.description = edit.description
      if (edit.enableInterpolationInFile !== undefined) changes.enableInterpolationInFile = edit.enableInterpolationInFile
      const target: ScopeTarget = {
        scope: variable.scope as ParentScope,
        parentId: variable.serviceId ?? variable.environmentId ?? variable.projectId,
        organizationId: variable.organizationId,
        projectId: variable.projectId,
        environmentId: variable.environmentId,
        serviceId: variable.serviceId,
      }
      await withUniqueName(
        'variables_key',
        () => keyTaken(edit.key, target),
        () =>
          repo.withScopeLocked(target, async (trx) => {
            if (!(await repo.findById(variable.id, trx))) throw notFound(nounOf(expected?.isSecret))
            if (value !== undefined && variable.variableType !== 'ALIAS') {
              checkUsage(target, await repo.usage(trx, target), { count: 0, bytes: Buffer.byteLength(value) - storedBytes(variable) })
            }
            await repo.update(trx, variable.id, changes)
          }),
      )
      return (await repo.findById(variable.id))!
    },

    /**
     * The service-scoped aliases and overrides in the environment of a built-in whose key starts with
     * `keyPrefix` (a database's: its services' links to it); for callers that checked access there.
     */
    async builtInLinks(environmentId: string, keyPrefix: string): Promise<{ id: string; serviceId: string; key: string; linkedKey: string }[]> {
      return (await repo.resolvableInEnvironment(environmentId)).flatMap((variable) => {
        const linked = variable.aliased ?? variable.overridden
        const isLink = variable.variableType === 'ALIAS' || variable.variableType === 'OVERRIDE'
        if (!isLink || variable.serviceId === null || variable.environmentId !== environmentId) return []
        if (linked?.variableType !== 'BUILT_IN' || !linked.key.startsWith(keyPrefix)) return []
        return [{ id: variable.id, serviceId: variable.serviceId, key: variable.key, linkedKey: linked.key }]
      })
    },

    /** Deletes variables `builtInLinks` listed; for callers that checked WRITE where they lie. */
    async deleteLinks(variableIds: readonly string[]): Promise<void> {
      for (const variableId of variableIds) await repo.delete(variableId)
    },

    /** Deletes a variable; its aliases and overrides go with it (as the reference's clients expect). */
    async delete(principal: Principal, variableId: string, expected?: Expectation): Promise<void> {
      const variable = await requireVariable(principal, variableId, 'WRITE', expected)
      if (variable.variableType === 'BUILT_IN') throw badRequest('', 'a BUILT_IN variable cannot be deleted')
      if (!(await repo.delete(variable.id))) throw notFound(nounOf(expected?.isSecret))
    },

    /**
     * Another name, in `scope`, for a variable that scope sees (its own or a parent's). It has the
     * aliased variable's value and secrecy; an alias of an alias is refused.
     */
    async createAlias(
      principal: Principal,
      variableId: string,
      key: string,
      link: LinkInput,
      scope: ParentScope,
      parentId: string,
      isSecret?: boolean,
    ): Promise<VariableRecord> {
      const target = await locate(principal, scope, parentId, 'WRITE')
      const aliased = await accessibleVariable(principal, variableId, 'READ', isSecret)
      if (aliased.variableType === 'ALIAS') throw badRequest('', 'an alias cannot be aliased; alias the variable it aliases')
      if (!isVisibleFrom(aliased, target)) {
        throw badRequest('', 'an alias is created in the scope of the variable it aliases or in a scope below it (project > environment > service)')
      }
      const errors = keyErrors(key, '/key')
      if (errors.length > 0) throw validationFailed(errors)
      return insert(
        target,
        newRow({
          variableType: 'ALIAS',
          key,
          isSecret: aliased.isSecret,
          description: link.description,
          enableInterpolationInFile: link.enableInterpolationInFile,
          aliasedVariableId: aliased.id,
        }),
        0,
      )
    },

    /**
     * A value that replaces, in `scope`, the value of a variable of a parent scope: same key, same
     * secrecy, same mount path.
     */
    async createOverride(
      principal: Principal,
      variableId: string,
      value: string,
      link: LinkInput,
      scope: ParentScope,
      parentId: string,
      isSecret?: boolean,
    ): Promise<VariableRecord> {
      const target = await locate(principal, scope, parentId, 'WRITE')
      const overridden = await accessibleVariable(principal, variableId, 'READ', isSecret)
      if (overridden.variableType !== 'VALUE' && overridden.variableType !== 'FILE') {
        throw badRequest('', `only a variable's own value can be overridden, not ${TYPE_NOUN[overridden.variableType]}'s`)
      }
      if (!isVisibleFrom(overridden, target) || levelOf(overridden) >= levelOf(target)) {
        throw badRequest('', 'an override is created in a scope below the variable it overrides (project > environment > service)')
      }
      const errors = valueErrors(value, '/value')
      if (errors.length > 0) throw validationFailed(errors)
      return insert(
        target,
        newRow({
          variableType: 'OVERRIDE',
          key: overridden.key,
          ...stored(value, overridden.isSecret),
          isSecret: overridden.isSecret,
          mountPath: overridden.mountPath,
          description: link.description,
          enableInterpolationInFile: link.enableInterpolationInFile,
          overriddenVariableId: overridden.id,
        }),
        Buffer.byteLength(value),
      )
    },

    /**
     * Imports variables into a service's scopes (reference importEnvironmentVariables): each goes to
     * the service, its environment or its project as its `scope` says. Without `overwrite` a key
     * the scope already has is left as it is; with it, a plain variable of that key and the same
     * secrecy takes the new value (an import never turns a secret into a variable or back). All or
     * nothing: one invalid entry refuses the whole import.
     */
    async import(
      principal: Principal,
      serviceScope: ServiceScope,
      serviceId: string,
      request: { overwrite: boolean; vars: ImportedVariable[] },
    ): Promise<ImportResult> {
      const service = await locate(principal, serviceScope, serviceId, 'WRITE')
      const targets: Partial<Record<string, ScopeTarget>> = {
        [serviceScope]: service,
        ENVIRONMENT: { ...service, scope: 'ENVIRONMENT', parentId: service.environmentId!, serviceId: null },
        PROJECT: { ...service, scope: 'PROJECT', parentId: service.projectId, environmentId: null, serviceId: null },
      }
      const errors: FieldError[] = []
      const seen = new Set<string>()
      request.vars.forEach((entry, index) => {
        if (!targets[entry.scope]) {
          errors.push({
            path: `/vars/${index}/scope`,
            message: `must be PROJECT, ENVIRONMENT or ${serviceScope} for this ${scopeNoun(serviceScope)}`,
            location: 'body',
          })
        }
        errors.push(...keyErrors(entry.name, `/vars/${index}/name`), ...valueErrors(entry.value, `/vars/${index}/value`))
        const id = `${entry.scope}:${entry.name}`
        if (seen.has(id)) errors.push({ path: `/vars/${index}/name`, message: 'is given twice for this scope', location: 'body' })
        seen.add(id)
      })
      if (errors.length > 0) throw validationFailed(errors)

      const imported: ImportResult['imported'] = []
      for (const scope of ['PROJECT', 'ENVIRONMENT', serviceScope]) {
        const target = targets[scope]!
        const entries = request.vars.filter((entry) => entry.scope === scope)
        if (entries.length === 0) continue
        await withUniqueName(
          'variables_key',
          () => new AppError('conflict', 'a variable of this import was created by another request meanwhile; import again'),
          () =>
            repo.withScopeLocked(target, async (trx) => {
              const usage = await repo.usage(trx, target)
              for (const entry of entries) {
                const existing = await repo.findInScope(trx, target, entry.name)
                const overwritable = existing?.variableType === 'VALUE' && existing.isSecret === entry.isSecret
                if (existing && !(request.overwrite && overwritable)) continue
                const bytes = Buffer.byteLength(entry.value)
                const before = existing ? storedBytes(existing) : 0
                checkUsage(target, usage, { count: existing ? 0 : 1, bytes: bytes - before })
                usage.count += existing ? 0 : 1
                usage.bytes += bytes - before
                if (existing) await repo.update(trx, existing.id, stored(entry.value, entry.isSecret))
                else
                  await repo.insert(
                    trx,
                    target,
                    newRow({ variableType: 'VALUE', key: entry.name, ...stored(entry.value, entry.isSecret), isSecret: entry.isSecret }),
                  )
                imported.push({ name: entry.name, value: entry.isSecret ? null : entry.value, scope, isSecret: entry.isSecret })
              }
            }),
        ).catch(whenGone(target))
      }
      return { total: request.vars.length, imported }
    },
  }
}

export type VariablesService = ReturnType<typeof createVariablesService>
