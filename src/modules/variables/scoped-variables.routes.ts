import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { conflictResponse, Uuid } from '#src/platform/http/common-schemas.ts'
import {
  AliasRequest,
  EnvironmentVariable,
  EnvironmentVariableEditRequest,
  EnvironmentVariableRequest,
  listOf,
  OverrideRequest,
  Secret,
  SecretEditRequest,
  SecretRequest,
  VariableImport,
  VariableImportRequest,
} from './variables.schemas.ts'
import type { VariablesService } from './variables.service.ts'
import type { ParentScope, ServiceScope } from './variables.types.ts'
import { importInput, linkInput, toEnvironmentVariable, toSecret, toVariableImport } from './variables.wire.ts'

// The per-scope variables APIs (reference tags "Project Environment Variable", "Application
// Secret"…): the same store as `/variable`, reached through the project, environment, application,
// container or job that holds the variables. Helm services have only the generic API, as in the reference.

interface Scope {
  scope: ParentScope
  /** The path's first segment and its id parameter. */
  segment: string
  param: string
  /** How operation ids and tags name the scope. */
  word: string
  /** The operation id of the scope's import, for the service kinds that have one. */
  importOperation?: string
}

/** The project and environment scopes, then a scope for each of `kinds` (those whose descriptor has `features.scopedVariables`). */
/** What these routes read of a kind's descriptor (services/kind-descriptor.ts): its routes, name and import. */
export interface ScopedVariablesKind {
  routes: { type: string; segment: string; param: string }
  names: { name: string }
  features: { scopedVariables?: { importOperation: string } }
}

const scopesOf = (kinds: readonly ScopedVariablesKind[]): Scope[] => [
  { scope: 'PROJECT', segment: 'project', param: 'projectId', word: 'Project' },
  { scope: 'ENVIRONMENT', segment: 'environment', param: 'environmentId', word: 'Environment' },
  ...kinds.map(({ routes, names, features }) => ({
    // A kind with scoped variables is one of the reference's service scopes (variables.types.ts).
    scope: routes.type as ServiceScope,
    segment: routes.segment,
    param: routes.param,
    word: names.name,
    importOperation: features.scopedVariables!.importOperation,
  })),
]

/** Variables or secrets: their path segment, id parameter, words and shapes. */
const FAMILIES = [
  {
    isSecret: false,
    segment: 'environmentVariable',
    idParam: 'environmentVariableId',
    word: 'EnvironmentVariable',
    listWord: 'EnvironmentVariable',
    tag: 'Environment Variable',
    item: EnvironmentVariable,
    list: listOf(EnvironmentVariable, 'EnvironmentVariableResponseList'),
    request: EnvironmentVariableRequest,
    editRequest: EnvironmentVariableEditRequest,
    wire: toEnvironmentVariable,
  },
  {
    isSecret: true,
    segment: 'secret',
    idParam: 'secretId',
    word: 'Secret',
    listWord: 'Secrets',
    tag: 'Secret',
    item: Secret,
    list: listOf(Secret, 'SecretResponseList'),
    request: SecretRequest,
    editRequest: SecretEditRequest,
    wire: toSecret,
  },
] as const

const CONFLICTS = conflictResponse('the key is taken in the scope, or the scope is at its limits')

type Body = {
  key: string
  value?: string | undefined
  mount_path?: string | null | undefined
  description?: string | null | undefined
  enable_interpolation_in_file?: boolean | null | undefined
}

