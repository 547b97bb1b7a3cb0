// The create form of each kind (`POST /environment/{id}/<segment>`), as one table keyed by the
// kind's type: a kind without an entry is created with the API. Each form sends a complete request
// with the usual defaults and shows the API's field errors on its fields.
import type { JSX } from 'preact'
import { DATABASE_ENGINES, type KindType } from '../kinds.ts'
import type { GitToken, HelmRepository, Registry } from '../types.ts'
import { CreateForm, FormField, numberOr, useCreateForm, type Values } from './form-kit.tsx'
import { GitPicker, gitRepositoryOf } from './git-picker.tsx'

export interface CreateProps {
  environmentId: string
  organizationId: string
  /** The path segment of the kind created. */
  segment: string
  registries: Registry[]
  helmRepositories: HelmRepository[]
  gitTokens: GitToken[]
}

const post = (props: CreateProps) => `/environment/${props.environmentId}/${props.segment}`

/** A public HTTP port, checked for readiness, when one is typed. */
function portAndProbe(values: Values, path: string) {
  const port = values[path]?.trim() ? numberOr(values[path]) : undefined
  return {
    ports: port === undefined ? [] : [{ name: 'http', internal_port: port, external_port: 443, publicly_accessible: true, protocol: 'HTTP' }],
    healthchecks:
      typeof port === 'number'
        ? {
            readiness_probe: {
              type: { http: { path: '/', port } },
              initial_delay_seconds: 0,
              period_seconds: 2,
              timeout_seconds: 2,
              failure_threshold: 15,
            },
          }
        : {},
  }
}

function ApplicationForm(props: CreateProps) {
  const form = useCreateForm({ '/name': '', '/git_repository/root_path': '/', '/dockerfile_path': 'Dockerfile', '/ports/0/internal_port': '' })
  const { values, set, errors } = form
  return (
    <CreateForm
      kind="application"
      form={form}
      known={[
        '/name',
        '/git_repository/git_token_id',
        '/git_repository/url',
        '/git_repository/branch',
        '/git_repository/root_path',
        '/dockerfile_path',
        '/ports/0/internal_port',
      ]}
      onSubmit={() =>
        form.submit(
          post(props),
          {
            name: values['/name'],
            git_repository: gitRepositoryOf(values, '/git_repository', props.gitTokens),
            build_mode: 'DOCKER',
            dockerfile_path: values['/dockerfile_path'] || 'Dockerfile',
            cpu: 500,
            memory: 512,
            min_running_instances: 1,
            max_running_instances: 1,
            ...portAndProbe(values, '/ports/0/internal_port'),
          },
          props.segment,
        )
      }
    >
      <FormField path="/name" label="Name" values={values} set={set} errors={errors} />
      <GitPicker organizationId={props.organizationId} prefix="/git_repository" values={values} set={set} errors={errors} tokens={props.gitTokens} />
      <FormField path="/dockerfile_path" label="Dockerfile" values={values} set={set} errors={errors} />
      <FormField
        path="/ports/0/internal_port"
        label="HTTP port (optional)"
        hint="published through the front door, and checked for readiness"
        values={values}
        set={set}
        errors={errors}
      />
    </CreateForm>
  )
}

const registryOptions = (registries: Registry[]) =>
  registries.map((registry) => ({ value: registry.id, label: `${registry.name} (${registry.url})` }))

function ContainerForm(props: CreateProps) {
  const form = useCreateForm({
    '/name': '',
    '/registry_id': props.registries[0]?.id ?? '',
    '/image_name': '',
    '/tag': '',
    '/ports/0/internal_port': '',
  })
  const { values, set, errors } = form
  if (props.registries.length === 0)
    return <p class="empty">The organization has no container registry: add one first (POST /organization/{'{id}'}/containerRegistry).</p>
  return (
    <CreateForm
      kind="container"
      form={form}
      known={['/name', '/registry_id', '/image_name', '/tag', '/ports/0/internal_port']}
      onSubmit={() =>
        form.submit(
          post(props),
          {
            name: values['/name'],
            registry_id: values['/registry_id'],
            image_name: values['/image_name'],
            tag: values['/tag'],
            arguments: [],
            min_running_instances: 1,
            max_running_instances: 1,
            ...portAndProbe(values, '/ports/0/internal_port'),
          },
          props.segment,
        )
      }
    >
      <FormField path="/name" label="Name" values={values} set={set} errors={errors} />
      <FormField path="/registry_id" label="Registry" values={values} set={set} errors={errors} options={registryOptions(props.registries)} />
      <FormField
        path="/image_name"
        label="Image"
        hint="without the registry host: image or namespace/image"
        values={values}
        set={set}
        errors={errors}
      />
      <FormField path="/tag" label="Tag" values={values} set={set} errors={errors} />
      <FormField
        path="/ports/0/internal_port"
        label="HTTP port (optional)"
        hint="published through the front door, and checked for readiness"
        values={values}
        set={set}
        errors={errors}
      />
    </CreateForm>
  )
}

