import { parseAgentMetadata } from './agent-metadata';

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe('agent_metadata (spec: agent_metadata, Limits)', () => {
  it('keeps every field of the closed list', () => {
    const metadata = {
      agent_type: 'assistant',
      agent_model: 'm',
      agent_provider: 'p',
      agent_version: '1',
      agent_instance_id: 'i',
      delegator_sub: 'user-1',
      delegation_purpose: 'book travel',
    };
    expect(parseAgentMetadata(metadata)).toEqual(metadata);
  });

  it('rejects unknown fields as agent_credential_malformed', () => {
    expect(codeOf(() => parseAgentMetadata({ agent_colour: 'blue' }))).toBe('agent_credential_malformed');
  });

  it('rejects an agent_type outside the taxonomy', () => {
    expect(codeOf(() => parseAgentMetadata({ agent_type: 'robot' }))).toBe('agent_type_outside_taxonomy');
  });

  it.each([
    ['agent_model', 201],
    ['agent_provider', 201],
    ['agent_instance_id', 201],
    ['agent_version', 101],
  ])('enforces the length limit of %s', (field, length) => {
    expect(codeOf(() => parseAgentMetadata({ [field]: 'x'.repeat(length - 1) }))).toBeUndefined();
    expect(codeOf(() => parseAgentMetadata({ [field]: 'x'.repeat(length) }))).toBe('agent_credential_malformed');
  });

  it('rejects non-objects and wrong value types', () => {
    expect(codeOf(() => parseAgentMetadata('x'))).toBe('agent_credential_malformed');
    expect(codeOf(() => parseAgentMetadata([]))).toBe('agent_credential_malformed');
    expect(codeOf(() => parseAgentMetadata({ agent_model: 5 }))).toBe('agent_credential_malformed');
  });
});
