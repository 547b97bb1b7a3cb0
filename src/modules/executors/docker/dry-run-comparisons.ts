import type { ServiceOutcome } from '../executor.ts'
import type { DockerAction } from './docker-executor.ts'
import { serviceContainers } from './docker-objects.ts'

// What a dry run (DEPLOY_DRY_RUN) of a service with instances says once it has the image a deploy
// would run (pulled or built): that image against the image its running instances run now, under
// the step `compare`. It changes nothing.

/** Says what a deploy of `name` to `instances` instance(s) of `image` would change in what runs now. */
export async function compareWithRunning(act: DockerAction, name: string, image: string, instances: number): Promise<ServiceOutcome> {
  const running = (await serviceContainers(act.docker, act.owner.serviceId)).filter((instance) => instance.State === 'running')
  const images = [...new Set(running.map((instance) => instance.Image))]
  const compare = (message: string) => act.say('compare', message)
  if (images.length === 0) compare(`${name} runs nothing now: a deploy would start ${instances} instance(s) of ${image}`)
  else if (images.length === 1 && images[0] === image)
    compare(
      `${name} runs ${image} now (${running.length} instance(s)): a deploy would roll out the same image with the configuration and variables as of now`,
    )
  else compare(`${name} runs ${images.join(', ')} now (${running.length} instance(s)): a deploy would run ${image} instead`)
  compare('dry run: nothing running was changed')
  return { ok: true }
}
