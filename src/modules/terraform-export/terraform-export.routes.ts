import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { EnvironmentsService } from '#src/modules/environments/environments.service.ts'
import type { ServiceRecord } from '#src/modules/services/service-kinds.ts'
import type { VariableRecord } from '#src/modules/variables/variables.types.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import { Uuid } from '#src/platform/http/common-schemas.ts'
import { type ExportedVariable, terraformConfiguration } from './terraform-configuration.ts'
import { zipArchive } from './zip-archive.ts'

// exportEnvironmentConfigurationIntoTerraform: the environment read through the API's own services
// (its stages, each service as its kind answers it, the variables of each scope), written as
// Terraform configuration (terraform-configuration.ts), answered as the reference does: a ZIP.

export interface TerraformExportDeps {
  environments: Pick<EnvironmentsService, 'requireEnvironment'>
  listStages(environmentId: string): Promise<{ id: string; name: string; description: string | null; services: { id: string }[] }[]>
  listServices(organizationId: string, environmentId: string): Promise<ServiceRecord[]>
  /** The service as its kind's get answers it (READ checked again). */
  serviceAnswer(principal: Principal, service: ServiceRecord): Promise<Record<string, unknown>>
  /** The variables a scope sees (READ checked); the export keeps the scope's own values, files and secrets. */
  listVariables(principal: Principal, scope: string, parentId: string): Promise<VariableRecord[]>
}

const own = (variables: VariableRecord[], owns: (variable: VariableRecord) => boolean): ExportedVariable[] =>
  variables
    .filter((variable) => owns(variable) && (variable.variableType === 'VALUE' || variable.variableType === 'FILE'))
    .map(({ key, value, isSecret, mountPath, description }) => ({ key, value: isSecret ? null : value, isSecret, mountPath, description }))

export function terraformExportRoutes(deps: TerraformExportDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/environment/:environmentId/terraformExport',
      {
        schema: {
          operationId: 'exportEnvironmentConfigurationIntoTerraform',
          summary: 'Export full environment and its resources into Terraform manifests',
          description:
            "A ZIP of `main.tf` (the environment, its deployment stages and each service as the platform's Terraform provider names its `qovery_*` resources and attributes) and `variables.tf` (one sensitive variable per secret, without a value). Secrets' values never leave Berth: `exportSecrets` is accepted and changes nothing. IAC services, which the provider has no resource Berth maps to, are named in a comment. Needs READ.",
          tags: ['Environment Export'],
          params: Type.Object({ environmentId: Uuid }),
          querystring: Type.Object({
            exportSecrets: Type.Optional(
              Type.Boolean({ default: false, description: 'accepted; secrets are always exported as variables, never their values' }),
            ),
          }),
          response: { 200: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'a ZIP archive (application/octet-stream)' }) },
        },
      },
      async (req, reply) => {
        const { environment } = await deps.environments.requireEnvironment(req.principal, req.params.environmentId, 'READ')
        const [stages, records] = await Promise.all([deps.listStages(environment.id), deps.listServices(environment.organizationId, environment.id)])
        const stageOf = new Map(stages.flatMap((stage) => stage.services.map((service) => [service.id, stage.id] as const)))
        const services = []
        for (const service of [...records].sort((a, b) => a.name.localeCompare(b.name))) {
          const variables = service.kind === 'DATABASE' ? [] : await deps.listVariables(req.principal, service.kind, service.id)
          services.push({
            id: service.id,
            kind: service.kind,
            name: service.name,
            stageId: stageOf.get(service.id) ?? null,
            // biome-ignore lint/suspicious/noExplicitAny: each kind's answer is read field by field
            wire: (await deps.serviceAnswer(req.principal, service)) as Record<string, any>,
            variables: own(variables, (variable) => variable.serviceId === service.id),
          })
        }
        const environmentVariables = await deps.listVariables(req.principal, 'ENVIRONMENT', environment.id)
        const files = terraformConfiguration({
          id: environment.id,
          name: environment.name,
          projectId: environment.projectId,
          clusterId: environment.clusterId,
          mode: environment.mode,
          stages,
          services,
          variables: own(environmentVariables, (variable) => variable.environmentId === environment.id && variable.serviceId === null),
        })
        const archive = zipArchive([
          { name: 'main.tf', content: files.main },
          { name: 'variables.tf', content: files.variables },
        ])
        return reply
          .type('application/octet-stream')
          .header('content-disposition', `attachment; filename="environment-${environment.id}-terraform.zip"`)
          .send(archive)
      },
    )
  }
}
