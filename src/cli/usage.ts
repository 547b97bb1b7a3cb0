/** A command line that cannot be run as given: berth prints the message and exits with code 2. */
export class UsageError extends Error {}
