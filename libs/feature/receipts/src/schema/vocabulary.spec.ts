import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COLLECTION_CHANNELS, EVENT_CHANNELS } from '@svc/contracts';

interface SchemaDefs {
  $defs: {
    event: { properties: { event_channel: { enum: string[] } } };
    extensions: { properties: { collection_channel: { enum: string[] } } };
  };
}

/** The published schema and the services that write records must speak the same vocabulary. */
describe('svc-cr/2.13 schema vocabularies', () => {
  const schema = JSON.parse(readFileSync(join(__dirname, 'svc-cr-2.13.schema.json'), 'utf8')) as SchemaDefs;

  it('enumerates exactly the shared event channels', () => {
    expect(schema.$defs.event.properties.event_channel.enum).toEqual([...EVENT_CHANNELS]);
  });

  it('enumerates exactly the shared collection channels', () => {
    expect(schema.$defs.extensions.properties.collection_channel.enum).toEqual([...COLLECTION_CHANNELS]);
  });
});
