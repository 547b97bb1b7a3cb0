// What a dry run (trigger DEPLOY_DRY_RUN) of a kind reports when its executor checks nothing of
// it yet: it says so, and changes nothing (docs/rollbacks.md, "Dry runs").

/** The one step of such a dry run. */
export const uncheckedDryRun = (name: string) => [{ step: 'dry-run', lines: [`a dry run of ${name}: nothing running is changed`] }]
