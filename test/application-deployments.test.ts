import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { applicationKind } from '#src/modules/services/kinds/application/application.kind.ts'
import type { ApplicationConfig } from '#src/modules/services/kinds/application/application.types.ts'
import { applicationDetails, applicationPlan, applicationSimulatesFailure } from '#src/modules/services/kinds/application/application-deployments.ts'
import { serviceLinks } from '#src/modules/services/service-links.ts'

// What deploying an application means, without a database: details, the simulator's failures, the
// branch it follows for pushes, the steps it logs, and the links of its ports.

const config = (overrides: Partial<ApplicationConfig> = {}): ApplicationConfig => ({
  description: null,
  gitRepository: {
    url: 'https://github.com/acme/web',
    branch: 'main',
    rootPath: '/',
    gitTokenId: null,
    provider: 'GITHUB',
    owner: 'acme',
    name: 'web',
  },
  buildMode: 'DOCKER',
  dockerfilePath: null,
  dockerTargetBuildStage: null,
  cpu: 500,
  memory: 512,
  gpu: 0,
  ephemeralStorageInGib: null,
  cpuArchitecture: null,
  minRunningInstances: 1,
  maxRunningInstances: 2,
  healthchecks: { readiness_probe: null, liveness_probe: null },
  autoPreview: false,
  autoDeploy: true,
  arguments: ['--token', 'sup3r-s3cret'],
  entrypoint: null,
  iconUri: 'app://berth/application',
  ports: [],
  storage: [],
  ...overrides,
})

const commit = { id: 'c'.repeat(40), authorName: 'Ada', message: 'Ship it\n\nbody', createdAt: '2024-01-01T00:00:00.000Z', tag: 'v1' }

describe('application deployments', () => {
  it('details name the resolved commit and the build pod of the deployment', () => {
    assert.deepEqual(applicationDetails(config(), { commit }, { executionId: 'e1' }), {
      commit: { git_commit_id: commit.id, created_at: commit.createdAt, author_name: 'Ada', message: commit.message, tag: 'v1' },
      build_pod_name: 'build-e1-0',
    })
    assert.deepEqual(applicationDetails(config(), {}, { executionId: 'e2' }), { commit: null, build_pod_name: 'build-e2-0' })
  })

  it('fails in the simulator for --berth-simulate-fail, for every action or the ones it names', () => {
    assert.equal(applicationSimulatesFailure(config(), 'DEPLOY'), false)
    assert.equal(applicationSimulatesFailure(config({ arguments: ['--berth-simulate-fail'] }), 'STOP'), true)
    const some = config({ arguments: ['--berth-simulate-fail=deploy, stop'] })
    assert.equal(applicationSimulatesFailure(some, 'DEPLOY'), true)
    assert.equal(applicationSimulatesFailure(some, 'STOP'), true)
    assert.equal(applicationSimulatesFailure(some, 'RESTART'), false)
  })

  it('follows its branch for pushes, and none without one', () => {
    assert.deepEqual(applicationKind.followedBranch!(config()), { provider: 'GITHUB', owner: 'acme', name: 'web', branch: 'main', autoDeploy: true })
    const noBranch = config()
    noBranch.gitRepository = { ...noBranch.gitRepository, branch: null }
    assert.equal(applicationKind.followedBranch!(noBranch), undefined)
  })

  it('logs the commit it builds, never an argument value', () => {
    const snapshot = {
      serviceId: 's',
      kind: 'APPLICATION' as const,
      name: 'web',
      version: 1,
      configuration: config(),
      overrides: { commit },
      variables: [],
      variablesFingerprint: '',
      advancedSettings: {},
    }
    const lines = applicationPlan(snapshot, 'DEPLOY').flatMap((step) => step.lines)
    assert.ok(lines.some((line) => line.includes(commit.id) && line.includes('Ship it') && !line.includes('body')))
    assert.ok(lines.some((line) => line.includes('docker build -f Dockerfile')))
    assert.ok(lines.every((line) => !line.includes('sup3r-s3cret')))
  })

  it('derives stable links from the id and the public ports', () => {
    const id = 'ABCDEF12-3456-4789-8abc-def012345678'
    const ports = [
      { internalPort: 9000, externalPort: null, publiclyAccessible: false, isDefault: false, protocol: 'HTTP' as const },
      { internalPort: 8080, externalPort: 443, publiclyAccessible: true, isDefault: false, protocol: 'HTTP' as const },
      { internalPort: 5432, externalPort: 15432, publiclyAccessible: true, isDefault: true, protocol: 'TCP' as const },
    ]
    assert.deepEqual(
      serviceLinks({ id, kind: 'APPLICATION' }, ports).map((link) => [link.url, link.is_default, link.internal_port, link.external_port]),
      [
        ['tcp://zabcdef12.berth.localhost:15432', true, 5432, 15432],
        ['https://p8080-zabcdef12.berth.localhost', false, 8080, 443],
        ['tcp://p5432-zabcdef12.berth.localhost:15432', false, 5432, 15432],
      ],
    )
    assert.deepEqual(serviceLinks({ id, kind: 'APPLICATION' }, [ports[0]!]), [])
  })
})
