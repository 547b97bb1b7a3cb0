/**
 * The one table of enum words that the contract and the reference document spell differently: the
 * contract's neutral word and the reference's tool name, with the reference's enums that hold the
 * pair (found by comparing every enum of the two documents; docs/enum-words.md). Berth stores and
 * handles the word its own schema declares; enum-words.ts accepts either word on input and, with
 * BERTH_ENUM_WORDS=reference, answers the reference's.
 *
 * Each word stands in one pair only and no word is both a contract word and a reference word, so
 * a word maps the same way in every enum that declares it.
 */
export interface EnumWordPair {
  readonly contract: string
  readonly reference: string
  /** The reference document's enums (components/schemas) that hold the reference word. */
  readonly enums: readonly string[]
}

/** BERTH_ENUM_WORDS: whose words the answers use. */
export type EnumWords = 'contract' | 'reference'
export const ENUM_WORDS: readonly EnumWords[] = ['contract', 'reference']

const ORIGIN_ENUMS = ['EnvironmentStatusEventOriginEnum', 'OrganizationEventOrigin']

export const ENUM_WORD_PAIRS: readonly EnumWordPair[] = [
  // Service kinds (contract 2.6, 2.10) and, where the reference names the kind, variables' scopes and job lifecycles.
  {
    contract: 'IAC',
    reference: 'TERRAFORM',
    enums: [
      'ServiceTypeEnum',
      'LinkedServiceTypeEnum',
      'ServiceTypeForVariableEnum',
      'APIVariableScopeEnum',
      'GitTokenAssociatedServiceType',
      'JobLifecycleTypeEnum',
      'OrganizationEventTargetType',
    ],
  },
  { contract: 'GITOPS_APP', reference: 'ARGOCD_APP', enums: ['ServiceTypeEnum', 'ArgocdAssociatedServiceType'] },
  // A job's lifecycle (contract 2.7).
  { contract: 'CLOUDTEMPLATE', reference: 'CLOUDFORMATION', enums: ['JobLifecycleTypeEnum'] },
  // What triggered a deployment (contract 2.3).
  { contract: 'IAC_FORCE_UNLOCK', reference: 'TERRAFORM_FORCE_UNLOCK', enums: ['DeploymentHistoryTriggerAction'] },
  { contract: 'IAC_MIGRATE_STATE', reference: 'TERRAFORM_MIGRATE_STATE', enums: ['DeploymentHistoryTriggerAction', 'ServiceSubActionEnum'] },
  // Where it came from (contract 2.4).
  { contract: 'PLATFORM_INTERNAL', reference: 'QOVERY_INTERNAL', enums: ORIGIN_ENUMS },
  { contract: 'IAC_PROVIDER', reference: 'TERRAFORM_PROVIDER', enums: ORIGIN_ENUMS },
  // A service's sub-action (contract 2.8).
  { contract: 'IAC_PLAN_ONLY', reference: 'TERRAFORM_PLAN_ONLY', enums: ['ServiceSubActionEnum'] },
  { contract: 'IAC_PLAN_AND_APPLY', reference: 'TERRAFORM_PLAN_AND_APPLY', enums: ['ServiceSubActionEnum'] },
  { contract: 'IAC_DESTROY', reference: 'TERRAFORM_DESTROY', enums: ['ServiceSubActionEnum'] },
  { contract: 'IAC_FORCE_UNLOCK_STATE', reference: 'TERRAFORM_FORCE_UNLOCK_STATE', enums: ['ServiceSubActionEnum'] },
]

/** Each word's partner in the other document: the contract's word for a reference word and the other way round. */
export const PARTNER_WORD: ReadonlyMap<string, string> = new Map(
  ENUM_WORD_PAIRS.flatMap(({ contract, reference }) => [
    [contract, reference],
    [reference, contract],
  ]),
)

/** The reference's word for each contract word. */
export const REFERENCE_WORD: ReadonlyMap<string, string> = new Map(ENUM_WORD_PAIRS.map(({ contract, reference }) => [contract, reference]))

/** The contract's word for a kind of service the reference names otherwise (ServiceTypeEnum's pairs). */
const CONTRACT_KIND: ReadonlyMap<string, string> = new Map(
  ENUM_WORD_PAIRS.filter(({ enums }) => enums.includes('ServiceTypeEnum')).map(({ contract, reference }) => [reference, contract]),
)

/** A kind's word as the contract says it: the reference's TERRAFORM is IAC; any other word as given. */
export const asContractKind = (word: string): string => CONTRACT_KIND.get(word) ?? word
