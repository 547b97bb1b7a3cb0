import type Docker from 'dockerode'
import { followTransfer, guardRegistryHost, type PullAuth } from './images.ts'

// An image built on the runner, pushed to a registry a Kubernetes cluster pulls it from.

/**
 * Tags `local` as `target` (`host/name:tag`) and pushes it with `auth`; rejects with the engine's or
 * the registry's reason. The registry's host goes through the address guard first, as a pull's does.
 */
export async function pushImage(
  docker: Docker,
  local: string,
  target: string,
  auth: PullAuth | undefined,
  say: (message: string) => void,
  signal: AbortSignal,
  { allowPrivateUrls }: { allowPrivateUrls: boolean },
): Promise<void> {
  await guardRegistryHost('push', target, allowPrivateUrls, say)
  const colon = target.lastIndexOf(':')
  await docker.getImage(local).tag({ repo: target.slice(0, colon), tag: target.slice(colon + 1) })
  say(`pushing image ${target}${auth ? ` as ${auth.username}` : ''}`)
  // The engine wants an X-Registry-Auth header even for a registry without credentials: an empty one then.
  const authconfig = auth ?? ({} as PullAuth)
  const stream = (await docker.getImage(target).push({ authconfig, abortSignal: signal })) as NodeJS.ReadableStream
  const failure = await followTransfer(docker, stream, say, signal)
  if (failure) throw new Error(`the push of ${target} failed: ${failure}`)
  say(`pushed image ${target}`)
}
