import { Link, useParams } from 'react-router';
import { api } from '../api';
import type { ScenarioView } from '../api-types';
import { useAction, useApi, useTitle } from '../hooks';
import { ErrorBox, Facts, Json, Loading, PageHead, Status } from '../ui';

/** One scenario: its specification and validation, with approve, reject and validate. */
export default function ScenarioPage() {
  const { id = '' } = useParams();
  useTitle(`Scenario ${id}`);
  const sc = useApi<ScenarioView>(`/v1/scenarios/${id}`);
  const act = useAction();
  if (!sc.data) return sc.error ? <ErrorBox error={sc.error} /> : <Loading />;
  const s = sc.data;
  const spec = s.specification ?? {};
  const decide = async (what: 'approve' | 'reject') => {
    if (await act.run(() => api('POST', `/v1/scenarios/${id}/${what}`, {}))) sc.reload();
  };
  return (
    <>
      <PageHead title={spec.title ?? s.scenario_id}>
        <button type="button" onClick={() => void decide('approve')} disabled={act.busy}>
          Approve
        </button>
        <button type="button" className="danger" onClick={() => void decide('reject')} disabled={act.busy}>
          Reject
        </button>
      </PageHead>
      <ErrorBox error={act.error} />
      <Facts
        items={[
          ['Status', <Status value={s.status} />],
          ['Split', s.split],
          ['Template', s.template],
          ['Origin', s.origin],
          ['World version', <Link to={`/world-versions/${s.world_version_id}`}>{s.world_version_id}</Link>],
          ['Persona', spec.persona],
        ]}
      />
      <h2>Request</h2>
      <p>{spec.request}</p>
      <h2>Checks</h2>
      <Json value={spec.checks} label="Checks" />
      <h2>Specification</h2>
      <Json value={spec} label="Specification" />
      {s.validation_report ? (
        <>
          <h2>Validation</h2>
          <Json value={s.validation_report} label="Validation" />
        </>
      ) : null}
    </>
  );
}
