import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { MetricsSettings } from '#src/config.ts'
import { answersOk, type SupervisedProcess, superviseProcess } from './supervised-process.ts'

// The Prometheus and Alertmanager alert rules run on (docs/metrics.md): the operator's
// (BERTH_PROMETHEUS_URL, BERTH_ALERTMANAGER_URL) or, with the Docker executor, Debian's
// `prometheus` and `prometheus-alertmanager` that `berth serve` runs on loopback with their files
// under `<data dir>/monitoring`. Prometheus scrapes Berth's /metrics; the rule files and
// Alertmanager's configuration are written by the alerting module and loaded through /-/reload.

export interface MonitoringPaths {
  prometheusUrl: string
  alertmanagerUrl: string
  /** Where rule files go: one `berth-alert-rules.yml`. */
  rulesDir: string
  /** Alertmanager's configuration file, and the directory of the secrets it reads (`*_file` options). */
  alertmanagerConfigFile: string
  secretsDir: string
  /** Whether serve runs the engines itself. */
  embedded: boolean
}

export const monitoringDir = (dataDir: string) => path.join(dataDir, 'monitoring')

export function monitoringPaths(settings: MetricsSettings, dataDir: string): MonitoringPaths {
  const dir = monitoringDir(dataDir)
  return {
    prometheusUrl: settings.prometheusUrl ?? `http://127.0.0.1:${settings.prometheusPort}`,
    alertmanagerUrl: settings.alertmanagerUrl ?? `http://127.0.0.1:${settings.alertmanagerPort}`,
    rulesDir: settings.rulesDir ?? path.join(dir, 'rules'),
    alertmanagerConfigFile: settings.alertmanagerConfigFile ?? path.join(dir, 'alertmanager', 'alertmanager.yml'),
    secretsDir: path.join(dir, 'alertmanager', 'secrets'),
    embedded: settings.prometheusUrl === undefined && settings.alertmanagerUrl === undefined,
  }
}

/** Prometheus' configuration: scrape Berth's /metrics, load the rule files, send alerts to Alertmanager. JSON is YAML. */
export function prometheusConfig(settings: MetricsSettings, paths: MonitoringPaths, berthTarget: string): object {
  const seconds = `${Math.max(1, Math.round(settings.intervalMs / 1000))}s`
  return {
    global: { scrape_interval: seconds, evaluation_interval: seconds, scrape_timeout: seconds },
    rule_files: [path.join(paths.rulesDir, '*.yml')],
    alerting: { alertmanagers: [{ static_configs: [{ targets: [new URL(paths.alertmanagerUrl).host] }] }] },
    scrape_configs: [{ job_name: 'berth', metrics_path: '/metrics', static_configs: [{ targets: [berthTarget] }] }],
  }
}

type Log = { info(fields: object, message: string): void; warn(fields: object, message: string): void }

/** Runs both engines until `stop`; `onStarted` (the alerting configuration) after each start of either. */
export async function startMonitoringEngines(options: {
  settings: MetricsSettings
  dataDir: string
  /** Berth's own host:port, which Prometheus scrapes. */
  berthTarget: string
  log: Log
  /** Writes the rule files and Alertmanager's configuration (before Alertmanager starts: it needs its file). */
  writeAlertingFiles(): Promise<void>
  /** Writes and loads them (after either engine started). */
  onStarted(): Promise<void>
}): Promise<{ stop(): Promise<void> }> {
  const { settings, log } = options
  const paths = monitoringPaths(settings, options.dataDir)
  const dir = monitoringDir(options.dataDir)
  for (const sub of ['prometheus/data', 'alertmanager/data', 'alertmanager/secrets'])
    await mkdir(path.join(dir, sub), { recursive: true, mode: 0o700 })
  await mkdir(paths.rulesDir, { recursive: true, mode: 0o700 })
  const prometheusFile = path.join(dir, 'prometheus', 'prometheus.yml')
  await writeFile(prometheusFile, JSON.stringify(prometheusConfig(settings, paths, options.berthTarget), null, 2), { mode: 0o600 })
  const loaded = async () => {
    try {
      await options.onStarted()
    } catch (error) {
      log.warn({ component: 'alerting', err: error }, 'could not load the alerting configuration; it is loaded again at the next change')
    }
  }
  const running: SupervisedProcess[] = []
  const stop = async () => {
    await Promise.all(running.map((process) => process.stop()))
  }
  try {
    const prometheusHost = new URL(paths.prometheusUrl).host
    const alertmanagerHost = new URL(paths.alertmanagerUrl).host
    for (const [name, url] of [
      ['prometheus', paths.prometheusUrl],
      ['alertmanager', paths.alertmanagerUrl],
    ] as const) {
      if (await answersOk(`${url}/-/ready`))
        throw new Error(`something already answers at ${url} (a ${name} left running?): stop it, or set BERTH_${name.toUpperCase()}_PORT`)
    }
    running.push(
      await superviseProcess({
        name: 'alertmanager',
        program: settings.alertmanagerPath,
        args: [
          `--config.file=${paths.alertmanagerConfigFile}`,
          `--storage.path=${path.join(dir, 'alertmanager', 'data')}`,
          `--web.listen-address=${alertmanagerHost}`,
          '--cluster.listen-address=',
        ],
        logFile: path.join(dir, 'alertmanager', 'alertmanager.log'),
        readyUrl: `${paths.alertmanagerUrl}/-/ready`,
        log,
        onStarted: loaded,
        beforeStart: options.writeAlertingFiles,
      }),
    )
    running.push(
      await superviseProcess({
        name: 'prometheus',
        program: settings.prometheusPath,
        args: [
          `--config.file=${prometheusFile}`,
          `--storage.tsdb.path=${path.join(dir, 'prometheus', 'data')}`,
          `--web.listen-address=${prometheusHost}`,
          '--web.enable-lifecycle',
        ],
        logFile: path.join(dir, 'prometheus', 'prometheus.log'),
        readyUrl: `${paths.prometheusUrl}/-/ready`,
        log,
        onStarted: loaded,
      }),
    )
  } catch (error) {
    await stop()
    throw error
  }
  log.info({ component: 'monitoring', prometheus: paths.prometheusUrl, alertmanager: paths.alertmanagerUrl }, 'prometheus and alertmanager run')
  return { stop }
}
