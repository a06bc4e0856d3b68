import { describe, expect, it } from 'vitest';
import { askerOf, connectionWords } from '../../../src/app/console/approvals.js';

// How a connection reads on a person's page: names, never the token id.
describe('a connection in words', () => {
  it.each([
    ['tok_abc "Claude on Olga\'s laptop" · claude-ai 1.2', "Claude on Olga's laptop, from claude-ai 1.2"],
    ['tok_abc "test agent" · undeclared client', 'test agent'],
    ['tok_abc · cursor 0.9', 'an agent, from cursor 0.9'],
    ['grant_xyz "Calendar helper" · chatgpt 5', 'Calendar helper, from chatgpt 5'],
    ['session (password)', 'a console page, with a password'],
    ['session (passkey)', 'a console page, with a passkey'],
    ['operator-cli', 'operator-cli'],
  ])('%s reads as “%s”', (clientId, words) => {
    expect(connectionWords(clientId)).toBe(words);
    expect(connectionWords(clientId)).not.toMatch(/tok_|grant_/);
  });

  it('the asker names the token and whose it is', () => {
    expect(askerOf('tok_a "test agent" · x 1', { displayName: 'Olga Petrova', email: 'o@x' })).toBe(
      'test agent — token of Olga Petrova',
    );
    expect(askerOf('tok_a · x 1', null)).toBe('an unnamed connection');
  });
});
