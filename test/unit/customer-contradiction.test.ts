import { expect } from 'chai';
import { attributeFailure, type EpisodeState, type MessageRecord, type Oracle } from '../../episode-actor/index.js';
import { findContradictions, valueShape } from '../../episode-actor/customer/contradiction.js';
import { customerRecord } from '../../episode-actor/oracle.js';
import { deskScenario } from '../support/episode-fixture.js';

let index = 0;
const msg = (from: string, to: string, text: string, kind: string): MessageRecord => ({
  index: index++,
  at: '2026-01-01T00:00:00.000Z',
  from,
  to,
  text,
  goal_version: 1,
  kind,
  after_action: 0,
});
const agent = (text: string) => msg('agent', 'customer', text, 'agent');
const customer = (text: string, kind = 'answer') => msg('customer', 'agent', text, kind);

const FACTS = [
  { key: 'order_id', value: 'ORD-1042', ask: ['order'] },
  { key: 'email', value: 'kim@example.com', ask: ['email', 'e-mail'] },
  { key: 'amount', value: '49.99', ask: ['amount', 'paid', 'price'] },
  { key: 'name', value: 'Kim Lee', ask: ['name'] },
  { key: 'dob', value: '1985-03-12', ask: ['birth', 'dob'] },
];

describe('customer contradictions (a crafted transcript)', () => {
  beforeEach(() => (index = 0));

  it('finds a different order id, e-mail address or amount than the facts say, once per message and fact', () => {
    const found = findContradictions(
      [
        customer('My order ORD-1042 arrived broken, I paid 49.99.', 'request'),
        agent('Is your order ORD-1024?'),
        customer('Yes, ORD-1024.'),
        agent('Which e-mail is on the account?'),
        customer('It is kim.lee@example.org, and I paid 59.99.'),
        agent('Thanks!'),
        customer('My email is kim@example.com.'),
      ],
      FACTS,
    );
    expect(found.map((v) => [v.contact, v.fact, v.message_index, v.kind, v.handled])).to.deep.equal([
      [1, 'order_id', 2, 'contradiction', 'sent'],
      [2, 'email', 4, 'contradiction', 'sent'],
      [2, 'amount', 4, 'contradiction', 'sent'],
    ]);
    expect(found[0]!.reason).to.equal('it gives order_id as ORD-1024, but its fact says ORD-1042');
    expect(found[1]!.text).to.equal('It is kim.lee@example.org, and I paid 59.99.');
  });

  it('does not count the true value, a denied value, another fact, the scripted texts, other shapes or free text', () => {
    const found = findContradictions(
      [
        customer('Please refund ORD-2000 and ORD-1042.', 'request'),
        agent('Is it ORD-7?'),
        customer("No, it's not ORD-7, it is ORD-1042."),
        customer('Not ORD-7.'),
        customer('The other order is ORD-2000.'),
        customer('I bought 2 mugs on 3 May for kim@example.com.'),
        customer('My name is Kim Leigh.'),
        customer('I paid 149.990 or maybe 12 euros.'),
        customer('Sorry, I typed ORD-9.', 'revision'),
        // a value of a fact's shape that is not about the fact: an appointment date is no birth date
        agent('Your appointment is booked for 2025-06-10.'),
        customer('Great, 2025-06-10 works for me.'),
      ],
      FACTS,
    );
    expect(found).to.deep.equal([]);
  });

  it('counts a value of the shape when the message or the question it answers is about the fact', () => {
    const found = findContradictions(
      [
        customer('I need to change my appointment.', 'request'),
        agent('To find you: is your date of birth 1985-03-21?'),
        customer('Yes, 1985-03-21.'),
        agent('Thanks.'),
        customer('Oh, and my dob is 1985-12-03, sorry.'),
      ],
      FACTS,
    );
    expect(found.map((v) => [v.fact, v.message_index])).to.deep.equal([
      ['dob', 2],
      ['dob', 4],
    ]);
  });

  it('derives the shapes it compares from the values', () => {
    expect('ord-77 and ORD-1'.match(valueShape('ORD-1042')!)).to.deep.equal(['ord-77', 'ORD-1']);
    expect('4455 and 12345 and 4455.'.match(valueShape('1234')!)).to.deep.equal(['4455', '4455']);
    expect(valueShape('49')).to.equal(null);
    expect('12.50, 3.5'.match(valueShape('49.99')!)).to.deep.equal(['12.50']);
    expect(valueShape('Kim Lee')).to.equal(null);
  });

  it('puts a contradiction in the oracle and attributes the failure to the customer, not the agent', () => {
    const scenario = deskScenario();
    const messages = [
      customer(scenario.request, 'request'),
      agent('Is your item code X-24?'),
      customer('Yes, it is X-24.'),
    ];
    const st = { scenario, messages, customer: { violations: [] } } as unknown as EpisodeState;
    const rec = customerRecord(st, { facts: { code: 'X-42' } });
    expect(rec.customer_violations).to.have.length(1);
    expect(rec.customer_violations[0]).to.deep.include({ kind: 'contradiction', fact: 'code', message_index: 2 });
    const oracle = {
      check_results: [{ check: 'note_added', kind: 'state', passed: false, observed: [] }],
      duplicate_effects: [],
      false_completion: true,
      environment_error: null,
      ...rec,
    } as unknown as Oracle;
    const failure = attributeFailure(st, oracle, { facts: { code: 'X-42' } });
    expect(failure).to.deep.equal({
      cause: 'customer',
      reason: 'the customer contradicted its own facts in message 2: it gives code as X-24, but its fact says X-42',
    });
    // the same transcript with a truthful customer is the agent's failure
    messages[2] = customer('Yes, it is X-42.');
    const honest = { ...oracle, ...customerRecord(st, { facts: { code: 'X-42' } }) };
    expect(honest.customer_violations).to.deep.equal([]);
    expect(attributeFailure(st, honest, { facts: { code: 'X-42' } })!.cause).to.equal('agent');
  });
});
