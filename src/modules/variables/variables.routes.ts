import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { conflictResponse } from '#src/platform/http/common-schemas.ts'
import { asContractKind } from '#src/platform/http/enum-words/enum-word-pairs.ts'
import { validationFailed } from '#src/platform/http/errors.ts'
import {
  ImportQuery,
  ListVariablesQuery,
  VariableAliasRequest,
  VariableEditRequest,
  VariableImport,
  VariableImportRequest,
  VariableOverrideRequest,
  VariableParams,
  VariableRequest,
  VariableResponse,
  VariableResponseList,
  type VariableScopeWord,
} from './variables.schemas.ts'
import type { VariablesService } from './variables.service.ts'
import { isServiceScope, listedWords, type ParentScope, type ServiceScope } from './variables.types.ts'
import { asParentScope, importInput, linkInput, toVariableImport, toVariableResponse } from './variables.wire.ts'

// The generic variables API (reference tag "Variable Main Calls"): what the CLI and the Terraform
// provider call for every scope.

const tags = ['Variable Main Calls']

const CONFLICTS = conflictResponse('the key is taken in the scope, or the scope is at its limits')

/** A scope variables may be created in (the project, the environment, `scopes`); 400 at `path` for BUILT_IN and the kinds Berth does not serve. */
function parentScope(scopes: readonly ServiceScope[], scope: VariableScopeWord, path: string, location: 'body' | 'query'): ParentScope {
  const parent = asParentScope(scopes, scope)
  if (!parent) {
    throw validationFailed([
      { path, message: `must be ${listedWords(['PROJECT', 'ENVIRONMENT', ...scopes])} (${scope} holds no variables here)`, location },
    ])
  }
  return parent
}

const noSecretManager = (id: string | null | undefined, path: string) => {
  if (id) throw validationFailed([{ path, message: 'external secret managers are not supported: leave it out or null', location: 'body' }])
}

/** `scopes`: the kinds whose services hold variables (`features.variables`), in the order errors list them. */
export function variablesRoutes(variables: VariablesService, scopes: readonly ServiceScope[]): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/variable',
      {
        schema: {
          operationId: 'listVariables',
          summary: 'List variables',
          description:
            'What the scope sees: its own variables and those of the scopes above it (project > environment > service), built-in ones included; parents first, then by key. Secret values are never returned.',
          tags,
          querystring: ListVariablesQuery,
          response: { 200: VariableResponseList },
        },
      },
      async (req) => {
        const scope = parentScope(scopes, req.query.scope, '/scope', 'query')
        const list = await variables.list(req.principal, scope, req.query.parent_id, req.query.is_secret)
        return { results: list.map(toVariableResponse) }
      },
    )

    app.post(
      '/variable',
      {
        schema: {
          operationId: 'createVariable',
          summary: 'Create a variable',
          description: 'Needs the WRITE role. A `mount_path` makes it a file variable.',
          tags,
          body: VariableRequest,
          response: { 201: VariableResponse, ...CONFLICTS },
        },
      },
      async (req, reply) => {
        const { body } = req
        const scope = parentScope(scopes, body.variable_scope, '/variable_scope', 'body')
        noSecretManager(body.secret_manager_access_id, '/secret_manager_access_id')
        const created = await variables.create(req.principal, scope, body.variable_parent_id, {
          key: body.key,
          value: body.value,
          isSecret: body.is_secret,
          mountPath: body.mount_path ?? null,
          description: body.description ?? null,
          enableInterpolationInFile: body.enable_interpolation_in_file ?? null,
        })
        return reply.code(201).send(toVariableResponse(created))
      },
    )

    app.put(
      '/variable/:variableId',
      {
        schema: {
          operationId: 'editVariable',
          summary: 'Edit a variable',
          description:
            "Needs the WRITE role. A BUILT_IN variable cannot be edited; an override keeps its parent's key; an alias's value is its target's key. An absent or null value keeps the value (a secret's included).",
          tags,
          params: VariableParams,
          body: VariableEditRequest,
          response: { 200: VariableResponse, ...CONFLICTS },
        },
      },
      async (req) => {
        noSecretManager(req.body.secret_manager_access_id, '/secret_manager_access_id')
        const { key, value, description, enable_interpolation_in_file } = req.body
        const edited = await variables.edit(req.principal, req.params.variableId, {
          key,
          value,
          description,
          enableInterpolationInFile: enable_interpolation_in_file,
        })
        return toVariableResponse(edited)
      },
    )

    app.delete(
      '/variable/:variableId',
      {
        schema: {
          operationId: 'deleteVariable',
          summary: 'Delete a variable',
          description: 'Needs the WRITE role. Its aliases and overrides are deleted with it. A BUILT_IN variable cannot be deleted.',
          tags,
          params: VariableParams,
        },
      },
      async (req, reply) => {
        await variables.delete(req.principal, req.params.variableId)
        return reply.code(204).send()
      },
    )

    app.post(
      '/variable/:variableId/alias',
      {
        schema: {
          operationId: 'createVariableAlias',
          summary: 'Create a variable alias',
          description:
            "Needs the WRITE role. Another name, in `alias_scope`, for a variable that scope sees (its own or a parent scope's). An alias of an alias is refused.",
          tags,
          params: VariableParams,
          body: VariableAliasRequest,
          response: { 201: VariableResponse, ...CONFLICTS },
        },
      },
      async (req, reply) => {
        const { body } = req
        const scope = parentScope(scopes, body.alias_scope, '/alias_scope', 'body')
        const alias = await variables.createAlias(req.principal, req.params.variableId, body.key, linkInput(body), scope, body.alias_parent_id)
        return reply.code(201).send(toVariableResponse(alias))
      },
    )

    app.post(
      '/variable/:variableId/override',
      {
        schema: {
          operationId: 'createVariableOverride',
          summary: 'Create a variable override',
          description: 'Needs the WRITE role. Replaces, in `override_scope`, the value of a variable of a scope above it.',
          tags,
          params: VariableParams,
          body: VariableOverrideRequest,
          response: { 201: VariableResponse, ...CONFLICTS },
        },
      },
      async (req, reply) => {
        const { body } = req
        const scope = parentScope(scopes, body.override_scope, '/override_scope', 'body')
        const override = await variables.createOverride(
          req.principal,
          req.params.variableId,
          body.value,
          linkInput(body),
          scope,
          body.override_parent_id,
        )
        return reply.code(201).send(toVariableResponse(override))
      },
    )

    app.post(
      '/variable/import',
      {
        schema: {
          operationId: 'importEnvironmentVariables',
          summary: 'Import variables',
          description:
            'Needs the WRITE role. Each variable goes to the service, its environment or its project, as its `scope` says. Without `overwrite` a key the scope has is left alone; with it, a plain variable of the same key and secrecy takes the new value. One invalid entry refuses the whole import.',
          tags,
          querystring: ImportQuery,
          body: VariableImportRequest,
          response: { 201: VariableImport, ...CONFLICTS },
        },
      },
      async (req, reply) => {
        // The reference's word for a kind (TERRAFORM) is its alias.
        const type = asContractKind(req.query.service_type)
        if (!isServiceScope(scopes, type)) {
          throw validationFailed([{ path: '/service_type', message: `must be ${listedWords(scopes)}`, location: 'query' }])
        }
        const result = await variables.import(req.principal, type, req.query.service_id, importInput(req.body))
        return reply.code(201).send(toVariableImport(result))
      },
    )
  }
}