const DATABASE_TYPES = Object.entries(DATABASE_ENGINES).map(([value, label]) => ({ value, label }))

function DatabaseForm(props: CreateProps) {
  const form = useCreateForm({ '/name': '', '/type': 'POSTGRESQL', '/version': '16', '/storage': '10' })
  const { values, set, errors } = form
  return (
    <CreateForm
      kind="database"
      form={form}
      known={['/name', '/type', '/version', '/storage']}
      onSubmit={() =>
        form.submit(
          post(props),
          {
            name: values['/name'],
            type: values['/type'],
            version: values['/version'],
            mode: 'CONTAINER',
            accessibility: 'PRIVATE',
            storage: numberOr(values['/storage']),
          },
          props.segment,
        )
      }
    >
      <FormField path="/name" label="Name" values={values} set={set} errors={errors} />
      <FormField path="/type" label="Engine" values={values} set={set} errors={errors} options={DATABASE_TYPES} />
      <FormField path="/version" label="Version" values={values} set={set} errors={errors} />
      <FormField path="/storage" label="Storage (GB)" values={values} set={set} errors={errors} />
    </CreateForm>
  )
}

const SCHEDULES = [
  { value: 'cron', label: 'On a schedule (cron)' },
  { value: 'on_start', label: 'When the environment starts' },
]

function JobForm(props: CreateProps) {
  const form = useCreateForm({
    '/name': '',
    '/source/image/registry_id': props.registries[0]?.id ?? '',
    '/source/image/image_name': '',
    '/source/image/tag': '',
    schedule: 'cron',
    '/schedule/cronjob/scheduled_at': '0 3 * * *',
    '/schedule/cronjob/timezone': 'Etc/UTC',
    command: '',
  })
  const { values, set, errors } = form
  if (props.registries.length === 0)
    return <p class="empty">The organization has no container registry: add one first (POST /organization/{'{id}'}/containerRegistry).</p>
  const args = (values.command ?? '').split(/\s+/).filter(Boolean)
  return (
    <CreateForm
      kind="job"
      form={form}
      known={[
        '/name',
        '/source/image/registry_id',
        '/source/image/image_name',
        '/source/image/tag',
        '/schedule/cronjob/scheduled_at',
        '/schedule/cronjob/timezone',
      ]}
      onSubmit={() =>
        form.submit(
          post(props),
          {
            name: values['/name'],
            source: {
              image: {
                registry_id: values['/source/image/registry_id'],
                image_name: values['/source/image/image_name'],
                tag: values['/source/image/tag'],
              },
            },
            schedule:
              values.schedule === 'cron'
                ? {
                    cronjob: {
                      scheduled_at: values['/schedule/cronjob/scheduled_at'],
                      timezone: values['/schedule/cronjob/timezone'],
                      arguments: args,
                    },
                  }
                : { on_start: { arguments: args } },
            healthchecks: {},
          },
          props.segment,
        )
      }
    >
      <FormField path="/name" label="Name" values={values} set={set} errors={errors} />
      <FormField
        path="/source/image/registry_id"
        label="Registry"
        values={values}
        set={set}
        errors={errors}
        options={registryOptions(props.registries)}
      />
      <FormField path="/source/image/image_name" label="Image" values={values} set={set} errors={errors} />
      <FormField path="/source/image/tag" label="Tag" values={values} set={set} errors={errors} />
      <FormField path="schedule" label="Runs" values={values} set={set} errors={errors} options={SCHEDULES} />
      {values.schedule === 'cron' ? (
        <>
          <FormField
            path="/schedule/cronjob/scheduled_at"
            label="Schedule (cron)"
            hint="minute hour day month weekday"
            values={values}
            set={set}
            errors={errors}
          />
          <FormField path="/schedule/cronjob/timezone" label="Timezone" values={values} set={set} errors={errors} />
        </>
      ) : null}
      <FormField path="command" label="Arguments (optional)" hint="what the image runs, split at spaces" values={values} set={set} errors={errors} />
    </CreateForm>
  )
}

const HELM_SOURCES = [
  { value: 'repository', label: 'A chart of a helm repository' },
  { value: 'git', label: 'A chart in git' },
]

