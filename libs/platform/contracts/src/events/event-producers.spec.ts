/**
 * Conventions of the event catalogue, read from the production sources: each bus event type is
 * written to an outbox only by the service the catalogue names as its producer, and every
 * catalogue entry is written somewhere. A source file publishes when it uses an outbox writer;
 * the event types it names (string literals, and template literals such as
 * `collaboration.member_${change}` for every type they can spell) count as published, except where
 * they are plainly read: `case`, comparisons, `decodeEvent(…)`, subscriptions (`types:`,
 * `@EventFanout(…)`), listeners (`.on(…)`). Comments do not count.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { EVENT_CATALOGUE, type EventProducer, type EventType } from '../index';

const ROOT = join(__dirname, '..', '..', '..', '..', '..');
const TYPES = Object.keys(EVENT_CATALOGUE) as EventType[];

/** Folders that are never production code. */
const SKIPPED_DIRS = new Set(['node_modules', 'gen', 'fixtures', 'test', 'testing', 'dist']);

/** Names that look like event types but are something else, per file (each with its reason). */
const NOT_BUS_EVENTS: Record<string, readonly string[]> = {
  // oidc-provider's own event name, turned into `oauth.token_revoked`.
  'libs/feature/decision-gateway/src/oauth/token-events.ts': ['grant.revoked'],
};

/** Production TypeScript sources under `dir` (tests, fixtures, generated code and declarations excluded). */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : sources(path);
    return entry.name.endsWith('.ts') && !/(\.spec|-spec|\.d)\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** The producer a source file belongs to: a feature library, the admin CLI, or its folder. */
function producerOf(file: string): string {
  const feature = /^libs\/feature\/([^/]+)\//.exec(file);
  if (feature) return feature[1]!;
  if (file.startsWith('tools/admin/')) return 'admin-cli' satisfies EventProducer;
  return file.slice(0, file.lastIndexOf('/'));
}

const READ_POSITION = /(?:\bcase\s+|[!=]==?\s*|\bdecodeEvent\(\s*|\btypes:\s*|@EventFanout\(\s*|\.on\(\s*)$/;

/** The event types a source publishes, when it uses an outbox writer. */
function publishedTypes(file: string, text: string): EventType[] {
  if (!/\boutbox\b|OutboxWriter/i.test(text)) return [];
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const ignored = NOT_BUS_EVENTS[file] ?? [];
  const found = new Set<EventType>();
  for (const match of code.matchAll(/(['`])([a-z_]+\.[a-z_]+)(\$\{|\1)/g)) {
    if (READ_POSITION.test(code.slice(Math.max(0, match.index - 40), match.index))) continue;
    const [, , literal, end] = match;
    const spelled = end === '${' ? TYPES.filter((type) => type.startsWith(literal!)) : TYPES.filter((type) => type === literal);
    for (const type of spelled) if (!ignored.includes(type)) found.add(type);
  }
  return [...found];
}

const PUBLICATIONS = ['apps', 'libs', 'tools']
  .flatMap(sources)
  .filter((file) => !file.startsWith('libs/platform/contracts/'))
  .flatMap((file) =>
    publishedTypes(relative(ROOT, join(ROOT, file)), readFileSync(join(ROOT, file), 'utf8')).map((type) => ({
      type,
      file,
      producer: producerOf(file),
    })),
  );

describe('event catalogue conventions (production sources)', () => {
  it('finds the publications', () => {
    expect(PUBLICATIONS.length).toBeGreaterThan(TYPES.length);
  });

  it('each event type is published only by its catalogue producer', () => {
    const foreign = PUBLICATIONS.filter(({ type, producer }) => EVENT_CATALOGUE[type].producer !== producer).map(
      ({ type, file }) => `${type} in ${file} (catalogue producer: ${EVENT_CATALOGUE[type].producer})`,
    );
    expect(foreign).toEqual([]);
  });

  it('every catalogue entry is published somewhere', () => {
    const published = new Set(PUBLICATIONS.map(({ type }) => type));
    expect(TYPES.filter((type) => !published.has(type))).toEqual([]);
  });

  it('recognises publishing and reading positions', () => {
    const file = 'libs/feature/x/src/a.ts';
    expect(publishedTypes(file, "await this.outbox.add(manager, 'consent.recorded', {});")).toEqual(['consent.recorded']);
    expect(publishedTypes(file, 'outbox.add(manager, `collaboration.member_${change}`, {});').sort()).toEqual([
      'collaboration.member_accepted',
      'collaboration.member_declined',
      'collaboration.member_invited',
      'collaboration.member_revoked',
    ]);
    expect(
      publishedTypes(
        file,
        "// outbox\nswitch (t) { case 'consent.granted': decodeEvent('consent.denied', d); if (t === 'consent.revoked') {} }",
      ),
    ).toEqual([]);
    expect(publishedTypes(file, "const x = 'consent.recorded'; // no writer here")).toEqual([]);
    expect(publishedTypes(file, "/* outbox.add(m, 'consent.expired') */ const writer: OutboxWriter = w;")).toEqual([]);
  });
});
