// A variable as a deployment snapshot stores it, shared by the variables module (which resolves it),
// the services core and the deployments (which keep and read it). Executors take the first five
// fields (`executors/executor.ts`).

/** A variable as a deployment snapshot keeps it: secrets still sealed, and where the value came from. */
export interface SnapshotVariable {
  key: string
  /** The value of what is not a secret. */
  value?: string
  /** A secret's value, sealed (base64). */
  sealed?: string
  isSecret: boolean
  /** Where the value is delivered as a file, for a file variable. */
  mountPath: string | null
  /** The variable that gave the value, its scope and type, as they were. */
  variableId: string
  scope: string
  variableType: string
}