function HelmForm(props: CreateProps) {
  const form = useCreateForm({
    '/name': '',
    source: props.helmRepositories.length > 0 ? 'repository' : 'git',
    '/source/helm_repository/repository': props.helmRepositories[0]?.id ?? '',
    '/source/helm_repository/chart_name': '',
    '/source/helm_repository/chart_version': '',
    '/source/git_repository/root_path': '/',
  })
  const { values, set, errors } = form
  const fromGit = values.source === 'git'
  return (
    <CreateForm
      kind="helm"
      form={form}
      known={[
        '/name',
        '/source/helm_repository/repository',
        '/source/helm_repository/chart_name',
        '/source/helm_repository/chart_version',
        '/source/git_repository/git_token_id',
        '/source/git_repository/url',
        '/source/git_repository/branch',
        '/source/git_repository/root_path',
      ]}
      onSubmit={() =>
        form.submit(
          post(props),
          {
            name: values['/name'],
            auto_deploy: false,
            arguments: [],
            values_override: {},
            source: fromGit
              ? { git_repository: gitRepositoryOf(values, '/source/git_repository', props.gitTokens) }
              : {
                  helm_repository: {
                    repository: values['/source/helm_repository/repository'],
                    chart_name: values['/source/helm_repository/chart_name'],
                    chart_version: values['/source/helm_repository/chart_version'],
                  },
                },
          },
          props.segment,
        )
      }
    >
      <FormField path="/name" label="Name" values={values} set={set} errors={errors} />
      <FormField path="source" label="Chart from" values={values} set={set} errors={errors} options={HELM_SOURCES} />
      {fromGit ? (
        <GitPicker
          organizationId={props.organizationId}
          prefix="/source/git_repository"
          values={values}
          set={set}
          errors={errors}
          tokens={props.gitTokens}
        />
      ) : (
        <>
          <FormField
            path="/source/helm_repository/repository"
            label="Helm repository"
            values={values}
            set={set}
            errors={errors}
            options={props.helmRepositories.map((repository) => ({ value: repository.id, label: `${repository.name} (${repository.url ?? ''})` }))}
          />
          <FormField path="/source/helm_repository/chart_name" label="Chart" values={values} set={set} errors={errors} />
          <FormField path="/source/helm_repository/chart_version" label="Chart version" values={values} set={set} errors={errors} />
        </>
      )}
    </CreateForm>
  )
}

const ENGINES = [
  { value: 'OPEN_TOFU', label: 'OpenTofu' },
  { value: 'TERRAFORM', label: 'Terraform' },
]

function IacForm(props: CreateProps) {
  const form = useCreateForm({
    '/name': '',
    '/terraform_files_source/git_repository/root_path': '/',
    '/engine': 'OPEN_TOFU',
    '/provider_version/explicit_version': '1.9.4',
  })
  const { values, set, errors } = form
  const prefix = '/terraform_files_source/git_repository'
  return (
    <CreateForm
      kind="terraform"
      form={form}
      known={[
        '/name',
        `${prefix}/git_token_id`,
        `${prefix}/url`,
        `${prefix}/branch`,
        `${prefix}/root_path`,
        '/engine',
        '/provider_version/explicit_version',
      ]}
      onSubmit={() => {
        const { provider: _provider, ...git } = gitRepositoryOf(values, prefix, props.gitTokens)
        return form.submit(
          post(props),
          {
            name: values['/name'],
            description: '',
            auto_deploy_config: { auto_deploy: false, terraform_action: 'PLAN' },
            terraform_files_source: { git_repository: git },
            terraform_variables_source: { tf_var_file_paths: [], tf_vars: [] },
            backend: { kubernetes: {} },
            engine: values['/engine'],
            provider_version: { explicit_version: values['/provider_version/explicit_version'], read_from_terraform_block: false },
            job_resources: { cpu_milli: 500, ram_mib: 512, gpu: 0, storage_gib: 1 },
            timeout_sec: 900,
          },
          props.segment,
        )
      }}
    >
      <FormField path="/name" label="Name" values={values} set={set} errors={errors} />
      <GitPicker organizationId={props.organizationId} prefix={prefix} values={values} set={set} errors={errors} tokens={props.gitTokens} />
      <FormField path="/engine" label="Engine" values={values} set={set} errors={errors} options={ENGINES} />
      <FormField path="/provider_version/explicit_version" label="Engine version" values={values} set={set} errors={errors} />
    </CreateForm>
  )
}

export const CREATE_FORMS: Partial<Record<KindType, { describe: string; form: (props: CreateProps) => JSX.Element }>> = {
  APPLICATION: { describe: 'Built from a git repository with its Dockerfile', form: (props) => <ApplicationForm {...props} /> },
  CONTAINER: { describe: 'An image of one of your registries', form: (props) => <ContainerForm {...props} /> },
  DATABASE: { describe: 'PostgreSQL, MySQL, MongoDB or Redis in a container', form: (props) => <DatabaseForm {...props} /> },
  JOB: { describe: 'An image run on a schedule or when the environment starts', form: (props) => <JobForm {...props} /> },
  HELM: { describe: 'A chart from a helm repository or from git', form: (props) => <HelmForm {...props} /> },
  IAC: { describe: 'A Terraform or OpenTofu configuration in git, planned and applied', form: (props) => <IacForm {...props} /> },
}
