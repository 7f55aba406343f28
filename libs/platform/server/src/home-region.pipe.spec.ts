import type { ArgumentMetadata } from '@nestjs/common';
import { loadConfig, PlatformConfig } from '@svc/config';
import { WrongRegionError } from '@svc/errors';
import { CrossBorder, RoutedBy } from '@svc/ids';
import { HomeRegionPipe } from './home-region.pipe';

@RoutedBy('flow_id')
class FlowBody {
  flow_id!: string;
  note?: string;
}

@RoutedBy('agent_ids')
class AgentsBody extends FlowBody {
  agent_ids?: string[];
}

class UnmarkedBody {
  flow_id!: string;
}

const config = loadConfig(PlatformConfig, {
  REGION: 'eu',
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/svc_eu',
  KEY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  REGION_URLS: 'us=https://us.example,eu=https://eu.example',
  REGION_COUNTRIES: 'us=US,eu=IE',
});
const pipe = new HomeRegionPipe(config);
const body = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type: 'body', metatype });

function refusal(value: unknown, metatype: ArgumentMetadata['metatype']): WrongRegionError | undefined {
  try {
    pipe.transform(value, body(metatype));
    return undefined;
  } catch (error) {
    if (error instanceof WrongRegionError) return error;
    throw error;
  }
}

describe('HomeRegionPipe: identifiers in a body home the request (spec: Authentication rule 11)', () => {
  it('refuses a foreign id in a marked field with 421, home_country from the residency table', () => {
    const error = refusal({ flow_id: 'flw_us_abcdefghijklmnopqrst' }, FlowBody);
    expect(error?.kind).toBe('misdirected');
    expect(error?.toEnvelope()).toEqual({
      message: expect.stringContaining('us'),
      reason_code: 'wrong_region',
      home_country: 'US',
      detail: { home_region: 'us', home_country: 'US', home_region_url: 'https://us.example' },
    });
  });

  it('reads marks inherited from a base DTO and ids inside arrays, malformed ones included', () => {
    expect(refusal({ flow_id: 'flw_us_x' }, AgentsBody)?.home.region).toBe('us');
    expect(
      refusal(
        { flow_id: 'flw_eu_abcdefghijklmnopqrst', agent_ids: ['agent_eu_abcdefghijklmnopqrst', 'agent_ap_abcdefghijklmnopqrst'] },
        AgentsBody,
      )?.home,
    ).toEqual({
      region: 'ap',
      country: 'SG',
    });
  });

  it('passes local and development ids, unmarked fields and unmarked DTOs through unchanged', () => {
    const local = { flow_id: 'flw_eu_abcdefghijklmnopqrst', note: 'flw_us_abcdefghijklmnopqrst' };
    expect(pipe.transform(local, body(FlowBody))).toBe(local);
    expect(refusal({ flow_id: 'flw_dev_abcdefghijklmnopqrst' }, FlowBody)).toBeUndefined();
    expect(refusal({ flow_id: 'flw_us_abcdefghijklmnopqrst' }, UnmarkedBody)).toBeUndefined();
    expect(refusal('flw_us_abcdefghijklmnopqrst', FlowBody)).toBeUndefined();
  });
});

describe('HomeRegionPipe: a person of another region is never written here (residency per person)', () => {
  const at = (type: ArgumentMetadata['type'], metatype?: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type, metatype });
  const refused = (value: unknown, metadata: ArgumentMetadata): WrongRegionError | undefined => {
    try {
      pipe.transform(value, metadata);
      return undefined;
    } catch (error) {
      if (error instanceof WrongRegionError) return error;
      throw error;
    }
  };

  it('refuses a foreign usr_ id in any body field, nested or in arrays, marked or not', () => {
    expect(refused({ principal_id: 'usr_us_abcdefghijklmnopqrst' }, at('body', UnmarkedBody))?.toEnvelope().home_country).toBe('US');
    expect(refused({ subject: { external_id: 'usr_ap_abcdefghijklmnopqrst' } }, at('body'))?.home.region).toBe('ap');
    expect(refused({ participants: [{ principal_id: 'usr_us_x' }] }, at('body'))?.home.region).toBe('us');
    expect(refused({ metadata: { usr_us_abcdefghijklmnopqrst: true } }, at('body'))?.home.region).toBe('us');
  });

  it('refuses one in a query or path parameter too', () => {
    expect(refused({ person_id: 'usr_us_abcdefghijklmnopqrst' }, at('query'))?.home.region).toBe('us');
    expect(refused('usr_us_abcdefghijklmnopqrst', at('param'))?.home.region).toBe('us');
  });

  it('passes a local person, other kinds of foreign ids in unmarked fields, and text that only mentions the prefix', () => {
    expect(refused({ principal_id: 'usr_eu_abcdefghijklmnopqrst', note: 'see usr_us_abcdefghijklmnopqrst' }, at('body'))).toBeUndefined();
    expect(refused({ agent_id: 'agent_us_abcdefghijklmnopqrst' }, at('body', UnmarkedBody))).toBeUndefined();
  });

  it('lets a cross-border lookup name a foreign person (the question, not a write)', () => {
    @CrossBorder()
    class LookupBody {
      person_id!: string;
    }
    expect(refused({ person_id: 'usr_us_abcdefghijklmnopqrst' }, at('body', LookupBody))).toBeUndefined();
  });
});
