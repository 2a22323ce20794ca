import { expect } from 'chai';
import { functionTools } from '../../episode-actor/turns.js';
import { DESK_WORLD } from '../support/episode-fixture.js';

describe('episode actor: the tools offered in function-calling format', () => {
  const names = ['find_item', 'add_note', 'reply_to_customer', 'wait', 'complete'];

  it('lists the offered tools in order, application tools with their parameters, built-ins as defined', () => {
    const tools = functionTools(DESK_WORLD, names, {});
    expect(tools.map((t) => t.function.name)).to.deep.equal(names);
    expect(tools[1]!.function.parameters).to.deep.include({ type: 'object' });
    expect(Object.keys(tools[1]!.function.parameters.properties ?? {})).to.have.members(['item_id', 'text']);
  });

  it('builds a list once per world, names and guidance, and keeps lists with different guidance apart', () => {
    const plain = functionTools(DESK_WORLD, names, {});
    expect(functionTools(DESK_WORLD, [...names], {})).to.equal(plain);
    const guided = functionTools(DESK_WORLD, names, { add_note: 'Read the notes first.', wait: 'Rarely.' });
    expect(guided).to.not.equal(plain);
    expect(guided[1]!.function.description).to.match(/\n\nRead the notes first\.$/);
    expect(guided[3]!.function.description).to.match(/\n\nRarely\.$/);
    // the guidance of one profile never shows in another's list
    expect(plain[1]!.function.description).to.not.match(/Read the notes first/);
    expect(plain[3]!.function.description).to.not.match(/Rarely/);
    expect(functionTools(DESK_WORLD, names, { add_note: 'Other advice.' })[1]!.function.description).to.match(
      /Other advice\.$/,
    );
    // guidance for a tool that is not offered changes nothing
    expect(functionTools(DESK_WORLD, names, { list_notes: 'Unused.' })).to.equal(plain);
  });

  it('gives a different world its own lists', () => {
    const other = {
      ...DESK_WORLD,
      tools: DESK_WORLD.tools.map((t) =>
        t.name === 'find_item' ? { ...t, description: 'Look an item up by code.' } : t,
      ),
    };
    expect(functionTools(other, names, {})[0]!.function.description).to.equal('Look an item up by code.');
    expect(functionTools(DESK_WORLD, names, {})[0]!.function.description).to.not.equal('Look an item up by code.');
  });
});
