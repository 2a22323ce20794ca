import { expect } from 'chai';
import { askedFacts, askingTerms } from '../../episode-actor/customer/asking.js';
import { guardReply } from '../../episode-actor/customer/guard.js';

/**
 * The model customer's guard discloses a fact only when the agent's message asks for it, by
 * meaning (episode-actor/customer/asking.ts): paraphrases count, a question about another
 * fact does not, and neither does "tell me everything".
 */
const FACTS = [
  { key: 'email', value: 'kim@example.com', ask: ['email', 'e-mail', 'account'] },
  { key: 'order_id', value: 'ORD-1042', ask: ['order'] },
  { key: 'dob', value: '1990-04-02', ask: ['birth', 'dob', 'born'] },
  { key: 'phone_number', value: '+44 20 7946 0958', ask: ['phone'] },
];

describe('the model customer answers what was asked (asking.ts, guard.ts)', () => {
  const asks = (text: string) => askedFacts(text, FACTS);

  it('paraphrases ask for the fact they mean', () => {
    const cases: Array<[string, string[]]> = [
      ['What is the best address to e-mail you at?', ['email']],
      ['Could you tell me the email address on file?', ['email']],
      ['Which account did you sign up with?', ['email']],
      ['Can you confirm your inbox so I can send the receipt there?', ['email']],
      ['When were you born?', ['dob']],
      ['Please share your birthday so I can find your record.', ['dob']],
      ['Which purchase is this about?', ['order_id']],
      ["What's the order number?", ['order_id']],
      ['What is a good number to call you on?', ['phone_number']],
      ['Could I get your mobile?', ['phone_number']],
      ['I need your date of birth and your phone number, please.', ['dob', 'phone_number']],
    ];
    for (const [text, keys] of cases) expect(asks(text), text).to.deep.equal(keys);
  });

  it('a question about one fact does not ask for the others', () => {
    expect(asks('What is your order number?')).to.deep.equal(['order_id']);
    expect(asks('When were you born?')).to.not.include('email');
    const reason = guardReply(
      { reply: 'It is ORD-1042, and my email is kim@example.com.', disclosed: ['order_id', 'email'] },
      { facts: FACTS, agentText: 'What is your order number?', known: [] },
    );
    expect(reason).to.equal('it volunteers email although the agent asked only for order_id');
    expect(
      guardReply(
        { reply: 'It is ORD-1042.', disclosed: ['order_id'] },
        { facts: FACTS, agentText: 'What is your order number?', known: [] },
      ),
    ).to.equal(null);
  });

  it('"tell me everything" and other catch-alls ask for no fact', () => {
    for (const text of [
      'Tell me everything.',
      'Please tell me everything you know.',
      'Can you give me all the details?',
      'Is there anything else I should know?',
      'Anything more you can share?',
    ]) {
      expect(asks(text), text).to.deep.equal([]);
      const reason = guardReply(
        { reply: 'My email is kim@example.com and my order is ORD-1042.', disclosed: ['email', 'order_id'] },
        { facts: FACTS, agentText: text, known: [] },
      );
      expect(reason, text).to.equal('it volunteers email, order_id although the agent asked for none of its facts');
    }
  });

  it('a statement that names a fact is not a question about it', () => {
    expect(asks('Your order has been refunded.')).to.deep.equal([]);
    expect(asks('I sent the confirmation to your email. Thanks for your patience.')).to.deep.equal([]);
    // but a request in the same message still asks
    expect(asks('I have found two orders. Which order is this about?')).to.deep.equal(['order_id']);
  });

  it('a question mark alone asks for nothing (before, any "?" opened every fact)', () => {
    expect(asks('Is everything fine?')).to.deep.equal([]);
    expect(asks('Anything else?')).to.deep.equal([]);
  });

  it('each fact lists what counts as asking for it: its ask keywords, its key, and its meaning', () => {
    const terms = askingTerms(FACTS[0]!);
    expect(terms).to.include.members(['email', 'e-mail', 'account', 'email address', 'inbox', 'username']);
    expect(askingTerms(FACTS[1]!)).to.include.members(['order', 'order id', 'order number', 'purchase']);
    expect(askingTerms({ key: 'code', ask: ['code'] })).to.include.members(['code', 'identifier', 'label']);
  });
});
