import type { SecretBox } from '#src/platform/secrets/secret-box.ts'
import { createScopeWrites } from './scope-writes.ts'
import { createVariableAccess, type VariableAccessDeps } from './variable-access.ts'
import { createVariableEdits } from './variable-edits.ts'
import { createVariableImport } from './variable-import.ts'
import { createVariableLinks } from './variable-links.ts'
import { createVariableReads } from './variable-reads.ts'
import type { VariableLimits } from './variable-rules.ts'

// Variables and secrets of projects, environments and services: one store behind the generic
// `/variable` API and the per-scope ones (docs/variables.md, "Variables and secrets"). The module's
// one service object, made of its parts: reads, a variable's own edits, aliases and overrides, imports.

export interface VariablesDeps extends VariableAccessDeps {
  secrets: SecretBox
  limits: VariableLimits
}

export function createVariablesService(deps: VariablesDeps) {
  const access = createVariableAccess(deps)
  const writes = createScopeWrites(deps)
  return {
    ...createVariableReads(deps.repo, access),
    ...createVariableEdits(deps.repo, access, writes),
    ...createVariableLinks(access, writes),
    ...createVariableImport(deps.repo, access, writes),
  }
}

export type VariablesService = ReturnType<typeof createVariablesService>
