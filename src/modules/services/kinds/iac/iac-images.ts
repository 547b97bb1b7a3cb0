import { WORKDIR } from './iac-commands.ts'

/** The Dockerfile of a run's image, on both executors: the engine's image, the inline fragment, the repository's root path. */
export function runDockerfile(image: string, fragment: string | null): string {
  return [`FROM ${image}`, ...(fragment ? [fragment] : []), `COPY . ${WORKDIR}`, `WORKDIR ${WORKDIR}`, ''].join('\n')
}
