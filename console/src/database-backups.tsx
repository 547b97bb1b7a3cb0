// A database's Backups tab (docs/backups.md): its backups with their size and state, "Back up now",
// a restore confirmed by typing the database's name, its schedule, and the organization's S3
// destinations. Registered as a tab of the database's page (service-tabs.tsx).
import { useState } from 'preact/hooks'
import { api, messageOf } from './api.ts'
import { formatTime, words } from './format.ts'
import { usePolledPath } from './polled.ts'
import { type Environment, hasRole, type List, type Role } from './types.ts'
import { ErrorMessage, Show, useLoad } from './ui.tsx'

interface Backup {
  id: string
  name: string
  message: string
  created_at: string
  backup_status: 'QUEUED' | 'RUNNING' | 'DONE' | 'ERROR'
  error_message: string | null
  size_bytes: number | null
  sha256: string | null
  origin: 'MANUAL' | 'SCHEDULED'
  destination_id: string | null
  created_by: string
}

interface BackupPage {
  results: Backup[]
  last_successful_backup_at: string | null
}

interface Restore {
  id: string
  backup_name: string
  restore_status: string
  error_message: string | null
  created_at: string
  triggered_by: string
  source_database_id: string
}

interface Schedule {
  cron: string
  timezone: string
  destination_id: string | null
  keep_count: number | null
  keep_days: number | null
  next_backup_at: string
}

interface Destination {
  id: string
  name: string
  endpoint: string | null
  region: string
  bucket: string
  prefix: string
  used_by: number
}

const TONES: Record<Backup['backup_status'], string> = { QUEUED: 'queued', RUNNING: 'running', DONE: 'success', ERROR: 'error' }

function size(bytes: number | null): string {
  if (bytes === null) return '—'
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 2 ** 20) return `${(bytes / 1024).toFixed(1)} KB`
  if (bytes < 2 ** 30) return `${(bytes / 2 ** 20).toFixed(1)} MB`
  return `${(bytes / 2 ** 30).toFixed(2)} GB`
}

