// An environment's previews: those made from it by pull requests or image tags, each linked to its
// environment's page with what asked for it (docs/previews.md).
import { api } from './api.ts'
import type { List, Preview } from './types.ts'
import { Empty, Show, useLoad } from './ui.tsx'

/** The previews made from the environment, oldest first. */
export async function listPreviews(environmentId: string): Promise<Preview[]> {
  return (await api.get<List<Preview>>(`/environment/${environmentId}/previews`)).results
}

/** What asked for the preview, in a line: its pull request (a link to it), or its image tag. */
function PreviewCause({ preview }: { preview: Preview }) {
  const pr = preview.pull_request
  if (!pr) return <span class="note">image tag {preview.image_tag}</span>
  const label = `#${pr.number}${pr.title ? ` ${pr.title}` : ''}`
  return (
    <span class="note wrap">
      {pr.url ? (
        <a href={pr.url} target="_blank" rel="noopener noreferrer" data-testid="pull-request">
          {label}
        </a>
      ) : (
        label
      )}
      {pr.head_branch ? ` from ${pr.head_branch}` : ''}
      {pr.head_commit ? ` at ${pr.head_commit.slice(0, 7)}` : ''}
      {pr.author ? ` by ${pr.author}` : ''}
    </span>
  )
}

export function Previews({ environmentId }: { environmentId: string }) {
  const previews = useLoad(() => listPreviews(environmentId), environmentId)
  return (
    <section class="previews panel" aria-label="Previews">
      <h2>Previews</h2>
      <Show loaded={previews}>
        {(list) =>
          list.length === 0 ? (
            <Empty next="Turn on previews for this environment (auto_preview) and open a pull request, or push an image tag: each preview shows here.">
              No preview environment.
            </Empty>
          ) : (
            <ul class="links">
              {list.map((preview) => (
                <li key={preview.id}>
                  {preview.environment_id ? (
                    <a href={`#/environment/${preview.environment_id}`} class="wrap">
                      {preview.environment_name}
                    </a>
                  ) : (
                    <span class="note">being made…</span>
                  )}
                  <PreviewCause preview={preview} />
                </li>
              ))}
            </ul>
          )
        }
      </Show>
    </section>
  )
}
