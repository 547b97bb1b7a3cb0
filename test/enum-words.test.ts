import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Configuration, JobDeploymentHistoryApi } from 'qovery-typescript-axios'
import { SCHEDULER_ACTOR } from '#src/modules/deployments/runner/cron-firing.ts'
import { ENUM_WORD_PAIRS, PARTNER_WORD } from '#src/platform/http/enum-words/enum-word-pairs.ts'
import { inWords, rewriteEnums, wordPlan } from '#src/platform/http/enum-words/word-plans.ts'
import { createDeploymentsApp, type DeploymentCalls, type DeploymentsTestApp, deploymentCalls, until } from './helpers/deployments.ts'
import { factories, uniqueName } from './helpers/factories.ts'
import { contractWordIn, refuseContractWordsInClient } from './helpers/go-client-words.ts'

// The words on the wire (docs/enum-words.md): the table of word pairs against the two documents'
// enums, the plans that change words only where a schema declares an enum, and both settings of
// BERTH_ENUM_WORDS through the app: input in either document's word, answers in the setting's,
// free text left alone, and /openapi.json telling the words served.

// The enums of the contract (deployment-platform-api.md, sections 2.3 to 2.8) and of the reference
// document (upstream-openapi.yaml, components/schemas), copied: tests do not read the specs.
const CONTRACT_ENUMS: Record<string, string[]> = {
  ServiceTypeEnum: ['APPLICATION', 'DATABASE', 'CONTAINER', 'JOB', 'HELM', 'IAC', 'GITOPS_APP'],
  DeploymentHistoryTriggerAction: [
    'DEPLOY',
    'DELETE',
    'RESTART',
    'STOP',
    'DEPLOY_DRY_RUN',
    'IAC_FORCE_UNLOCK',
    'IAC_MIGRATE_STATE',
    'DELETE_RESOURCES_ONLY',
    'UNKNOWN',
    'UNINSTALL',
  ],
  DeploymentHistoryActionStatus: ['QUEUED', 'ONGOING', 'SUCCESS', 'ERROR', 'CANCELED', 'CANCELING', 'NEVER'],
  OrganizationEventOrigin: ['API', 'CLI', 'CONSOLE', 'GIT', 'PLATFORM_INTERNAL', 'IAC_PROVIDER'],
  StageStatusEnum: ['QUEUED', 'ONGOING', 'DONE', 'ERROR', 'SKIPPED', 'CANCELED'],
  JobLifecycleTypeEnum: ['GENERIC', 'IAC', 'CLOUDTEMPLATE'],
  ServiceActionEnum: ['DEPLOY', 'DELETE', 'RESTART', 'STOP', 'UNKNOWN'],
  ServiceActionStatusEnum: ['QUEUED', 'ONGOING', 'SUCCESS', 'ERROR', 'EXECUTING', 'CANCELED', 'CANCELING', 'NEVER'],
  ServiceSubActionEnum: ['NONE', 'IAC_PLAN_ONLY', 'IAC_PLAN_AND_APPLY', 'IAC_DESTROY', 'IAC_FORCE_UNLOCK_STATE', 'IAC_MIGRATE_STATE'],
}
const REFERENCE_ENUMS: Record<string, string[]> = {
  ServiceTypeEnum: ['APPLICATION', 'DATABASE', 'CONTAINER', 'JOB', 'HELM', 'TERRAFORM', 'ARGOCD_APP', 'AGENTIC_WORKFLOW'],
  DeploymentHistoryTriggerAction: [
    'DEPLOY',
    'DELETE',
    'RESTART',
    'STOP',
    'DEPLOY_DRY_RUN',
    'TERRAFORM_FORCE_UNLOCK',
    'TERRAFORM_MIGRATE_STATE',
    'DELETE_RESOURCES_ONLY',
    'UNKNOWN',
    'UNINSTALL',
  ],
  DeploymentHistoryActionStatus: ['QUEUED', 'ONGOING', 'SUCCESS', 'ERROR', 'CANCELED', 'CANCELING', 'NEVER'],
  OrganizationEventOrigin: ['API', 'CLI', 'CONSOLE', 'GIT', 'QOVERY_INTERNAL', 'SKILL', 'TERRAFORM_PROVIDER'],
  EnvironmentStatusEventOriginEnum: ['API', 'CLI', 'CONSOLE', 'GIT', 'QOVERY_INTERNAL', 'SKILL', 'TERRAFORM_PROVIDER'],
  StageStatusEnum: ['QUEUED', 'ONGOING', 'DONE', 'ERROR', 'SKIPPED', 'CANCELED'],
  JobLifecycleTypeEnum: ['GENERIC', 'TERRAFORM', 'CLOUDFORMATION'],
  ServiceActionEnum: ['DEPLOY', 'DELETE', 'RESTART', 'STOP', 'UNKNOWN'],
  ServiceActionStatusEnum: ['QUEUED', 'ONGOING', 'SUCCESS', 'ERROR', 'EXECUTING', 'CANCELED', 'CANCELING', 'NEVER'],
  ServiceSubActionEnum: [
    'NONE',
    'TERRAFORM_PLAN_ONLY',
    'TERRAFORM_PLAN_AND_APPLY',
    'TERRAFORM_DESTROY',
    'TERRAFORM_FORCE_UNLOCK_STATE',
    'TERRAFORM_MIGRATE_STATE',
  ],
  LinkedServiceTypeEnum: ['APPLICATION', 'CONTAINER', 'DATABASE', 'JOB', 'HELM', 'TERRAFORM'],
  ServiceTypeForVariableEnum: ['APPLICATION', 'CONTAINER', 'JOB', 'HELM', 'TERRAFORM', 'AGENTIC_WORKFLOW'],
  APIVariableScopeEnum: ['APPLICATION', 'BUILT_IN', 'ENVIRONMENT', 'PROJECT', 'CONTAINER', 'JOB', 'HELM', 'TERRAFORM', 'AGENTIC_WORKFLOW'],
  GitTokenAssociatedServiceType: ['APPLICATION', 'CRON', 'LIFECYCLE', 'HELM', 'TERRAFORM'],
  OrganizationEventTargetType: [
    'AGENTIC_WORKFLOW',
    'APPLICATION',
    'CLUSTER',
    'CONTAINER',
    'CONTAINER_REGISTRY',
    'DATABASE',
    'ENTERPRISE_CONNECTION',
    'ENVIRONMENT',
    'JOB',
    'HELM',
    'HELM_REPOSITORY',
    'MEMBERS_AND_ROLES',
    'ORGANIZATION',
    'PROJECT',
    'WEBHOOK',
    'TERRAFORM',
  ],
  ArgocdAssociatedServiceType: ['ARGOCD_APP'],
}

