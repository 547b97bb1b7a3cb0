import { type TOptional, type TProperties, type TSchema, type TString, Type } from 'typebox'
import { Nullable } from '#src/platform/http/common-schemas.ts'
import { namedResourceHead, RequestName } from '#src/platform/http/named-resources.ts'

// What the wire shapes of the three families share. Each family's schema spreads these in its own
// order: /openapi.json lists the fields as the reference does.

/** A credential's name in a request. */
export const CredentialName = RequestName('case insensitive; unique in the organization')

/** A credential's description in a request. */
export const CredentialDescription = Type.Optional(Nullable(Type.String({ maxLength: 10_000 })))

/** The first fields of every credential in a response. */
export const credentialResponseHead = namedResourceHead

/** A config field of a request, up to `maxLength`; null is accepted as "not given" for clients that send every key. */
export const configValue = (maxLength: number) => (description?: string) =>
  Type.Optional(Nullable(Type.String({ maxLength, ...(description ? { description } : {}) })))

/** Each config field's name on the wire, in `config` of the requests and responses of both sealed families. */
export const SEALED_CONFIG_WIRE_NAMES = {
  username: 'username',
  password: 'password',
  region: 'region',
  accessKeyId: 'access_key_id',
  secretAccessKey: 'secret_access_key',
  roleArn: 'role_arn',
  scalewayAccessKey: 'scaleway_access_key',
  scalewaySecretKey: 'scaleway_secret_key',
  scalewayProjectId: 'scaleway_project_id',
  jsonCredentials: 'json_credentials',
  gcpCredentialsType: 'gcp_credentials_type',
  projectId: 'project_id',
  serviceAccountEmail: 'service_account_email',
  workloadIdentityProviderResource: 'workload_identity_provider_resource',
  tokenLifetimeSeconds: 'token_lifetime_seconds',
  azureTenantId: 'azure_tenant_id',
  azureSubscriptionId: 'azure_subscription_id',
} as const

/** How a secret config field is described. */
export const SECRET = 'write-only: never returned; omitted on an edit keeps the stored value, "" clears it'

/** The config fields both sealed families take first: basic auth, and AWS's keys for `ecrKind`. */
export const basicAndAwsConfig = (value: ReturnType<typeof configValue>, ecrKind: string) => ({
  username: value('goes with password'),
  password: value(SECRET),
  access_key_id: value(`${ecrKind}: with secret_access_key, unless role_arn is set`),
  secret_access_key: value(SECRET),
})

/** Public config fields of a response that hold text, in this order. */
export const optionalStrings = <Name extends string>(...names: Name[]) =>
  Object.fromEntries(names.map((name) => [name, Type.Optional(Type.String())])) as { [Field in Name]: TOptional<TString> }

/** The public config fields both sealed families return first. */
const awsAndScalewayResponseConfig = () =>
  optionalStrings('username', 'region', 'access_key_id', 'role_arn', 'scaleway_access_key', 'scaleway_project_id')

/** A sealed family's request: name, `kind`, description, the family's own `fields`, then its `config` fields; no others. */
export const sealedCredentialRequest = <Kind extends TSchema, Fields extends TProperties, Config extends TProperties>(
  title: string,
  kind: Kind,
  fields: Fields,
  config: Config,
) =>
  Type.Object(
    { name: CredentialName, kind, description: CredentialDescription, ...fields, config: Type.Object(config, { additionalProperties: false }) },
    { additionalProperties: false, title },
  )

/**
 * A sealed family's response: the head, `kind`, the family's own `fields`, how many services use it
 * (`oneOfThem` names one), then the config fields safe to return (the shared ones, then `config`):
 * the serializer drops anything else, a secret included.
 */
export const sealedCredentialResponse = <Kind extends TSchema, Fields extends TProperties, Config extends TProperties>(
  title: string,
  kind: Kind,
  fields: Fields,
  oneOfThem: string,
  config: Config,
) =>
  Type.Object(
    {
      ...credentialResponseHead(),
      kind,
      ...fields,
      associated_services_count: Type.Integer({ description: `The number of services using this ${oneOfThem}` }),
      config: Type.Object({ ...awsAndScalewayResponseConfig(), ...config }),
    },
    { title },
  )
