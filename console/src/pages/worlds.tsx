import { Link } from 'react-router';
import type { WorldListItem } from '../api-types';
import { useList, useTitle } from '../hooks';
import { ErrorBox, Loading, PageHead, Status, when } from '../ui';

/** Worlds and their versions. */
export default function Worlds() {
  useTitle('Worlds');
  const worlds = useList<WorldListItem>('/v1/worlds');
  return (
    <>
      <PageHead title="Worlds" />
      <ErrorBox error={worlds.error} />
      {!worlds.data ? (
        <Loading />
      ) : worlds.data.length === 0 ? (
        <p className="muted">
          No worlds yet: build one from an <Link to="/applications">application</Link>.
        </p>
      ) : (
        worlds.data.map((w) => (
          <section key={w.id} aria-labelledby={`w-${w.id}`}>
            <h2 id={`w-${w.id}`}>{w.name}</h2>
            <ul>
              {(w.versions ?? []).map((v) => (
                <li key={v.id}>
                  <Link to={`/world-versions/${v.id}`}>version {v.version}</Link> <Status value={v.status} />{' '}
                  <span className="muted">
                    {when(v.published_at ?? v.created_at)} · content {String(v.world_content_hash ?? '').slice(0, 12)}
                  </span>
                </li>
              ))}
            </ul>
          </section>
        ))
      )}
    </>
  );
}
