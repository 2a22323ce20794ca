import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { ServiceError } from '../../core/errors.js';
import { checkEventData, EVENT_TYPES, type EventField } from '../../core/event-types.js';

interface DocumentedType {
  intro: string;
  fields: Array<{ name: string; type: string; required: string }>;
}

/** The `## Event types` section of docs/events.md: each `### \`type\`` with its field table. */
function documentedTypes(): Map<string, DocumentedType> {
  const text = readFileSync(new URL('../../docs/events.md', import.meta.url), 'utf8');
  const section = text.split(/^## Event types$/m)[1];
  expect(section, 'docs/events.md has a "## Event types" section').to.be.a('string');
  const out = new Map<string, DocumentedType>();
  for (const block of section!.split(/^### /m).slice(1)) {
    const [heading, ...lines] = block.split('\n');
    const type = /^`([^`]+)`$/.exec(heading!.trim())?.[1];
    expect(type, `heading "${heading}"`).to.be.a('string');
    expect(out.has(type!), `${type} documented twice`).to.equal(false);
    const rows = lines.filter((l) => /^\| `/.test(l)).map((l) => l.split('|').map((c) => c.trim()));
    out.set(type!, {
      intro: lines.find((l) => l.trim() !== '') ?? '',
      fields: rows.map((r) => ({ name: r[1]!.replace(/`/g, ''), type: r[2]!, required: r[3]! })),
    });
  }
  return out;
}

const typeText = (f: EventField) => `${f.type}${f.nullable ? ' or null' : ''}`;

describe('event catalogue (core/event-types.ts) and docs/events.md', () => {
  it('the page lists exactly the catalogue types, in the same order', () => {
    expect([...documentedTypes().keys()]).to.deep.equal(Object.keys(EVENT_TYPES));
  });

  it('each documented type has exactly the catalogue fields, with their JSON type, requiredness and summary', () => {
    const docs = documentedTypes();
    for (const [type, spec] of Object.entries(EVENT_TYPES)) {
      const doc = docs.get(type)!;
      expect(doc.intro, type).to.contain(spec.summary);
      expect(doc.intro, type).to.contain(`Emitted by: ${spec.emittedBy}`);
      const expected = Object.entries(spec.fields as Record<string, EventField>).map(([name, f]) => ({
        name,
        type: typeText(f),
        required: f.required ? 'yes' : 'no',
      }));
      expect(doc.fields, type).to.deep.equal(expected);
    }
  });

  it('covers the types the issue and producers need', () => {
    const needed = [
      'compiler.phase.started',
      'compiler.phase.finished',
      'job.status_changed',
      'job.progress',
      'build.scenario.validated',
      'build.published',
      'run.started',
      'run.finished',
      'shard.status_changed',
      'episode.started',
      'episode.finished',
      'turn.offered',
      'action.accepted',
      'action.succeeded',
      'action.failed',
      'action.refused',
      'customer.message',
      'agent.message',
      'actor.message',
      'goal.revised',
      'fault.injected',
      'intervention.applied',
      'checks.finished',
      'stream.end',
    ];
    expect(Object.keys(EVENT_TYPES)).to.include.members(needed);
  });

  describe('checkEventData', () => {
    const refused = (type: string, data: Record<string, unknown>) => {
      try {
        checkEventData(type, data);
      } catch (err) {
        expect(err).to.be.instanceOf(ServiceError);
        expect((err as ServiceError).code).to.equal('internal');
        return (err as ServiceError).message;
      }
      throw new Error(`${type} ${JSON.stringify(data)} was accepted`);
    };

    it('accepts events that match the catalogue, with optional fields absent and nullable ones null', () => {
      checkEventData('compiler.phase.finished', {
        phase: 'publish',
        status: 'succeeded',
        duration_ms: 12.5,
        error: null,
      });
      checkEventData('action.succeeded', { tool: 'get_order', result: null, operation_id: null });
      checkEventData('action.succeeded', { tool: 'get_order', result: { any: ['json'] } });
      checkEventData('turn.offered', { turn: 3, tools: ['wait', 'complete'] });
      checkEventData('checks.finished', { reward: null });
    });

    it('refuses unknown types, unknown fields, missing required fields and wrong JSON types, naming the catalogue', () => {
      expect(refused('made.up', {})).to.match(/not in the event catalogue.*core\/event-types\.ts.*docs\/events\.md/);
      expect(refused('agent.message', { text: 'hi', mood: 'calm' })).to.contain(
        'data field "mood" is not in the catalogue',
      );
      expect(refused('agent.message', {})).to.contain('data field "text" is required');
      expect(refused('checks.finished', {})).to.contain('"reward" is required');
      expect(refused('turn.offered', { turn: 1.5, tools: [] })).to.contain('"turn" must be integer');
      expect(refused('turn.offered', { turn: 1, tools: 'wait' })).to.contain('"tools" must be array');
      expect(refused('compiler.phase.finished', { phase: 'x', status: 'failed', detail: [] })).to.contain(
        '"detail" must be object',
      );
      expect(refused('agent.message', { text: null })).to.contain('"text" must be string');
      expect(refused('job.progress', { completed: 1, spent_usd: Number.NaN })).to.contain('"spent_usd" must be number');
      expect(refused('agent.message', ['text'] as unknown as Record<string, unknown>)).to.contain(
        'data must be an object',
      );
    });
  });
});
