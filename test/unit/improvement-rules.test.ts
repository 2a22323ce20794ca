import { expect } from 'chai';
import {
  applyChanges,
  collectFindings,
  learningEpisodes,
  partitionChanges,
  proposeChanges,
} from '../../scheduler/improvements/index.js';
import type { RunEpisodeDoc } from '../../scheduler/runs/index.js';
import { holdoutFamiliesOf } from '../../scheduler/worlds/index.js';

const pass = { passed: true, violations: [] };

/** A finished episode of profile `prof_a` whose oracle record has the given problems. */
function ep(
  id: string,
  split: string,
  o: {
    dup?: string[];
    falseCompletion?: boolean;
    guessed?: string[];
    unread?: boolean;
    contacts?: number;
    failed?: string[];
  } = {},
  more: Partial<RunEpisodeDoc> = {},
): RunEpisodeDoc {
  return {
    _id: id,
    slot: Number(id.replace(/\D/g, '')),
    attempt: 1,
    profile_id: 'prof_a',
    scenario_id: `t${id}--v1`,
    split,
    status: 'finished',
    environment_error: null,
    oracle: {
      check_results: [
        { check: 'refund issued', kind: 'state', passed: !(o.failed ?? []).includes('refund issued'), observed: null },
        ...(o.failed ?? [])
          .filter((c) => c !== 'refund issued')
          .map((c) => ({ check: c, kind: 'state', passed: false, observed: null })),
      ],
      duplicate_effects: (o.dup ?? []).map((tool) => ({
        tool,
        args: {},
        times: 2,
        actors: ['agent'],
        action_indexes: [1, 2],
      })),
      false_completion: o.falseCompletion ?? false,
      environment_error: null,
      habits: {
        read_latest_before_write: o.unread
          ? { passed: false, violations: [{ action_index: 0, actor: 'agent', tool: 'refund', reason: 'unread' }] }
          : pass,
        ids_from_reads: {
          passed: !o.guessed,
          violations: (o.guessed ?? []).map((tool) => ({ action_index: 0, actor: 'agent', tool, reason: 'guessed' })),
        },
        complete_after_read: { ...pass, applicable: false },
        customer_contacts: { passed: (o.contacts ?? 1) <= 2, count: o.contacts ?? 1, limit: 2 },
      },
    },
    ...more,
  } as unknown as RunEpisodeDoc;
}

describe('improvement rules', () => {
  it('learns only from the latest finished train/dev attempt of the profile, never holdout', () => {
    const eps = [
      ep('ep1', 'train', { dup: ['refund'] }),
      ep('ep2', 'holdout', { dup: ['refund'] }),
      ep('ep3', 'dev', {}, { environment_error: 'world down' }),
      ep('ep4', 'dev', { falseCompletion: true }, { profile_id: 'prof_b' }),
      ep('ep5', 'train', {}, { slot: 1, attempt: 2 }),
    ];
    const none = holdoutFamiliesOf(
      eps.map((e) => ({ scenario_id: e.scenario_id, template: `t${e._id}`, split: e.split })),
    );
    expect(learningEpisodes(eps, 'prof_a', none).map((e) => e._id)).to.deep.equal(['ep5']);
    const f = collectFindings([ep('ep1', 'train', { dup: ['refund'] }), ep('ep2', 'holdout', { dup: ['refund'] })]);
    expect(f.episodes).to.deep.equal({ total: 1, train: 1, dev: 0 });
    expect(f.duplicate_effects).to.deep.equal({ refund: { episodes: ['ep1'], count: 1 } });
  });

  it('never learns from a train or dev episode of a holdout family, nor from a scenario the version does not know', () => {
    const eps = [
      ep('ep1', 'train', {}, { scenario_id: 'refund--v1' }),
      ep('ep2', 'dev', {}, { scenario_id: 'cancel--v2' }),
      ep('ep3', 'train', {}, { scenario_id: 'address--v1' }),
      ep('ep4', 'train', {}, { scenario_id: 'unknown--v1' }),
    ];
    const families = holdoutFamiliesOf([
      { scenario_id: 'refund--v1', template: 'refund', split: 'train' },
      { scenario_id: 'cancel--v1', template: 'cancel', split: 'holdout' },
      { scenario_id: 'cancel--v2', template: 'cancel', split: 'dev' },
      { scenario_id: 'address--v1', template: 'address', split: 'train' },
    ]);
    expect([...families.templates]).to.deep.equal(['cancel']);
    expect(learningEpisodes(eps, 'prof_a', families).map((e) => e._id)).to.deep.equal(['ep1', 'ep3']);
  });

  it('turns each recorded problem into one change with its evidence', () => {
    const f = collectFindings([
      ep('ep1', 'train', { dup: ['refund', 'refund'], falseCompletion: true, failed: ['refund issued'] }),
      ep('ep2', 'dev', { guessed: ['cancel_order'], unread: true, contacts: 5 }),
      ep('ep3', 'train', { dup: ['refund'] }),
    ]);
    const changes = proposeChanges(f);
    const byField = (field: string) => changes.filter((c) => c.field === field);
    expect(byField('tool_guidance.refund')[0]!.change).to.match(/retry_operation .*never call refund twice/);
    expect(byField('tool_guidance.refund')[0]!.evidence).to.deep.equal({ episodes: ['ep1', 'ep3'], count: 2 });
    expect(byField('tool_guidance.cancel_order')[0]!.evidence.count).to.equal(1);
    const prompt = byField('system_prompt').map((c) => c.change);
    expect(prompt).to.include.members([
      'Find ids with read tools; never guess an id.',
      'Call complete only after a read shows the requested change.',
      "Read the customer's latest message before every write.",
      'Ask the customer for everything you need in one message; contact them as few times as you can.',
    ]);
    expect(prompt.find((p) => p.includes('"refund issued"'))).to.be.a('string');
    expect(changes.find((c) => c.change.startsWith('Ask'))!.reason).to.match(/limit \(2; up to 5\)/);
    expect(proposeChanges(collectFindings([ep('ep9', 'train')]))).to.deep.equal([]);
  });

  it('adds only advice the profile lacks, appending prompt lines under one heading', () => {
    const changes = proposeChanges(collectFindings([ep('ep1', 'train', { dup: ['refund'], falseCompletion: true })]));
    const v1 = { system_prompt: 'Be kind.', tool_guidance: { refund: 'Refunds need an order id.' } };
    const v2 = applyChanges(v1, partitionChanges(changes, v1).apply);
    expect(v2.system_prompt).to.equal(
      'Be kind.\nLessons from earlier evaluations:\n- Call complete only after a read shows the requested change.',
    );
    expect(v2.tool_guidance!.refund!.startsWith('Refunds need an order id. A write may answer UNKNOWN')).to.equal(true);
    const again = partitionChanges(changes, v2);
    expect(again.apply).to.deep.equal([]);
    expect(again.already.length).to.equal(changes.length);
    const more = proposeChanges(collectFindings([ep('ep2', 'train', { unread: true })]));
    const v3 = applyChanges(v2, partitionChanges(more, v2).apply);
    expect(v3.system_prompt.match(/Lessons from earlier evaluations:/g)!.length).to.equal(1);
    expect(v3.system_prompt.endsWith("- Read the customer's latest message before every write.")).to.equal(true);
  });
});
