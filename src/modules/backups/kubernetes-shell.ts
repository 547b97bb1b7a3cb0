import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { Readable } from 'node:stream'
import { namespaceOf } from '#src/modules/executors/kubernetes/helm-executor.ts'
import { type DatabaseShell, keptText, type ShellCommand, type ShellOutcome } from './database-shell.ts'

// The database's pod on a Kubernetes cluster, reached with `kubectl exec` and the cluster's
// kubeconfig (in a private temporary file for the length of one command): the pod is the running
// one the built-in chart labels with the service's id, in the environment's namespace. kubectl
// exec carries no environment of its own, so the variables go through `env` inside the pod.

export interface KubernetesShellSettings {
  /** BERTH_KUBECTL_PATH. */
  kubectlPath: string
  kubeconfig: string
  environmentId: string
  serviceId: string
}

interface Spawned {
  stdout: Readable
  finished: Promise<ShellOutcome>
  stdin: NodeJS.WritableStream
}

export function kubernetesShell(settings: KubernetesShellSettings): DatabaseShell {
  const namespace = namespaceOf(settings.environmentId)

  async function kubectl(args: string[], signal: AbortSignal, withStdin: boolean): Promise<Spawned> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'berth-backup-kube-'))
    const kubeconfig = path.join(dir, 'kubeconfig')
    await writeFile(kubeconfig, settings.kubeconfig, { mode: 0o600 })
    const child = spawn(settings.kubectlPath, ['--kubeconfig', kubeconfig, '--namespace', namespace, ...args], {
      stdio: [withStdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      signal,
    })
    const stderr = keptText()
    child.stderr!.on('data', (chunk: Buffer) => stderr.add(chunk))
    const finished = new Promise<ShellOutcome>((resolve, reject) => {
      child.once('error', reject)
      child.once('close', (code) => resolve({ exitCode: code ?? -1, stderr: stderr.text() }))
    }).finally(() => rm(dir, { recursive: true, force: true }))
    return { stdout: child.stdout!, finished, stdin: child.stdin as NodeJS.WritableStream }
  }

  async function runningPod(signal: AbortSignal): Promise<string> {
    const selector = `berth.service-id=${settings.serviceId}`
    const listed = await kubectl(
      ['get', 'pods', '--selector', selector, '--field-selector', 'status.phase=Running', '--output', 'jsonpath={.items[*].metadata.name}'],
      signal,
      false,
    )
    const names = keptText()
    listed.stdout.on('data', (chunk: Buffer) => names.add(chunk))
    const outcome = await listed.finished
    if (outcome.exitCode !== 0) throw new Error(`kubectl get pods exited with code ${outcome.exitCode}: ${outcome.stderr.trim()}`)
    const pod = names.text().trim().split(/\s+/)[0]
    if (!pod) throw new Error(`the database has no running pod in the namespace ${namespace}: deploy it (or start it) first`)
    return pod
  }

  const execArgs = (pod: string, command: ShellCommand, withStdin: boolean) => [
    'exec',
    ...(withStdin ? ['--stdin'] : []),
    pod,
    '--',
    ...(command.env && Object.keys(command.env).length > 0 ? ['env', ...Object.entries(command.env).map(([key, value]) => `${key}=${value}`)] : []),
    ...command.argv,
  ]

  const collected = async (spawned: Spawned) => {
    const kept = keptText()
    spawned.stdout.on('data', (chunk: Buffer) => kept.add(chunk))
    return { ...(await spawned.finished), stdout: kept.text() }
  }

  return {
    async stream(command, signal) {
      const spawned = await kubectl(execArgs(await runningPod(signal), command, false), signal, false)
      return { stdout: spawned.stdout, finished: spawned.finished }
    },
    async feed(command, input, signal) {
      const spawned = await kubectl(execArgs(await runningPod(signal), command, true), signal, true)
      const read = collected(spawned)
      input.pipe(spawned.stdin)
      await new Promise<void>((resolve, reject) => {
        input.once('end', resolve)
        input.once('error', reject)
      })
      return read
    },
    async run(command, signal) {
      return collected(await kubectl(execArgs(await runningPod(signal), command, false), signal, false))
    },
  }
}
