import { Type } from 'typebox'
import { DateTime, Nullable } from '#src/platform/http/common-schemas.ts'

const STEPS = [
  'LoadConfiguration',
  'Create',
  'Created',
  'CreateError',
  'Pause',
  'Paused',
  'PauseError',
  'Delete',
  'Deleted',
  'DeleteError',
  'RetrieveClusterConfig',
  'RetrieveClusterResources',
  'ValidateSystemRequirements',
  'UnderMigration',
  'Unknown',
] as const

export const ClusterLogs = Type.Object(
  {
    type: Type.String({ description: 'log level: info, warning or error' }),
    timestamp: DateTime,
    step: Type.Unsafe<(typeof STEPS)[number]>({ type: 'string', enum: [...STEPS] }),
    message: Type.Object({ safe_message: Type.String() }),
    error: Type.Optional(
      Type.Object({
        tag: Type.String(),
        user_log_message: Type.String(),
        event_details: Type.Object({
          provider_kind: Type.String(),
          region: Type.String(),
          transmitter: Type.Object({ type: Type.String(), id: Type.String(), name: Type.String() }),
        }),
      }),
    ),
    details: Type.Optional(
      Type.Object({
        provider_kind: Type.String(),
        region: Type.String(),
        transmitter: Type.Object({ type: Type.String(), id: Type.String(), name: Type.String() }),
      }),
    ),
  },
  { title: 'ClusterLogs' },
)
export const ClusterLogsResponseList = Type.Object({ results: Type.Array(ClusterLogs) }, { title: 'ClusterLogsResponseList' })

export const ClusterLogsQuery = Type.Object({
  endpoint: Type.String({ maxLength: 64, description: 'the Loki endpoint asked: `query_range` (or `query`, answered the same)' }),
  query: Type.String({
    maxLength: 4096,
    description: 'LogQL: `{component="cluster"}`, `{component=~"cluster|front-door"}` or `{}`, then `|= "text"` and `!= "text"` filters',
  }),
  start: Type.Optional(Type.String({ maxLength: 64, description: 'nanoseconds since the epoch, or RFC 3339' })),
  end: Type.Optional(Type.String({ maxLength: 64, description: 'nanoseconds since the epoch, or RFC 3339' })),
  limit: Type.Optional(Type.String({ maxLength: 8, pattern: '^[0-9]+$', description: 'at most this many lines (100 by default, 1,000 at most)' })),
  since: Type.Optional(Type.String({ maxLength: 32, description: 'ignored: give start' })),
  step: Type.Optional(Type.String({ maxLength: 32, description: 'ignored (metric queries only)' })),
  interval: Type.Optional(Type.String({ maxLength: 32, description: 'ignored (metric queries only)' })),
  direction: Type.Optional(
    Type.Unsafe<'forward' | 'backward'>({ type: 'string', enum: ['forward', 'backward'], description: 'backward (newest first) by default' }),
  ),
  time: Type.Optional(Type.String({ maxLength: 64, description: 'ignored: give end' })),
})

export const ClusterLogsResponse = Type.Object(
  { response: Type.String({ description: "Loki's answer to a query_range of streams, as JSON text" }) },
  { title: 'ClusterLogsResponse' },
)

const PROVIDERS = ['QOVERY', 'CLOUDFLARE', 'ROUTE53'] as const
const Provider = Type.Unsafe<(typeof PROVIDERS)[number]>({ type: 'string', enum: [...PROVIDERS] })

// One object with each provider's members optional, checked per provider by the service: Ajv's
// removeAdditional would strip members while trying the alternatives of a oneOf.
export const ClusterDnsProviderRequest = Type.Object(
  {
    dns_provider: Type.Object(
      {
        provider: Provider,
        domain: Type.String({ minLength: 1, maxLength: 253 }),
        email: Type.Optional(Type.String({ maxLength: 254, description: 'CLOUDFLARE' })),
        api_token: Type.Optional(
          Type.String({ minLength: 1, maxLength: 4096, writeOnly: true, description: 'CLOUDFLARE: sealed, never answered; given on every edit' }),
        ),
        proxied: Type.Optional(Type.Boolean({ description: 'CLOUDFLARE' })),
        credentials: Type.Optional(
          Type.Object({
            type: Type.Unsafe<'STATIC'>({ type: 'string', enum: ['STATIC'] }),
            aws_access_key_id: Type.String({ minLength: 1, maxLength: 128 }),
            aws_secret_access_key: Type.String({
              minLength: 1,
              maxLength: 4096,
              writeOnly: true,
              description: 'sealed, never answered; given on every edit',
            }),
          }),
        ),
        aws_region: Type.Optional(Type.String({ maxLength: 64, description: 'ROUTE53' })),
        hosted_zone_id: Type.Optional(Nullable(Type.String({ maxLength: 64, description: 'ROUTE53' }))),
      },
      { title: 'ClusterDnsProviderRequestProvider' },
    ),
  },
  { title: 'ClusterDnsProviderRequest' },
)

export const ClusterDnsProviderResponse = Type.Object(
  {
    dns_provider: Type.Object(
      {
        provider: Provider,
        domain: Type.String(),
        email: Type.Optional(Type.String()),
        proxied: Type.Optional(Type.Boolean()),
        credentials: Type.Optional(
          Type.Object({ type: Type.Unsafe<'STATIC'>({ type: 'string', enum: ['STATIC'] }), aws_access_key_id: Type.String() }),
        ),
        aws_region: Type.Optional(Type.String()),
        hosted_zone_id: Type.Optional(Nullable(Type.String())),
      },
      { title: 'ClusterDnsProviderResponseProvider' },
    ),
  },
  { title: 'ClusterDnsProviderResponse' },
)

export const ClusterTokenQuery = Type.Object({
  read_only: Type.Optional(Type.Boolean({ description: 'true is refused: Berth holds no read-only credentials of a cluster' })),
})

export const ClusterTokenResponse = Type.Object(
  {
    apiVersion: Type.String(),
    kind: Type.String(),
    spec: Type.Object({}),
    status: Type.Object({ token: Type.String(), expirationTimestamp: DateTime }),
  },
  { title: 'ClusterToken' },
)
