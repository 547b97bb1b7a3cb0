/**
 * How much of the reference Berth serves (docs/reference-coverage.md): every operation of
 * /openapi.json that carries a reference operation id is counted against the reference's list
 * (test/fixtures/reference-operations.tsv, a copy of the reference document's operations), and the
 * operations left out on purpose stay out. Run it alone to read the count and what is missing.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from './helpers/app.ts'

interface ReferenceOperation {
  operationId: string
  method: string
  path: string
  tag: string
  hosted: boolean
}

const REFERENCE: ReferenceOperation[] = readFileSync(new URL('./fixtures/reference-operations.tsv', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line && !line.startsWith('#'))
  .map((line) => {
    const [operationId = '', method = '', path = '', tag = '', family = ''] = line.split('\t')
    return { operationId, method, path, tag, hosted: family === 'hosted' }
  })

/** The hosted platform's cloud integrations, listed in docs/reference-coverage.md as not served. */
const LEFT_OUT_ON_PURPOSE = [
  'listEksAnywhereCommits',
  'updateEksAnywhereCommit',
  'getEksAnywhereClusterJwt',
  'updateKarpenterPrivateFargateSubnetIds',
  'startClusterAnalysis',
  'listClusterAnalyses',
  'getClusterAnalysis',
  'listClusterAnalysisLogs',
  'listEnvironmentLifecycleTemplates',
  'getEnvironmentLifecycleTemplate',
  'generateDeploymentBuildUsageReport',
  'listUpstreamSecretsFromSecretProvider',
  'listSecretManagerAccessExternalSecrets',
]

/** The floor this round reaches once every part of issue 48 landed; raise it as operations land. */
const SERVED_AT_LEAST = 440

describe('coverage of the reference operations', () => {
  let t: TestApp
  let served: Set<string>

  before(async () => {
    t = await createTestApp()
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, { operationId?: string }>>
    }>()
    served = new Set(Object.values(doc.paths).flatMap((item) => Object.values(item).flatMap((op) => (op.operationId ? [op.operationId] : []))))
  })
  after(() => t.close())

  it('the reference list holds 554 operations, 484 of them not the hosted platform’s', () => {
    assert.equal(REFERENCE.length, 554)
    assert.equal(REFERENCE.filter((op) => !op.hosted).length, 484)
    assert.equal(new Set(REFERENCE.map((op) => op.operationId)).size, 554)
  })

  it('serves at least the floor of the 484, and says which are missing', (ctx) => {
    const reference = REFERENCE.filter((op) => !op.hosted)
    const missing = reference.filter((op) => !served.has(op.operationId))
    const count = reference.length - missing.length
    ctx.diagnostic(`served: ${count} of ${reference.length} (${REFERENCE.filter((op) => served.has(op.operationId)).length} of 554 overall)`)
    for (const op of missing) ctx.diagnostic(`missing: ${op.operationId} ${op.method} ${op.path} (${op.tag})`)
    assert.ok(count >= SERVED_AT_LEAST, `${count} served, the floor is ${SERVED_AT_LEAST}`)
  })

  it('leaves out on purpose what only the hosted platform’s cloud integrations do', () => {
    for (const operationId of LEFT_OUT_ON_PURPOSE) {
      assert.ok(
        REFERENCE.some((op) => op.operationId === operationId),
        `${operationId} is a reference operation`,
      )
      assert.ok(!served.has(operationId), `${operationId} is not served`)
    }
  })
})
