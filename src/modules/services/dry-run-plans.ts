import type { PlannedStep } from './service-kinds.ts'

// What a dry run (trigger DEPLOY_DRY_RUN) plans after the steps of a deploy it goes through: the
// step that says what would change instead of changing it (docs/rollbacks.md, "Dry runs").

/** The last step of a dry run: `what` is compared with what runs, and nothing running is changed. */
export const comparisonStep = (step: string, what: string): PlannedStep => ({ step, lines: [`comparing ${what}; nothing running is changed`] })
