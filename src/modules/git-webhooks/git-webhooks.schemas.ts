import { Type } from 'typebox'
import { DateTime, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'

export const GitWebhookSecretResponse = Type.Object(
  {
    organization_id: Uuid,
    secret: Nullable(Type.String({ description: 'the secret git providers sign deliveries with; null until an ADMIN makes one (POST)' })),
    created_at: Nullable(DateTime),
    rotated_at: Nullable(DateTime),
    webhook_paths: Type.Object(
      { github: Type.String(), gitlab: Type.String(), bitbucket: Type.String() },
      { description: "where each provider delivers: the path under Berth's public address" },
    ),
  },
  { $id: 'GitWebhookSecretResponse', title: 'GitWebhookSecretResponse' },
)

export const GitWebhookDeliveryResponse = Type.Object(
  {
    delivery_id: Type.String({ description: "the provider's delivery id" }),
    outcome: Type.Union([Type.Literal('DEPLOYED'), Type.Literal('DELETED'), Type.Literal('IGNORED'), Type.Literal('REPLAYED')], {
      description: 'DELETED: a closed pull request queued the deletion of its preview environments (docs/previews.md)',
    }),
    reason: Nullable(Type.String({ description: 'why nothing was deployed' })),
    deployments: Type.Array(
      Type.Object({
        execution_id: Type.String({ description: 'the deployment request queued, one per environment' }),
        environment_id: Uuid,
        service_ids: Type.Array(Uuid),
      }),
    ),
    deleted_environment_ids: Type.Optional(Type.Array(Uuid, { description: 'the preview environments a closed pull request deletes' })),
  },
  { $id: 'GitWebhookDeliveryResponse', title: 'GitWebhookDeliveryResponse' },
)
