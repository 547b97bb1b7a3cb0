import type { RunnableTrigger } from '#src/platform/deployment-states.ts'

// How a configuration asks the simulated executor to fail (README, "Simulated deployments"): a list
// of action words, `deploy,stop`, names the actions that fail.

/** The word of each action in such a list. */
const ACTION_WORDS: Record<RunnableTrigger, string> = {
  DEPLOY: 'deploy',
  // A dry run does what a deploy does up to changing what runs: it fails where a deploy would.
  DEPLOY_DRY_RUN: 'deploy',
  RESTART: 'restart',
  STOP: 'stop',
  UNINSTALL: 'uninstall',
  DELETE: 'uninstall',
}

const wordsOf = (list: string) => list.split(',').map((word) => word.trim().toLowerCase())

/** Whether a comma-separated list of action words names `trigger`. */
export const listNamesAction = (list: string, trigger: RunnableTrigger): boolean => wordsOf(list).includes(ACTION_WORDS[trigger])

/** Whether one of the arguments is `flag` (every action fails), or `flag=<list>` whose list names `trigger` or says `true`. */
export function argumentsSimulateFailure(args: readonly string[], flag: string, trigger: RunnableTrigger): boolean {
  return args.some((argument) => {
    if (argument === flag) return true
    if (!argument.startsWith(`${flag}=`)) return false
    const words = wordsOf(argument.slice(flag.length + 1))
    return words.includes('true') || words.includes(ACTION_WORDS[trigger])
  })
}
