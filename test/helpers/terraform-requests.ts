import type { TerraformRequest } from 'qovery-typescript-axios'

// A terraform service's request as a user writes one: a repository's root path, a variable and a
// secret one, a tfvars file, the kubernetes backend, OpenTofu, extra arguments for apply.

/** The request of an IAC service `infra`, with `overrides`. */
export const terraformRequest = (overrides: Partial<TerraformRequest> = {}): TerraformRequest => ({
  name: 'infra',
  description: 'the bucket',
  auto_deploy_config: { auto_deploy: false, terraform_action: 'DEFAULT' },
  terraform_files_source: { git_repository: { url: 'https://github.com/acme/infra', branch: 'main', root_path: '/envs/prod' } },
  terraform_variables_source: {
    tf_var_file_paths: ['prod.tfvars'],
    tf_vars: [
      { key: 'region', value: 'eu-west-3', secret: false },
      { key: 'db_password', value: 's3cr3t-value', secret: true },
    ],
  },
  backend: { kubernetes: {} },
  engine: 'OPEN_TOFU',
  provider_version: { explicit_version: '1.9.4', read_from_terraform_block: false },
  job_resources: { cpu_milli: 500, ram_mib: 512, gpu: 0, storage_gib: 1 },
  timeout_sec: 300,
  action_extra_arguments: { apply: ['-parallelism=2'] },
  ...overrides,
})