/** The contract's rule: a neutral word stands for the tool's name inside an identifier. */
const neutral = (word: string) =>
  word
    .replace('TERRAFORM', 'IAC')
    .replace('QOVERY', 'PLATFORM')
    .replace(/^ARGOCD_APP$/, 'GITOPS_APP')
    .replace('CLOUDFORMATION', 'CLOUDTEMPLATE')

describe('the table of word pairs', () => {
  it('holds exactly the pairs in which the enums of the two documents differ', () => {
    const derived = new Map<string, string>()
    for (const [name, contract] of Object.entries(CONTRACT_ENUMS)) {
      const reference = REFERENCE_ENUMS[name]
      assert.ok(reference, `the reference has ${name}`)
      for (const word of contract.filter((w) => !reference.includes(w))) {
        const partners: string[] = reference.filter((w) => !contract.includes(w) && neutral(w) === word)
        assert.equal(partners.length, 1, `${name}: one reference word for ${word}, found ${partners}`)
        derived.set(word, partners[0]!)
      }
    }
    const table = new Map(ENUM_WORD_PAIRS.map((pair) => [pair.contract, pair.reference]))
    assert.deepEqual([...table].sort(), [...derived].sort())
  })

  it('names, for each pair, reference enums that hold its word and none that holds it unnamed', () => {
    for (const pair of ENUM_WORD_PAIRS) {
      for (const name of pair.enums) assert.ok(REFERENCE_ENUMS[name]?.includes(pair.reference), `${name} holds ${pair.reference}`)
      const holding = Object.entries(REFERENCE_ENUMS)
        .filter(([, values]) => values.includes(pair.reference))
        .map(([name]) => name)
      assert.deepEqual([...holding].sort(), [...pair.enums].sort(), pair.reference)
    }
  })

  it('maps each word one way only: no word in two pairs, none both a contract and a reference word', () => {
    const contract = ENUM_WORD_PAIRS.map((pair) => pair.contract)
    const reference = ENUM_WORD_PAIRS.map((pair) => pair.reference)
    assert.equal(new Set(contract).size, contract.length)
    assert.equal(new Set(reference).size, reference.length)
    assert.deepEqual(
      contract.filter((word) => reference.includes(word)),
      [],
    )
    for (const pair of ENUM_WORD_PAIRS) assert.equal(PARTNER_WORD.get(PARTNER_WORD.get(pair.contract)!), pair.contract)
  })
})