export function DatabaseBackups({
  databaseId,
  databaseName,
  environmentId,
  role,
}: {
  databaseId: string
  databaseName: string
  environmentId: string
  role: Role
}) {
  const backups = usePolledPath<BackupPage>(`/database/${databaseId}/backup?pageSize=50`, 2_000)
  const restores = usePolledPath<List<Restore>>(`/database/${databaseId}/restore`, 2_000)
  const environment = useLoad(() => api.get<Environment>(`/environment/${environmentId}`), environmentId)
  const organizationId = environment.data?.organization.id
  const destinations = useLoad(
    () => (organizationId ? api.get<List<Destination>>(`/organization/${organizationId}/backupDestination`) : Promise.resolve({ results: [] })),
    organizationId ?? '',
  )
  const [error, setError] = useState<string>()
  const [name, setName] = useState('')
  const [destination, setDestination] = useState('')
  const [restoring, setRestoring] = useState<string>()
  const [typed, setTyped] = useState('')
  const canDeploy = hasRole(role, 'DEPLOY')
  const destinationName = (id: string | null) => (id === null ? 'this machine' : (destinations.data?.results.find((d) => d.id === id)?.name ?? 'S3'))

  const act = async (work: () => Promise<unknown>) => {
    setError(undefined)
    try {
      await work()
      backups.refresh()
      restores.refresh()
    } catch (failure) {
      setError(messageOf(failure))
    }
  }

  return (
    <section class="database-backups" aria-label="Backups">
      <h3>Backups</h3>
      <ErrorMessage message={error ?? backups.error} />
      <p data-testid="last-backup">
        Last good backup:{' '}
        {backups.data?.last_successful_backup_at ? formatTime(backups.data.last_successful_backup_at) : backups.data ? 'never' : '…'}
      </p>
      {canDeploy ? (
        <form
          class="inline-form"
          onSubmit={(event) => {
            event.preventDefault()
            void act(async () => {
              await api.post(`/database/${databaseId}/backup`, {
                name: name.trim() || `backup ${new Date().toISOString()}`,
                message: 'from the console',
                destination_id: destination || null,
              })
              setName('')
            })
          }}
        >
          <input aria-label="Backup name" placeholder="name (optional)" value={name} onInput={(event) => setName(event.currentTarget.value)} />
          <select aria-label="Destination" value={destination} onChange={(event) => setDestination(event.currentTarget.value)}>
            <option value="">this machine (data dir)</option>
            {destinations.data?.results.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name}
              </option>
            ))}
          </select>
          <button type="submit">Back up now</button>
        </form>
      ) : (
        <p class="hint">Taking and restoring backups needs DEPLOY.</p>
      )}
      {backups.data === undefined ? null : backups.data.results.length === 0 ? (
        <p class="empty">No backup yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>State</th>
                <th>Size</th>
                <th>Where</th>
                <th>Taken</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {backups.data.results.map((backup) => (
                <tr key={backup.id} data-testid="backup">
                  <td class="wrap">
                    {backup.name}
                    {backup.origin === 'SCHEDULED' ? <span class="note"> (scheduled)</span> : null}
                    {backup.error_message ? <div class="error">{backup.error_message}</div> : null}
                  </td>
                  <td>
                    <span class={`badge tone-${TONES[backup.backup_status]}`}>{words(backup.backup_status)}</span>
                  </td>
                  <td title={backup.sha256 ? `SHA-256 ${backup.sha256}` : undefined}>{size(backup.size_bytes)}</td>
                  <td>{destinationName(backup.destination_id)}</td>
                  <td>
                    {formatTime(backup.created_at)} <span class="note">by {backup.created_by}</span>
                  </td>
                  <td>
                    {canDeploy && backup.backup_status === 'DONE' ? (
                      restoring === backup.id ? (
                        <form
                          class="inline-form"
                          onSubmit={(event) => {
                            event.preventDefault()
                            void act(async () => {
                              await api.post(`/database/${databaseId}/backup/${backup.id}/restore`, {})
                              setRestoring(undefined)
                              setTyped('')
                            })
                          }}
                        >
                          <input
                            aria-label="Type the database's name to restore"
                            placeholder={databaseName}
                            value={typed}
                            onInput={(event) => setTyped(event.currentTarget.value)}
                          />
                          <button type="submit" disabled={typed !== databaseName}>
                            Restore over {databaseName}
                          </button>
                          <button type="button" onClick={() => setRestoring(undefined)}>
                            Cancel
                          </button>
                        </form>
                      ) : (
                        <button type="button" onClick={() => setRestoring(backup.id)}>
                          Restore…
                        </button>
                      )
                    ) : null}
                    {canDeploy && backup.backup_status !== 'RUNNING' ? (
                      <button type="button" onClick={() => void act(() => api.delete(`/database/${databaseId}/backup/${backup.id}`))}>
                        Delete
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {restores.data && restores.data.results.length > 0 ? (
        <>
          <h4>Restores</h4>
          <ul class="restores">
            {restores.data.results.slice(0, 10).map((restore) => (
              <li key={restore.id}>
                <span class={`badge tone-${TONES[restore.restore_status as Backup['backup_status']] ?? 'neutral'}`}>
                  {words(restore.restore_status)}
                </span>{' '}
                {restore.backup_name}, {formatTime(restore.created_at)} by {restore.triggered_by}
                {restore.error_message ? <div class="error">{restore.error_message}</div> : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <BackupSchedule databaseId={databaseId} role={role} destinations={destinations.data?.results ?? []} />
      {organizationId ? <BackupDestinations organizationId={organizationId} role={role} loaded={destinations} /> : null}
    </section>
  )
}

function BackupSchedule({ databaseId, role, destinations }: { databaseId: string; role: Role; destinations: Destination[] }) {
  const schedule = useLoad(() => api.get<Schedule | null>(`/database/${databaseId}/backupSchedule`), databaseId)
  const [form, setForm] = useState({ cron: '0 3 * * *', timezone: 'Etc/UTC', keep: '7', destination: '' })
  const [error, setError] = useState<string>()
  const canWrite = hasRole(role, 'WRITE')
  return (
    <div class="backup-schedule">
      <h4>Schedule</h4>
      <ErrorMessage message={error} />
      <Show loaded={schedule}>
        {(current) =>
          current ? (
            <p>
              <code>{current.cron}</code> ({current.timezone}), keeping{' '}
              {current.keep_count !== null ? `the last ${current.keep_count}` : `${current.keep_days} days`}; next{' '}
              {formatTime(current.next_backup_at)}
              {canWrite ? (
                <button
                  type="button"
                  onClick={() =>
                    void api.delete(`/database/${databaseId}/backupSchedule`).then(schedule.reload, (failure) => setError(messageOf(failure)))
                  }
                >
                  Remove the schedule
                </button>
              ) : null}
            </p>
          ) : (
            <p class="empty">No schedule.</p>
          )
        }
      </Show>
      {canWrite ? (
        <form
          class="inline-form"
          onSubmit={(event) => {
            event.preventDefault()
            setError(undefined)
            api
              .put(`/database/${databaseId}/backupSchedule`, {
                cron: form.cron,
                timezone: form.timezone,
                keep_count: Number(form.keep),
                destination_id: form.destination || null,
              })
              .then(schedule.reload, (failure) => setError(messageOf(failure)))
          }}
        >
          <input aria-label="Cron expression" value={form.cron} onInput={(event) => setForm({ ...form, cron: event.currentTarget.value })} />
          <input aria-label="Time zone" value={form.timezone} onInput={(event) => setForm({ ...form, timezone: event.currentTarget.value })} />
          <input
            aria-label="Backups kept"
            type="number"
            min="1"
            value={form.keep}
            onInput={(event) => setForm({ ...form, keep: event.currentTarget.value })}
          />
          <select
            aria-label="Schedule destination"
            value={form.destination}
            onChange={(event) => setForm({ ...form, destination: event.currentTarget.value })}
          >
            <option value="">this machine (data dir)</option>
            {destinations.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name}
              </option>
            ))}
          </select>
          <button type="submit">Save the schedule</button>
        </form>
      ) : null}
    </div>
  )
}

function BackupDestinations({
  organizationId,
  role,
  loaded,
}: {
  organizationId: string
  role: Role
  loaded: { data?: List<Destination>; error?: string; reload: () => void }
}) {
  const empty = { name: '', endpoint: '', region: 'us-east-1', bucket: '', prefix: '', access_key_id: '', secret_access_key: '', path_style: false }
  const [form, setForm] = useState(empty)
  const [error, setError] = useState<string>()
  const field = (key: keyof typeof empty, label: string) => (
    <input
      aria-label={label}
      placeholder={label}
      value={form[key] as string}
      onInput={(event) => setForm({ ...form, [key]: event.currentTarget.value })}
    />
  )
  return (
    <div class="backup-destinations">
      <h4>S3 destinations of the organization</h4>
      <ErrorMessage message={error ?? loaded.error} />
      {loaded.data && loaded.data.results.length > 0 ? (
        <ul>
          {loaded.data.results.map((d) => (
            <li key={d.id}>
              {d.name}: s3://{d.bucket}/{d.prefix} <span class="note">{d.endpoint ?? `AWS ${d.region}`}</span>
            </li>
          ))}
        </ul>
      ) : (
        <p class="empty">None: backups go to this machine's data dir.</p>
      )}
      {hasRole(role, 'ADMIN') ? (
        <form
          class="inline-form"
          onSubmit={(event) => {
            event.preventDefault()
            setError(undefined)
            api.post(`/organization/${organizationId}/backupDestination`, { ...form, kind: 'S3', endpoint: form.endpoint || null }).then(
              () => {
                setForm(empty)
                loaded.reload()
              },
              (failure) => setError(messageOf(failure)),
            )
          }}
        >
          {field('name', 'Name')}
          {field('endpoint', 'Endpoint (empty: AWS)')}
          {field('region', 'Region')}
          {field('bucket', 'Bucket')}
          {field('prefix', 'Prefix')}
          {field('access_key_id', 'Access key id')}
          <input
            aria-label="Secret access key"
            placeholder="Secret access key"
            type="password"
            value={form.secret_access_key}
            onInput={(event) => setForm({ ...form, secret_access_key: event.currentTarget.value })}
          />
          <label>
            <input type="checkbox" checked={form.path_style} onChange={(event) => setForm({ ...form, path_style: event.currentTarget.checked })} />{' '}
            path-style
          </label>
          <button type="submit">Add the destination</button>
        </form>
      ) : null}
    </div>
  )
}
