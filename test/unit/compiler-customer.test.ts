import { expect } from 'chai';
import { ServiceError } from '../../core/errors.js';
import {
  customerSendArgs,
  customerTexts,
  disclosedFacts,
  scenarioContext,
  type CustomerSpec,
  type Scenario,
} from '../../world/index.js';

const scenario = {
  id: 't--v1',
  vars: { name: 'Dana' },
  facts: {
    email: { value: 'dana@x.test', ask: ['email', 'e-mail'] },
    order: { value: '${order.number}', ask: ['order number'] },
  },
  request: 'Hi, about order ${order.number}',
  revisions: [{ at: 'after_first_reply', text: 'Also ${name}', goal_version: 2 }],
} as unknown as Scenario;

const notifications: CustomerSpec = {
  channel: 'notifications',
  via: {
    service: 't',
    send_tool: 'add_comment',
    send_args: { issue_id: '${thread.id}', author: '${name}', body: '${text}' },
    inbox_tool: 'i',
    read_tools: [],
    reply_tool: 'add_comment',
    reply_text_arg: 'body',
  },
};

describe('compiler: customer rules', () => {
  const vars = scenarioContext(scenario, { order: { number: 'A1004' }, thread: { id: 'iss_1' } });

  it('resolves facts against variables and seed bindings', () => {
    expect(vars.facts).to.deep.equal({ email: 'dana@x.test', order: 'A1004' });
    expect(vars.name).to.equal('Dana');
  });

  it('discloses the facts whose keywords the agent message contains', () => {
    expect(disclosedFacts(scenario, 'What is your E-MAIL and order number?', vars)).to.deep.equal([
      { key: 'email', value: 'dana@x.test' },
      { key: 'order', value: 'A1004' },
    ]);
    expect(disclosedFacts(scenario, 'How are you?', vars)).to.deep.equal([]);
  });

  it('fills the request and revisions, and the send_tool arguments of a notifications world', () => {
    expect(customerTexts(scenario, vars)).to.deep.equal({ request: 'Hi, about order A1004', revisions: ['Also Dana'] });
    expect(customerSendArgs(notifications, vars, 'hello')).to.deep.equal({
      issue_id: 'iss_1',
      author: 'Dana',
      body: 'hello',
    });
    expect(() => customerSendArgs({ channel: 'chat' }, vars, 'x')).to.throw(ServiceError);
  });
});
