import { expect } from 'chai';
import { duplicateEffects, type EpisodeState, type MessageRecord } from '../../episode-actor/index.js';

const msg = (index: number, from: string, to: string, text: string, kind: string): MessageRecord => ({
  index,
  at: '2026-01-01T00:00:00Z',
  from,
  to,
  text,
  goal_version: 1,
  kind,
  after_action: index + 1,
});

const state = (messages: MessageRecord[]): EpisodeState =>
  ({ messages, proxy: { writes: [] } }) as unknown as EpisodeState;
type EpisodeWorld = Parameters<typeof duplicateEffects>[1];
const chat = { manifest: { customer: { channel: 'chat' } } } as unknown as EpisodeWorld;

/** docs/scoring.md, The oracle record: a customer message repeated back to back is a duplicate effect. */
describe('oracle: repeated customer messages', () => {
  it('counts the same customer-visible text sent twice with no customer message between', () => {
    const d = duplicateEffects(
      state([
        msg(0, 'customer', 'agent', 'My kettle broke.', 'request'),
        msg(1, 'frontline', 'customer', 'Refunded 49 EUR.', 'agent'),
        msg(2, 'frontline', 'customer', ' Refunded 49 EUR. ', 'agent'),
      ]),
      chat,
    );
    expect(d).to.have.length(1);
    expect(d[0]).to.deep.include({ tool: 'reply_to_customer', args: { text: 'Refunded 49 EUR.' }, times: 2 });
  });

  it('does not count asking again after the customer spoke, other texts, or messages between actors', () => {
    const d = duplicateEffects(
      state([
        msg(0, 'frontline', 'customer', 'What is your e-mail?', 'agent'),
        msg(1, 'customer', 'agent', 'Hm?', 'answer'),
        msg(2, 'frontline', 'customer', 'What is your e-mail?', 'agent'),
        msg(3, 'frontline', 'billing', 'Please refund.', 'actor'),
        msg(4, 'frontline', 'billing', 'Please refund.', 'actor'),
        msg(5, 'frontline', 'customer', 'Done.', 'agent'),
      ]),
      chat,
    );
    expect(d).to.deep.equal([]);
  });
});
