import { randomUUID } from 'node:crypto'
import { loadConfig } from '#src/config.ts'
import type { ClusterInput } from '#src/modules/clusters/clusters.service.ts'
import type { NewEnvironmentInput } from '#src/modules/environments/environments.service.ts'
import type { ContainerRegistryInput } from '#src/modules/organization-credentials/container-registries/container-registries.service.ts'
import type { GitTokenInput } from '#src/modules/organization-credentials/git-tokens/git-tokens.service.ts'
import type { HelmRepositoryInput } from '#src/modules/organization-credentials/helm-repositories/helm-repositories.service.ts'
import { containerDescriptor } from '#src/modules/services/kinds/container/container.descriptor.ts'
import type { ContainerRequest } from '#src/modules/services/kinds/container/container.schemas.ts'
import { containerInput } from '#src/modules/services/kinds/container/container.wire.ts'
import { databaseDescriptor } from '#src/modules/services/kinds/database/database.descriptor.ts'
import type { DatabaseRequest } from '#src/modules/services/kinds/database/database.schemas.ts'
import { databaseInput } from '#src/modules/services/kinds/database/database.wire.ts'
import { newDatabaseCredentials } from '#src/modules/services/kinds/database/database-credentials.ts'
import { helmDescriptor } from '#src/modules/services/kinds/helm/helm.descriptor.ts'
import type { HelmRequest } from '#src/modules/services/kinds/helm/helm.schemas.ts'
import { helmInput } from '#src/modules/services/kinds/helm/helm.wire.ts'
import { jobDescriptor } from '#src/modules/services/kinds/job/job.descriptor.ts'
import type { JobRequest } from '#src/modules/services/kinds/job/job.schemas.ts'
import { jobInput } from '#src/modules/services/kinds/job/job.wire.ts'
import type { Principal } from '#src/platform/auth/principal.ts'
import type { Role } from '#src/platform/auth/roles.ts'
import type { Db } from '#src/platform/db/database.ts'
import { createServices } from '#src/services.ts'
import { testSecretBox } from './app.ts'

export const uniqueName = (prefix: string) => `${prefix} ${randomUUID().slice(0, 8)}`

/** An ADMIN of the organization for factories that create through principal-checked services; no token row exists. */
const adminOf = (organizationId: string): Principal => ({
  kind: 'api_token',
  apiTokenId: randomUUID(),
  name: 'factory',
  organizationId,
  role: 'ADMIN',
  customRoleId: null,
  expiresAt: null,
  ownerUserId: null,
})