export function scopedVariablesRoutes(variables: VariablesService, kinds: readonly ScopedVariablesKind[]): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const { scope, segment, param, word, importOperation } of scopesOf(kinds)) {
      const ScopeParams = Type.Object({ [param]: Uuid })
      const parentOf = (params: unknown) => (params as Record<string, string>)[param]!

      for (const family of FAMILIES) {
        const { isSecret, idParam } = family
        const base = `/${segment}/:${param}/${family.segment}`
        const tags = [`${word} ${family.tag}`]
        const ItemParams = Type.Object({ [param]: Uuid, [idParam]: Uuid })
        const idOf = (params: unknown) => (params as Record<string, string>)[idParam]!
        const noun = isSecret ? 'secret' : 'variable'
        const expect = async (principal: Parameters<VariablesService['locate']>[0], params: unknown) => ({
          target: await variables.locate(principal, scope, parentOf(params), 'WRITE'),
          isSecret,
        })

        app.get(
          base,
          {
            schema: {
              operationId: `list${word}${family.listWord}`,
              summary: `List ${word.toLowerCase()} ${noun}s`,
              description: `What the ${word.toLowerCase()} sees: its own ${noun}s and those of the scopes above it, built-in ones included.${isSecret ? ' Values are never returned.' : ''}`,
              tags,
              params: ScopeParams,
              response: { 200: family.list },
            },
          },
          async (req) => ({ results: (await variables.list(req.principal, scope, parentOf(req.params), isSecret)).map((v) => family.wire(v)) }),
        )

        app.post(
          base,
          {
            schema: {
              operationId: `create${word}${family.word}`,
              summary: `Add a ${noun} to the ${word.toLowerCase()}`,
              description: 'Needs the WRITE role. A `mount_path` makes it a file; an absent value is empty.',
              tags,
              params: ScopeParams,
              body: family.request,
              response: { 201: family.item, ...CONFLICTS },
            },
          },
          async (req, reply) => {
            const body = req.body as Body
            const created = await variables.create(req.principal, scope, parentOf(req.params), {
              key: body.key,
              value: body.value ?? '',
              isSecret,
              mountPath: body.mount_path ?? null,
              description: body.description ?? null,
              enableInterpolationInFile: body.enable_interpolation_in_file ?? null,
            })
            return reply.code(201).send(family.wire(created))
          },
        )

        app.put(
          `${base}/:${idParam}`,
          {
            schema: {
              operationId: `edit${word}${family.word}`,
              summary: `Edit a ${noun} of the ${word.toLowerCase()}`,
              description: `Needs the WRITE role. An absent value is kept.${isSecret ? ' The value is replaced, never read.' : ''}`,
              tags,
              params: ItemParams,
              body: family.editRequest,
              response: { 200: family.item, ...CONFLICTS },
            },
          },
          async (req) => {
            const body = req.body as Body
            const edited = await variables.edit(
              req.principal,
              idOf(req.params),
              {
                key: body.key,
                value: body.value,
                mountPath: body.mount_path,
                description: body.description,
                enableInterpolationInFile: body.enable_interpolation_in_file,
              },
              await expect(req.principal, req.params),
            )
            return family.wire(edited)
          },
        )

        app.delete(
          `${base}/:${idParam}`,
          {
            schema: {
              operationId: `delete${word}${family.word}`,
              summary: `Delete a ${noun} of the ${word.toLowerCase()}`,
              description: 'Needs the WRITE role. Its aliases and overrides are deleted with it.',
              tags,
              params: ItemParams,
            },
          },
          async (req, reply) => {
            await variables.delete(req.principal, idOf(req.params), await expect(req.principal, req.params))
            return reply.code(204).send()
          },
        )

        app.post(
          `${base}/:${idParam}/override`,
          {
            schema: {
              operationId: `create${word}${family.word}Override`,
              summary: `Override a ${noun} in the ${word.toLowerCase()}`,
              description: `Needs the WRITE role. Replaces, in this ${word.toLowerCase()}, the value of a ${noun} of a scope above it.`,
              tags,
              params: ItemParams,
              body: OverrideRequest,
              response: { 201: family.item, ...CONFLICTS },
            },
          },
          async (req, reply) => {
            const { body } = req
            const override = await variables.createOverride(
              req.principal,
              idOf(req.params),
              body.value ?? '',
              linkInput(body),
              scope,
              parentOf(req.params),
              isSecret,
            )
            return reply.code(201).send(family.wire(override))
          },
        )

        app.post(
          `${base}/:${idParam}/alias`,
          {
            schema: {
              operationId: `create${word}${family.word}Alias`,
              summary: `Alias a ${noun} in the ${word.toLowerCase()}`,
              description: `Needs the WRITE role. Another name, in this ${word.toLowerCase()}, for a ${noun} it sees.`,
              tags,
              params: ItemParams,
              body: AliasRequest,
              response: { 201: family.item, ...CONFLICTS },
            },
          },
          async (req, reply) => {
            const { body } = req
            const alias = await variables.createAlias(
              req.principal,
              idOf(req.params),
              body.key,
              linkInput(body),
              scope,
              parentOf(req.params),
              isSecret,
            )
            return reply.code(201).send(family.wire(alias))
          },
        )
      }

      if (importOperation) {
        app.post(
          `/${segment}/:${param}/environmentVariable/import`,
          {
            schema: {
              operationId: importOperation,
              summary: 'Import variables',
              description: `Needs the WRITE role. As \`importEnvironmentVariables\` for this ${word.toLowerCase()}.`,
              tags: [`${word} Environment Variable`],
              params: ScopeParams,
              body: VariableImportRequest,
              response: { 201: VariableImport, ...CONFLICTS },
            },
          },
          async (req, reply) => {
            const { body } = req
            const result = await variables.import(req.principal, scope as ServiceScope, parentOf(req.params), importInput(body))
            return reply.code(201).send(toVariableImport(result))
          },
        )
      }
    }
  }
}
