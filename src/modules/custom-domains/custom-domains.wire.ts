import type { CustomDomainInput } from './custom-domains.repository.ts'
import type { CustomDomainRequest, CustomDomainResponse } from './custom-domains.schemas.ts'
import type { CheckedDomain, CustomDomainRecord } from './custom-domains.service.ts'
import { verificationRecord } from './dns-check.ts'

/** `use_cdn` left out is false, and is answered as false: clients that send it compare it on reads. */
export const customDomainInput = (body: CustomDomainRequest): CustomDomainInput => ({
  domain: body.domain,
  generateCertificate: body.generate_certificate,
  useCdn: body.use_cdn ?? false,
})

export const toCustomDomainResponse = (domain: CustomDomainRecord): CustomDomainResponse => ({
  id: domain.id,
  created_at: domain.createdAt.toISOString(),
  ...(domain.updatedAt ? { updated_at: domain.updatedAt.toISOString() } : {}),
  domain: domain.domain,
  generate_certificate: domain.generateCertificate,
  use_cdn: domain.useCdn,
  validation_domain: domain.validationDomain,
  status: 'VALIDATION_PENDING',
  check_status: (domain.checkStatus as CustomDomainResponse['check_status']) ?? null,
  check_error_details: domain.checkErrorDetails,
  checked_at: domain.checkedAt?.toISOString() ?? null,
  verified_at: domain.verifiedAt?.toISOString() ?? null,
  ownership_txt_record: verificationRecord(domain.domain, domain.verificationToken),
  certificate: domain.certificate
    ? { state: domain.certificate.state, issuer: domain.certificate.issuer, expires_at: domain.certificate.expiresAt?.toISOString() ?? null }
    : null,
})

export const toCheckedResponse = (checked: CheckedDomain) => ({
  domain_name: checked.domain,
  status: checked.status,
  error_details: checked.errorDetails,
})