const toReference = (values: readonly string[]) =>
  new Map(
    values.flatMap((word) => (PARTNER_WORD.has(word) && ENUM_WORD_PAIRS.some((p) => p.contract === word) ? [[word, PARTNER_WORD.get(word)!]] : [])),
  )

describe("the Go client's refusal, as the tests make the official client refuse", () => {
  it('finds a contract-only word anywhere in an answer, and nothing else', () => {
    assert.deepEqual(contractWordIn({ results: [{ auditing_data: { origin: 'PLATFORM_INTERNAL' } }] }), {
      path: '/results/0/auditing_data/origin',
      word: 'PLATFORM_INTERNAL',
    })
    assert.equal(contractWordIn({ results: [{ origin: 'QOVERY_INTERNAL', name: 'IAC service', type: 'TERRAFORM' }] }), undefined)
  })
})

describe('word plans', () => {
  const schema = {
    type: 'object',
    properties: {
      name: { type: 'string' },
      service_type: { type: 'string', enum: ['HELM', 'IAC'] },
      kind: { type: 'string', const: 'IAC' },
      origin: { anyOf: [{ type: 'string', enum: ['API', 'PLATFORM_INTERNAL'] }, { type: 'null' }] },
      stages: { type: 'array', items: { type: 'object', properties: { action: { type: 'string', enum: ['IAC_FORCE_UNLOCK'] } } } },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      kinds: { type: 'object', properties: { note: { type: 'string' } }, additionalProperties: { type: 'string', enum: ['IAC', 'HELM'] } },
    },
  }

  it('changes the words where the schema declares an enum, and nowhere else', () => {
    const plan = wordPlan(schema, toReference)
    assert.ok(plan)
    const value = Object.freeze({
      name: 'IAC',
      service_type: 'IAC',
      kind: 'IAC',
      origin: 'PLATFORM_INTERNAL',
      stages: Object.freeze([Object.freeze({ action: 'IAC_FORCE_UNLOCK', message: 'IAC_FORCE_UNLOCK' })]),
      labels: Object.freeze({ IAC: 'IAC' }),
      kinds: { note: 'IAC', first: 'IAC' },
      extra: 'GITOPS_APP',
    })
    assert.deepEqual(inWords(plan, value), {
      name: 'IAC',
      service_type: 'TERRAFORM',
      kind: 'TERRAFORM',
      origin: 'QOVERY_INTERNAL',
      stages: [{ action: 'TERRAFORM_FORCE_UNLOCK', message: 'IAC_FORCE_UNLOCK' }],
      labels: { IAC: 'IAC' },
      kinds: { note: 'IAC', first: 'TERRAFORM' },
      extra: 'GITOPS_APP',
    })
    // Frozen values were copied, not changed; an unchanged one is handed back as it is.
    const unchanged = { name: 'IAC', service_type: 'HELM', origin: null }
    assert.equal(inWords(plan, unchanged), unchanged)
    assert.equal(wordPlan({ type: 'object', properties: { name: { type: 'string' } } }, toReference), undefined)
  })

  it('rewrites copies of schemas, never the schema itself', () => {
    const before = JSON.stringify(schema)
    const served = rewriteEnums(schema, (values) => values.map((word) => PARTNER_WORD.get(word) ?? word))
    assert.equal(JSON.stringify(schema), before)
    assert.deepEqual(served.properties.service_type.enum, ['HELM', 'TERRAFORM'])
    assert.equal(served.properties.kind.const, 'TERRAFORM')
    assert.equal(served.properties.name, schema.properties.name, 'untouched parts are shared')
    const both = rewriteEnums(schema, (values) => [...values, ...values.flatMap((word) => PARTNER_WORD.get(word) ?? [])])
    assert.deepEqual((both.properties.kind as { enum?: string[] }).enum, ['IAC', 'TERRAFORM'])
    assert.equal('const' in both.properties.kind, false)
  })
})

