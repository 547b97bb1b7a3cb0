import { type Static, Type } from 'typebox'
import { Enum, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'
import { recordHeadSchema } from '#src/platform/http/named-resources.ts'

// Berth extension: the GITOPS_APP services the Argo CD poller keeps (docs/argocd.md). The
// reference serves them through getArgoCdApp; these are the routes every kind has.

/** No body Berth takes: the create and edit are refused (Argo CD owns the application). */
export const GitOpsAppRequest = Type.Object(
  { name: Type.Optional(Type.String({ maxLength: 255 })) },
  { title: 'GitopsAppRequest', description: 'Berth extension: refused with 400; Argo CD owns its applications' },
)

export const GitOpsAppResponse = Type.Object(
  {
    ...recordHeadSchema(),
    environment: Type.Object({ id: Uuid }),
    name: Type.String({ description: "the application's name in Argo CD" }),
    service_type: Enum(['GITOPS_APP'] as const, 'ServiceTypeEnum'),
    namespace: Type.String({ description: "the application's destination namespace" }),
    icon_uri: Type.String(),
    description: Nullable(Type.String()),
  },
  { title: 'GitopsAppResponse', description: 'Berth extension: an Argo CD application shown as a service (getArgoCdApp has its status)' },
)

export const GitOpsAppDeployRequest = Type.Object(
  {
    revision: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: 'the git revision Argo CD syncs to; absent: its target revision' }),
    ),
  },
  { title: 'GitopsAppDeployRequest' },
)
export type GitOpsAppDeployRequest = Static<typeof GitOpsAppDeployRequest>
