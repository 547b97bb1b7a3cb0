import type { OutputLine, OutputService, ServiceOutput } from '#src/modules/executors/service-output.ts'
import type { Db } from '#src/platform/db/database.ts'
import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { withArgoCdTables } from './argocd.tables.ts'
import { type ArgoCdApi, ArgoCdCallError } from './argocd-api.ts'

// The service logs of a GITOPS_APP: its pods' lines through Argo CD's pod logs API (the
// application's resource tree names its pods), not from the cluster (docs/argocd.md). The
// service logs mask them as every line; the token never reaches them. Other services' lines come
// from `inner`.

export function argoCdServiceOutput(db: Db, secrets: SecretBox, api: ArgoCdApi, inner: ServiceOutput): ServiceOutput {
  const argoDb = withArgoCdTables(db)
  const appOf = (serviceId: string) =>
    argoDb
      .selectFrom('argocdApps as a')
      .innerJoin('argocdCredentials as c', 'c.id', 'a.credentialsId')
      .select(['a.name', 'c.argocdUrl', 'c.tokenSealed'])
      .where('a.serviceId', '=', serviceId)
      .executeTakeFirst()

  /** The deployment whose snapshot masks the lines: the service's latest. */
  const latestExecution = async (serviceId: string) =>
    (
      await db
        .selectFrom('serviceDeployments')
        .select('executionId')
        .where('serviceId', '=', serviceId)
        .orderBy('createdAt', 'desc')
        .limit(1)
        .executeTakeFirst()
    )?.executionId

  async function last(service: OutputService, count: number): Promise<OutputLine[] | undefined> {
    const app = await appOf(service.id)
    if (!app) return inner.last(service, count)
    const instance = { url: app.argocdUrl, token: secrets.open(app.tokenSealed) }
    const executionId = (await latestExecution(service.id)) ?? ''
    try {
      const pods = (await api.resourceTree(instance, app.name)).filter((node) => node.kind === 'Pod' && node.name && node.namespace)
      const lines: OutputLine[] = []
      for (const [index, pod] of pods.entries()) {
        for (const entry of await api.podLogs(instance, app.name, { name: pod.name!, namespace: pod.namespace! }, count)) {
          lines.push({
            source: pod.name!,
            instance: String(index),
            instanceName: pod.name!,
            executionId,
            stream: null,
            timestamp: entry.timeStamp ?? new Date().toISOString(),
            message: entry.content.split(instance.token).join('********'),
          })
        }
      }
      return lines.sort((a, b) => a.timestamp.localeCompare(b.timestamp)).slice(-count)
    } catch (error) {
      if (error instanceof ArgoCdCallError) return []
      throw error
    }
  }

  return {
    runsHere: (environmentId) => inner.runsHere(environmentId),
    keepsJobRuns: (environmentId) => inner.keepsJobRuns?.(environmentId) ?? Promise.resolve(false),
    last,
    /** A GITOPS_APP's follow gives its last lines and ends: Argo CD's log stream is not followed yet. */
    async follow(service, from, signal, deploying) {
      if (!(await appOf(service.id))) return inner.follow(service, from, signal, deploying)
      const lines = (await last(service, 'last' in from ? from.last : 100)) ?? []
      return (async function* () {
        yield* lines
      })()
    },
  }
}