// The official client, from here on, refuses the contract's words as the Go client does.
refuseContractWordsInClient()

const CONTRACT_ONLY = ENUM_WORD_PAIRS.map((pair) => pair.contract)
const REFERENCE_ONLY = ENUM_WORD_PAIRS.map((pair) => pair.reference)

/** Every enum (and string const) of a part of the document, with where it is. */
function enumsIn(node: unknown, found: string[][] = []): string[][] {
  if (Array.isArray(node)) for (const item of node) enumsIn(item, found)
  else if (typeof node === 'object' && node !== null) {
    const record = node as Record<string, unknown>
    if (Array.isArray(record.enum)) found.push(record.enum as string[])
    if (typeof record.const === 'string') found.push([record.const])
    for (const value of Object.values(record)) enumsIn(value, found)
  }
  return found
}

for (const words of ['contract', 'reference'] as const) {
  const served =
    words === 'contract' ? (pair: { contract: string; reference: string }) => pair.contract : (pair: { reference: string }) => pair.reference
  const word = (contract: string) => served(ENUM_WORD_PAIRS.find((pair) => pair.contract === contract)!)

  describe(`BERTH_ENUM_WORDS=${words}`, () => {
    let t: DeploymentsTestApp
    let calls: DeploymentCalls
    let make: ReturnType<typeof factories>
    let basePath: string

    before(async () => {
      t = await createDeploymentsApp(20, { BERTH_ENUM_WORDS: words })
      calls = deploymentCalls(t.app)
      make = factories(t.db)
      basePath = await t.listen()
    })
    after(() => t?.close())

    it('servedWords gives what a route writes itself (server-sent events) the served words, enums only', () => {
      const line = { message: { safe_message: 'IAC' }, details: { transmitter: { name: 'IAC', type: 'IAC' } } }
      const logSchema = {
        type: 'object',
        properties: {
          message: { type: 'object', properties: { safe_message: { type: 'string' } } },
          details: {
            type: 'object',
            properties: {
              transmitter: { type: 'object', properties: { name: { type: 'string' }, type: { type: 'string', enum: ['IAC', 'ENVIRONMENT'] } } },
            },
          },
        },
      }
      assert.deepEqual(t.app.servedWords<typeof line>(logSchema)(line), {
        message: { safe_message: 'IAC' },
        details: { transmitter: { name: 'IAC', type: word('IAC') } },
      })
    })

    it(`/openapi.json lists the ${words} words in answers and both words in requests`, async () => {
      const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
        paths: Record<string, Record<string, { parameters?: unknown; requestBody?: unknown; responses?: unknown }>>
      }
      const answers = Object.values(document.paths).flatMap((item) => Object.values(item).flatMap((op) => enumsIn(op.responses)))
      const requests = Object.values(document.paths).flatMap((item) =>
        Object.values(item).flatMap((op) => [...enumsIn(op.parameters), ...enumsIn(op.requestBody)]),
      )
      const absent = words === 'contract' ? REFERENCE_ONLY.filter((w) => !['TERRAFORM', 'CLOUDFORMATION'].includes(w)) : CONTRACT_ONLY
      assert.deepEqual(
        answers.flat().filter((w) => absent.includes(w)),
        [],
        'no answer enum lists the other document’s word',
      )
      for (const pair of ENUM_WORD_PAIRS.filter((p) => ['PLATFORM_INTERNAL', 'IAC_FORCE_UNLOCK', 'IAC'].includes(p.contract))) {
        assert.ok(
          answers.some((values) => values.includes(served(pair))),
          `an answer lists ${served(pair)}`,
        )
      }
      // Wherever a request enum lists one word of a pair, it lists the other too.
      for (const values of requests)
        for (const w of values) if (PARTNER_WORD.has(w)) assert.ok(values.includes(PARTNER_WORD.get(w)!), `${values} lists the partner of ${w}`)
      assert.ok(requests.some((values) => values.includes('QOVERY_INTERNAL') && values.includes('PLATFORM_INTERNAL')))
    })

    it('takes either word on input and answers the setting’s words in histories, leaving free text alone', async () => {
      const { organization, environment, tokens } = await make.environmentWithTokens()
      const registry = await make.containerRegistry(organization.id)
      const image = { image_name: 'busybox', tag: '1.36', registry_id: registry.id }
      // Two lifecycle jobs, told their lifecycle in either document's word; names and arguments that read like enum words.
      const created: { id: string; name: string }[] = []
      for (const lifecycle of ['IAC', 'TERRAFORM']) {
        const res = await calls.inject('POST', `/environment/${environment.id}/job`, tokens.write.authorization, {
          name: uniqueName(`IAC ${lifecycle}`),
          healthchecks: {},
          source: { image },
          schedule: { on_start: { arguments: ['IAC', 'PLATFORM_INTERNAL'] }, lifecycle_type: lifecycle },
        })
        assert.equal(res.statusCode, 201, res.body)
        // The job API declares the reference's word (the contract does not show it): stored and answered as such.
        assert.equal(res.json().schedule.lifecycle_type, 'TERRAFORM')
        created.push(res.json() as { id: string; name: string })
      }
      const cron = await make.job(environment.id, {
        name: uniqueName('PLATFORM_INTERNAL'),
        schedule: { cronjob: { scheduled_at: '* * * * * *', arguments: ['QOVERY_INTERNAL'] } },
      })
      await calls.trigger(`/environment/${environment.id}/deploy`, tokens.deploy.authorization)
      // The scheduler's runs are PLATFORM_INTERNAL's.
      const internal = word('PLATFORM_INTERNAL')
      await until(
        async () => (await calls.environmentHistory(environment.id, tokens.read.authorization, { pageSize: 100 })).results,
        (entries) => entries.some((entry) => entry.auditing_data.origin === internal && entry.action_status === 'SUCCESS'),
        { what: `a scheduled run of origin ${internal}`, timeoutMs: 30_000 },
      )
      await calls.trigger(`/job/${cron.id}/stop`, tokens.deploy.authorization)
      await calls.waitUntilIdle(environment.id, tokens.read.authorization)

      const page = await calls.environmentHistory(environment.id, tokens.read.authorization, { pageSize: 100 })
      const origins = new Set(page.results.map((entry) => entry.auditing_data.origin))
      assert.deepEqual([...origins].sort(), ['API', internal].sort())
      const services = page.results.flatMap((entry) => entry.stages.flatMap((stage) => stage.services))
      for (const job of created) {
        const entry = services.find((service) => service.identifier.service_id === job.id)
        assert.ok(entry, `${job.name} deployed`)
        assert.equal(entry.identifier.name, job.name, 'names are free text')
        assert.equal(entry.details.schedule.lifecycle_type, word('IAC'))
        assert.deepEqual(entry.details.schedule.on_start.arguments, ['IAC', 'PLATFORM_INTERNAL'])
      }
      const scheduled = services.find((service) => service.identifier.service_id === cron.id && service.auditing_data.origin === internal)
      assert.ok(scheduled)
      assert.deepEqual(scheduled.details.schedule.cron_job.arguments, ['QOVERY_INTERNAL'])
      assert.match(scheduled.identifier.name, /^PLATFORM_INTERNAL /)
      assert.equal(scheduled.auditing_data.triggered_by, SCHEDULER_ACTOR)

      // The filters take either word, and find the same entries.
      const filtered = []
      for (const origin of ['PLATFORM_INTERNAL', 'QOVERY_INTERNAL']) {
        const res = await calls.environmentHistory(environment.id, tokens.read.authorization, { pageSize: 100, origin })
        assert.ok(res.results.length > 0 && res.results.every((entry) => entry.auditing_data.origin === internal))
        filtered.push(res.results.map((entry) => entry.identifier.execution_id))
      }
      assert.deepEqual(filtered[0], filtered[1])
      const byTrigger = await calls.inject(
        'GET',
        `/environment/${environment.id}/deploymentHistoryV2?trigger_action=TERRAFORM_FORCE_UNLOCK`,
        tokens.read.authorization,
      )
      assert.equal(byTrigger.statusCode, 200, byTrigger.body)
      assert.deepEqual(byTrigger.json().results, [])

      // A kept page, served again from its ETag, and again whole: the same words.
      const first = await calls.inject('GET', `/environment/${environment.id}/deploymentHistoryV2?pageSize=100`, tokens.read.authorization)
      const again = await calls.inject('GET', `/environment/${environment.id}/deploymentHistoryV2?pageSize=100`, tokens.read.authorization)
      assert.equal(again.body, first.body)
      assert.equal(JSON.parse(first.body).results.length, page.results.length)
      const notModified = await calls.inject(
        'GET',
        `/environment/${environment.id}/deploymentHistoryV2?pageSize=100`,
        tokens.read.authorization,
        undefined,
        {
          'if-none-match': String(first.headers.etag),
        },
      )
      assert.equal(notModified.statusCode, 304)

      // A service's history, the v1 history and the queue tell the same origins.
      const jobHistory = await calls.inject('GET', `/job/${cron.id}/deploymentHistoryV2?origin=PLATFORM_INTERNAL`, tokens.read.authorization)
      assert.equal(jobHistory.statusCode, 200, jobHistory.body)
      assert.ok(jobHistory.json().results.length > 0)
      assert.ok(jobHistory.json().results.every((entry: { auditing_data: { origin: string } }) => entry.auditing_data.origin === internal))
      const v1 = await calls.inject('GET', `/environment/${environment.id}/deploymentHistory`, tokens.read.authorization)
      assert.equal(v1.statusCode, 200, v1.body)
      assert.ok(v1.json().results.some((entry: { origin?: string }) => entry.origin === internal))
      assert.ok(v1.json().results.every((entry: { origin?: string }) => entry.origin === internal || entry.origin === 'API'))

      // Through the official client, refusing the contract's words as the Go client does: only the
      // reference's pass (the scheduled job's history: no free text of it reads as a contract word).
      const strictJobHistory = new JobDeploymentHistoryApi(new Configuration({ basePath, apiKey: tokens.read.authorization }))
      const read = strictJobHistory.listJobDeploymentHistoryV2(cron.id, 100)
      if (words === 'reference') assert.ok(((await read).data.results ?? []).some((entry) => entry.auditing_data.origin === 'QOVERY_INTERNAL'))
      else await assert.rejects(read, /answered PLATFORM_INTERNAL at \/results\/\d+\/auditing_data\/origin, which the Go client refuses/)

      // Variables' scopes: the reference's word (the contract does not show it), asked in either.
      const [asContract, asReference] = await Promise.all(
        ['IAC', 'TERRAFORM'].map((scope) => calls.inject('GET', `/variable?parent_id=${created[0]!.id}&scope=${scope}`, tokens.read.authorization)),
      )
      // Both ask for the variables of an IAC service of that id, which a job is not: the same 404.
      assert.equal(asContract!.statusCode, 404, asContract!.body)
      assert.equal(asReference!.statusCode, 404, asReference!.body)
      assert.equal(asContract!.json().message, asReference!.json().message)
      assert.match(asContract!.json().message, /terraform not found/)
      // Clusters: their kinds and providers are spelled alike in both documents.
      const clusters = await calls.inject('GET', `/organization/${organization.id}/cluster`, tokens.read.authorization)
      assert.equal(clusters.statusCode, 200, clusters.body)
      for (const cluster of clusters.json().results as { kubernetes: string; cloud_provider: string }[]) {
        assert.ok(['MANAGED', 'SELF_MANAGED', 'PARTIALLY_MANAGED'].includes(cluster.kubernetes))
        assert.ok(['AWS', 'SCW', 'GCP', 'DO', 'AZURE', 'OVH', 'CIVO', 'HETZNER', 'ORACLE', 'IBM', 'ON_PREMISE'].includes(cluster.cloud_provider))
      }
    })
  })
}
