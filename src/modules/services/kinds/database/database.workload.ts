import type { KindWorkload } from '#src/modules/executors/workload.ts'
import type { DatabaseConfig } from './database.types.ts'
import { DATABASE_ENGINES, type DatabaseType } from './database-engines.ts'
import { DATABASE_RUNTIME, databaseImage } from './database-runtime.ts'

// What a database runs (docs/docker.md, docs/kubernetes.md): a CONTAINER database is one instance of
// its type's official image, with one volume and its master credentials; a MANAGED one needs a cloud
// provider, so Berth runs nothing of it.

/** The variable a password reaches an image's command through, as `$(NAME)`: its value is in the environment only. */
const PASSWORD_VARIABLE = 'BERTH_DATABASE_PASSWORD'

/** A database's volume on Docker, where its data has always been. */
export const databaseVolume = (serviceId: string) => `berth-db-${serviceId}`

export const databaseWorkload: KindWorkload<DatabaseConfig> = {
  secretValues: (snapshot, openSecret) => [openSecret(snapshot.configuration.credentials.passwordSealed)],
  describe({ serviceId, configuration: config }, { action, settings, openSecret }) {
    if (config.mode !== 'CONTAINER') {
      if (action === 'DEPLOY' || action === 'RESTART' || action === 'DEPLOY_DRY_RUN')
        return { type: 'refused', message: `a ${config.mode} database needs a cloud provider; Berth runs CONTAINER databases` }
      return {
        type: 'nothing',
        say: { step: action.toLowerCase(), message: `a ${config.mode} database runs nowhere: nothing to ${action.toLowerCase()}` },
      }
    }
    const type = config.type as DatabaseType
    const engine = DATABASE_ENGINES[type]
    const runtime = DATABASE_RUNTIME[type]
    const { credentials } = config
    const password = openSecret(credentials.passwordSealed)
    return {
      type: 'instances',
      image: { public: databaseImage(settings.databaseImages, type, config.version) },
      entrypoint: null,
      args: runtime.command?.(`$(${PASSWORD_VARIABLE})`) ?? [],
      expandsArgs: true,
      env: { ...runtime.env(credentials.login, password, credentials.databaseName), ...(runtime.command ? { [PASSWORD_VARIABLE]: password } : {}) },
      variables: false,
      hostname: credentials.host,
      ports: [
        {
          name: 'db',
          internalPort: engine.port,
          externalPort: null,
          protocol: 'TCP',
          publiclyAccessible: config.accessibility === 'PUBLIC',
          isDefault: true,
          publicPath: null,
        },
      ],
      readiness: {
        type: { tcp: { port: engine.port, host: null } },
        initialDelaySeconds: 0,
        periodSeconds: 1,
        timeoutSeconds: 1,
        successThreshold: 1,
        failureThreshold: 60,
      },
      liveness: null,
      volumes: [
        {
          id: 'data',
          mountPath: runtime.dataDir,
          sizeGb: config.storage,
          subPath: 'data',
          lifetime: 'service',
          names: { docker: databaseVolume(serviceId), kubernetes: 'data' },
        },
      ],
      resources: { cpuMilli: config.cpu, memoryMb: config.memory },
      // One instance: the image is no cluster, and two would share the volume.
      instances: 1,
    }
  },
}