/** Factories that go through the real services and repositories; every test makes its own data. */
export function factories(db: Db) {
  const { organizations, apiTokens, projects, environments, gitTokens, helmRepositories, containerRegistries, clusters, kindServices } =
    createServices(db, {
      tokenUsageFlushMs: 60_000,
      onBackgroundError: () => {},
      secrets: testSecretBox(),
      // Tests point git tokens at loopback fakes of the providers; the guard's own tests go through the API.
      git: loadConfig({}).git,
      outbound: loadConfig({ BERTH_ALLOW_PRIVATE_URLS: 'true' }).outbound,
    })

  return {
    async organization(name = uniqueName('org')) {
      return organizations.findOrCreateByName(name)
    },

    /** A real API token of `role` in the organization: `Authorization` header value included. */
    async apiToken(organizationId: string, role: Role = 'ADMIN', options: { expiredAt?: Date; name?: string } = {}) {
      const created = await apiTokens.mint(organizationId, {
        name: options.name ?? uniqueName(`token ${role}`),
        role,
        expiredAt: options.expiredAt ?? null,
      })
      return { ...created, authorization: `Token ${created.token}` }
    },

    /** A GITHUB git token (the secret sealed as through the API); `token` is its plaintext. */
    async gitToken(organizationId: string, options: Partial<GitTokenInput> = {}) {
      const input: GitTokenInput = {
        name: uniqueName('git token'),
        description: null,
        type: 'GITHUB',
        token: `ghp_${randomUUID().replaceAll('-', '')}`,
        workspace: null,
        gitApiUrl: null,
        ...options,
      }
      return { ...(await gitTokens.create(adminOf(organizationId), organizationId, input)), token: input.token }
    },

    /** A public HTTPS helm repository unless `options` say otherwise. */
    async helmRepository(organizationId: string, options: Partial<HelmRepositoryInput> = {}) {
      return helmRepositories.create(adminOf(organizationId), organizationId, {
        name: uniqueName('helm repo'),
        kind: 'HTTPS',
        description: null,
        url: 'https://charts.example.com',
        skipTlsVerification: false,
        config: {},
        secrets: {},
        ...options,
      })
    },

    /** A public GENERIC_CR container registry unless `options` say otherwise. */
    async containerRegistry(organizationId: string, options: Partial<ContainerRegistryInput> = {}) {
      return containerRegistries.create(adminOf(organizationId), organizationId, {
        name: uniqueName('registry'),
        kind: 'GENERIC_CR',
        description: null,
        url: 'https://registry.example.com',
        config: {},
        secrets: {},
        ...options,
      })
    },

    /** A cluster of the organization that no environment uses: SIMULATED unless `options` say otherwise; with `kubeconfig` stored. */
    async cluster(organizationId: string, options: Partial<ClusterInput> = {}, kubeconfig?: string) {
      const cluster = await clusters.create(adminOf(organizationId), organizationId, {
        name: uniqueName('cluster'),
        description: null,
        region: 'lab',
        cloudProvider: 'ON_PREMISE',
        kubernetes: 'MANAGED',
        production: false,
        executor: 'SIMULATED',
        ...options,
        imageRegistryId: options.imageRegistryId ?? null,
      })
      if (kubeconfig !== undefined) await clusters.setKubeconfig(adminOf(organizationId), organizationId, cluster.id, kubeconfig)
      return cluster
    },

    /** A container created as through the API: an image of a new registry of the organization unless `request` says otherwise. */
    async containerService(environmentId: string, request: Partial<ContainerRequest> = {}) {
      const { organizationId } = await db
        .selectFrom('environments')
        .select('organizationId')
        .where('id', '=', environmentId)
        .executeTakeFirstOrThrow()
      const registryId = request.registry_id ?? (await this.containerRegistry(organizationId)).id
      const body: ContainerRequest = {
        name: uniqueName('container'),
        image_name: 'acme/web',
        tag: '1.0.0',
        healthchecks: {},
        ...request,
        registry_id: registryId,
      }
      return kindServices(containerDescriptor).create(adminOf(organizationId), environmentId, { input: containerInput(body), ruleErrors: [] })
    },

    /** A job created as through the API: a lifecycle job (on_start) of an image unless `request` says otherwise. */
    async job(environmentId: string, request: Partial<JobRequest> = {}) {
      const { organizationId } = await db
        .selectFrom('environments')
        .select('organizationId')
        .where('id', '=', environmentId)
        .executeTakeFirstOrThrow()
      const source = request.source ?? {
        image: { image_name: 'busybox', tag: '1.36', registry_id: (await this.containerRegistry(organizationId)).id },
      }
      const body: JobRequest = {
        name: uniqueName('job'),
        healthchecks: {},
        schedule: { on_start: { arguments: ['echo', 'hi'] } },
        ...request,
        source,
      }
      return kindServices(jobDescriptor).create(adminOf(organizationId), environmentId, { input: jobInput(body), ruleErrors: [] })
    },

    /** An organization with one token per role. */
    async organizationWithTokens(name = uniqueName('org')) {
      const organization = await this.organization(name)
      const [admin, write, deploy, read] = await Promise.all(
        (['ADMIN', 'WRITE', 'DEPLOY', 'READ'] as const).map((role) => this.apiToken(organization.id, role)),
      )
      return { organization, tokens: { admin: admin!, write: write!, deploy: deploy!, read: read! } }
    },

    async project(organizationId: string, name = uniqueName('project')) {
      return projects.create(adminOf(organizationId), organizationId, { name, description: null })
    },

    /** A DEVELOPMENT environment on the organization's default cluster unless `options` say otherwise. */
    async environment(projectId: string, options: Partial<NewEnvironmentInput> = {}) {
      const { organizationId } = await db.selectFrom('projects').select('organizationId').where('id', '=', projectId).executeTakeFirstOrThrow()
      return environments.create(adminOf(organizationId), projectId, { name: uniqueName('env'), mode: 'DEVELOPMENT', autoPreview: false, ...options })
    },

    /**
     * A preview of `sourceEnvironmentId` made for pull request `number` of GitHub's acme/site: a
     * PREVIEW environment beside it and the record that links them, as a pull request event leaves
     * them (test/previews.test.ts makes them through deliveries).
     */
    async pullRequestPreview(sourceEnvironmentId: string, number: number, title: string) {
      const source = await db
        .selectFrom('environments')
        .select(['organizationId', 'projectId', 'name'])
        .where('id', '=', sourceEnvironmentId)
        .executeTakeFirstOrThrow()
      const environment = await this.environment(source.projectId, { name: `${source.name}-pr-${number}` })
      // PREVIEW is a mode only a preview's clone takes (the API creates none of it).
      await db.updateTable('environments').set({ mode: 'PREVIEW' }).where('id', '=', environment.id).execute()
      await db
        .insertInto('previewEnvironments')
        .values({
          organizationId: source.organizationId,
          sourceEnvironmentId,
          environmentId: environment.id,
          provider: 'GITHUB',
          repository: 'github:acme/site',
          pullRequestNumber: number,
          imageTag: null,
          title,
          url: `https://github.com/acme/site/pull/${number}`,
          headBranch: 'feature',
          headCommit: 'c0ffee1234567890c0ffee1234567890c0ffee12',
          author: 'octocat',
        })
        .execute()
      return environment
    },

    /** A helm service created as through the API: a chart of a helm repository unless `request` says otherwise. */
    async helmService(environmentId: string, request: Partial<HelmRequest> = {}) {
      const { organizationId } = await db
        .selectFrom('environments')
        .select('organizationId')
        .where('id', '=', environmentId)
        .executeTakeFirstOrThrow()
      const source = request.source ?? {
        helm_repository: { repository: (await this.helmRepository(organizationId)).id, chart_name: 'app', chart_version: '1.0.0' },
      }
      const body: HelmRequest = { name: uniqueName('helm'), auto_deploy: false, arguments: [], values_override: {}, ...request, source }
      return kindServices(helmDescriptor).create(adminOf(organizationId), environmentId, { input: helmInput(body), ruleErrors: [] })
    },

    /** A database created as through the API: a POSTGRESQL 16 container unless `request` says otherwise. */
    async database(environmentId: string, request: Partial<DatabaseRequest> = {}) {
      const { organizationId } = await db
        .selectFrom('environments')
        .select('organizationId')
        .where('id', '=', environmentId)
        .executeTakeFirstOrThrow()
      const body: DatabaseRequest = { name: uniqueName('database'), type: 'POSTGRESQL', version: '16', mode: 'CONTAINER', ...request }
      const id = randomUUID()
      const credentials = newDatabaseCredentials(id, body.type, testSecretBox())
      return kindServices(databaseDescriptor).create(adminOf(organizationId), environmentId, {
        create: databaseInput(body),
        id,
        credentials,
        ruleErrors: [],
      })
    },

    /** An organization with one token per role, a project and an environment in it. */
    async environmentWithTokens(options: Partial<NewEnvironmentInput> = {}) {
      const { organization, tokens } = await this.organizationWithTokens()
      const project = await this.project(organization.id)
      const environment = await this.environment(project.id, options)
      return { organization, tokens, project, environment }
    },
  }
}
