import { type Static, Type } from 'typebox'
import { DateTime, Nullable, Uuid } from '#src/platform/http/common-schemas.ts'
import { CHECKED_STATUSES } from './dns-check.ts'

export const CustomDomainRequest = Type.Object(
  {
    domain: Type.String({
      maxLength: 253,
      description:
        'your custom domain (`app.example.com`, or a wildcard `*.example.com`): RFC 1123 labels, at most 239 characters (231 for a wildcard: ' +
        'the longest the front door obtains a certificate for), no IP address; unique (case aside) among the domains of the organization, ' +
        'and not held by another service on the server (409)',
      examples: ['my.domain.tld'],
    }),
    generate_certificate: Type.Boolean({
      description: 'whether a certificate is to be made for the domain (recorded; the front door obtains one for every domain it serves)',
    }),
    use_cdn: Type.Optional(
      Type.Boolean({
        description:
          'the domain is behind a CDN: the check then asks that it resolves to an IP address and that its TXT record `ownership_txt_record` holds its token, ' +
          'else that it is a CNAME of `validation_domain`',
      }),
    ),
  },
  { title: 'CustomDomainRequest' },
)
export type CustomDomainRequest = Static<typeof CustomDomainRequest>

const CheckedStatus = (description?: string) =>
  Type.Unsafe<(typeof CHECKED_STATUSES)[number]>({
    type: 'string',
    enum: [...CHECKED_STATUSES],
    title: 'CheckedCustomDomainStatus',
    ...(description ? { description } : {}),
  })

export const CustomDomainResponse = Type.Object(
  {
    id: Uuid,
    created_at: DateTime,
    updated_at: Type.Optional(DateTime),
    domain: Type.String(),
    generate_certificate: Type.Boolean(),
    use_cdn: Type.Boolean(),
    validation_domain: Type.String({ description: 'the host to point the domain at with a CNAME record' }),
    status: Type.Unsafe<'VALIDATION_PENDING'>({
      type: 'string',
      enum: ['VALIDATION_PENDING'],
      title: 'CustomDomainStatusEnum',
      description: "the reference's only word; the last check's outcome is in `check_status`",
    }),
    check_status: Nullable(CheckedStatus('Berth extension: the outcome of the last check of the domain (checkCustomDomain); null before any')),
    check_error_details: Nullable(Type.String({ description: "Berth extension: the last check's `error_details`" })),
    checked_at: Nullable(Type.String({ format: 'date-time', description: 'Berth extension: when the domain was last checked' })),
    verified_at: Nullable(
      Type.String({
        format: 'date-time',
        description:
          'Berth extension: since when the domain holds its name on this server (a check proved it, and none failed since); null: it holds nothing and is not routed',
      }),
    ),
    ownership_txt_record: Type.Object(
      {
        name: Type.String({ description: 'the TXT record to add: `_berth-challenge.<domain>` (a wildcard: of the name under it)' }),
        value: Type.String({ description: 'the value it must hold: `berth-verification=<token>`, the token made for this domain' }),
      },
      {
        title: 'CustomDomainOwnershipRecord',
        description:
          'Berth extension: with `use_cdn`, the check asks this TXT record too (an address proves nothing of who controls a name); without it, the CNAME proves it',
      },
    ),
    certificate: Nullable(
      Type.Object(
        {
          state: Type.Unsafe<'ISSUED' | 'PENDING' | 'NOT_SERVED'>({
            type: 'string',
            enum: ['ISSUED', 'PENDING', 'NOT_SERVED'],
            description:
              'ISSUED: the front door serves a certificate for the domain; PENDING: the domain is routed, its certificate not obtained yet; NOT_SERVED: its last check has not passed, it is not routed',
          }),
          issuer: Nullable(Type.String({ description: "the common name of the certificate's issuer" })),
          expires_at: Nullable(DateTime),
        },
        {
          title: 'CustomDomainCertificate',
          description:
            'Berth extension: the certificate the front door serves for the domain (docs/front-door.md), read at each request; null when no front door runs (BERTH_EXECUTOR=simulated, BERTH_PROXY=off)',
        },
      ),
    ),
  },
  { title: 'CustomDomain' },
)
export type CustomDomainResponse = Static<typeof CustomDomainResponse>

export const CustomDomainResponseList = Type.Object({ results: Type.Array(CustomDomainResponse) }, { title: 'CustomDomainResponseList' })

export const CheckedCustomDomainsResponse = Type.Object(
  {
    results: Type.Array(
      Type.Object(
        {
          domain_name: Type.String({ description: 'domain name checked' }),
          status: CheckedStatus(),
          error_details: Nullable(Type.String({ description: 'what failed, for a domain that is not configured as asked' })),
        },
        { title: 'CheckedCustomDomainResponse' },
      ),
    ),
  },
  { title: 'CheckedCustomDomainsResponse' },
)

/** The reference's LinkResponseList, for listHelmLinks. */
export const LinkResponseList = Type.Object(
  {
    results: Type.Array(
      Type.Object(
        {
          service_id: Uuid,
          service_type: Type.String(),
          url: Type.String(),
          internal_port: Type.Integer(),
          external_port: Type.Integer(),
          is_qovery_domain: Type.Boolean({ description: 'true: an address Berth derives; false: a custom domain' }),
          is_default: Type.Boolean(),
        },
        { title: 'Link' },
      ),
    ),
  },
  { title: 'LinkResponseList' },
)
