import { expect } from 'chai';
import { episodeBriefs, readAnswer, sameText } from '../../scheduler/improvements/model.js';
import type { RunEpisodeDoc } from '../../scheduler/runs/index.js';

const pass = { passed: true, violations: [] };

/** A finished episode with one failed check and a duplicate write on `refund`. */
function ep(id: string, split: string): RunEpisodeDoc {
  return {
    _id: id,
    scenario_id: `scn-${id}`,
    split,
    reward: 0.5,
    termination: 'completed',
    oracle: {
      completed: true,
      false_completion: false,
      check_results: [
        { check: 'refund issued', kind: 'state', passed: false, observed: { amount: 'x'.repeat(1000) } },
        { check: 'told', kind: 'told', passed: true, observed: null },
      ],
      duplicate_effects: [{ tool: 'refund', args: {}, times: 2, actors: ['agent'], action_indexes: [1, 2] }],
      habits: {
        read_latest_before_write: pass,
        ids_from_reads: { passed: false, violations: [{ tool: 'lookup' }] },
        complete_after_read: { ...pass, passed: false, applicable: false },
        customer_contacts: { passed: true, count: 1, limit: 2 },
      },
    },
  } as unknown as RunEpisodeDoc;
}

const answer = (v: unknown) => JSON.stringify(v);

describe('improvement model: what it is shown and how its answer is read', () => {
  it('briefs train and dev episodes only, with failed checks cut short and inapplicable habits left out', () => {
    const briefs = episodeBriefs([ep('ep1', 'train'), ep('ep2', 'holdout'), ep('ep3', 'dev')]);
    expect(briefs.map((b) => b.episode_id)).to.deep.equal(['ep1', 'ep3']);
    expect(JSON.stringify(briefs)).to.not.include('ep2');
    const b = briefs[0]!;
    expect(b.failed_checks.map((c) => c.check)).to.deep.equal(['refund issued']);
    expect(String(b.failed_checks[0]!.observed).length).to.be.lessThan(320);
    expect(b.duplicate_effects).to.deep.equal(['refund']);
    expect(b.guessed_id_tools).to.deep.equal(['lookup']);
    expect(b.failed_habits).to.deep.equal(['ids_from_reads']);
  });

  it('keeps the text, drops cited ids it was not shown and changes to unknown fields', () => {
    const got = readAnswer(
      answer({
        system_prompt: '  New prompt.  ',
        tool_guidance: [{ tool: 'refund', guidance: 'Once.' }],
        changes: [
          { field: 'system_prompt', change: 'New prompt.', reason: 'why', episodes: ['ep1', 'ep_holdout', 'ep1', 7] },
          { field: 'tool_guidance.nope', change: 'x', reason: 'y', episodes: [] },
          { field: 'temperature', change: 'x', reason: 'y', episodes: [] },
        ],
      }),
      ['refund'],
      new Set(['ep1']),
    );
    expect(got).to.not.be.a('string');
    const p = got as Exclude<typeof got, string>;
    expect(p.text).to.deep.equal({ system_prompt: 'New prompt.', tool_guidance: { refund: 'Once.' } });
    expect(p.changes).to.have.length(1);
    expect(p.changes[0]!.evidence).to.deep.equal({ episodes: ['ep1'], count: 1 });
  });

  it('says why an answer cannot be used', () => {
    const ids = new Set<string>();
    expect(readAnswer('Sure, here it is', [], ids)).to.equal('it is not JSON');
    expect(readAnswer('[1]', [], ids)).to.equal('it is not a JSON object');
    expect(readAnswer(answer({ system_prompt: '' }), [], ids)).to.match(/empty/);
    expect(readAnswer(answer({ system_prompt: 'x'.repeat(20_001) }), [], ids)).to.match(/longer than 20000/);
    expect(
      readAnswer(answer({ system_prompt: 'ok', tool_guidance: [{ tool: 'rm_rf', guidance: 'go' }] }), ['refund'], ids),
    ).to.match(/"rm_rf", which is not one of the tools/);
    // a fenced JSON answer is read
    expect(readAnswer('```json\n{"system_prompt":"ok"}\n```', [], ids)).to.not.be.a('string');
  });

  it('compares texts regardless of surrounding blanks and guidance order', () => {
    expect(
      sameText(
        { system_prompt: 'a ', tool_guidance: { x: '1', y: '2' } },
        { system_prompt: 'a', tool_guidance: { y: '2', x: '1' } },
      ),
    ).to.equal(true);
    expect(
      sameText({ system_prompt: 'a', tool_guidance: null }, { system_prompt: 'a', tool_guidance: { x: '1' } }),
    ).to.equal(false);
  });
});
