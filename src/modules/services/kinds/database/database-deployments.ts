import { comparisonStep } from '#src/modules/services/dry-run-plans.ts'
import type { PlannedStep, ServiceKind, ServiceSnapshot } from '#src/modules/services/service-kinds.ts'
import type { RunnableTrigger } from '#src/platform/deployment-states.ts'
import type { DatabaseConfig } from './database.types.ts'
import { DATABASE_ENGINES } from './database-engines.ts'

// What deploying a database means: the history `details` and the steps an executor goes through.
// Never a credential: the steps name the host, port and login at most.

/**
 * A database's history `details`. The contract's 2.7 has no database shape (its four shapes are
 * application, container, job and helm), so Berth gives its own, as an extension: what was
 * deployed, from the snapshot.
 */
export function databaseDetails(database: Pick<DatabaseConfig, 'type' | 'version' | 'mode'>): Record<string, unknown> {
  return { database_type: database.type, version: database.version, mode: database.mode }
}

/** What an executor does to a database, as it reports it. */
export function databasePlan({ name, configuration }: ServiceSnapshot<DatabaseConfig>, action: RunnableTrigger): PlannedStep[] {
  const { type, version, mode, cpu, memory, storage, accessibility, instanceType, credentials } = configuration
  const what = `${type} ${version} database ${name}`
  const where = `reachable at ${credentials.host}:${credentials.port} (${accessibility.toLowerCase()}) as ${credentials.login}`
  switch (action) {
    case 'DEPLOY':
    case 'RESTART': {
      const runs =
        mode === 'MANAGED'
          ? `managed instance ${instanceType} with ${storage} GB of storage`
          : `container ${DATABASE_ENGINES[type].image}:${version} with ${cpu}m CPU, ${memory} MB of memory and a ${storage} GB volume`
      return [
        { step: action === 'DEPLOY' ? 'provision' : 'restart', lines: [`${action === 'DEPLOY' ? 'deploying' : 'restarting'} ${what}: ${runs}`] },
        { step: 'ready', lines: [`${what} ${where}`] },
      ]
    }
    case 'DEPLOY_DRY_RUN':
      return [
        { step: 'pull', lines: [`pulling the image of ${what}`] },
        comparisonStep('compare', `the image of ${what} with the image it runs now (its data is kept)`),
      ]
    case 'STOP':
      return [{ step: 'stop', lines: [`stopping ${what}; its data is kept`] }]
    case 'UNINSTALL':
    case 'DELETE':
      return [{ step: 'uninstall', lines: [`deleting ${what} and its data`] }]
  }
}

/** What a deployment of a database records of it, as the service kind says it. */
export const databasePlanning: Pick<ServiceKind<unknown, DatabaseConfig>, 'type' | 'details' | 'iconUri' | 'simulatesFailure' | 'plan'> = {
  type: 'DATABASE',
  details: databaseDetails,
  iconUri: (configuration) => configuration.iconUri,
  // Simulated databases always deploy: nothing in a database's request is free-form to ask for a failure with.
  simulatesFailure: () => false,
  plan: databasePlan,
}
