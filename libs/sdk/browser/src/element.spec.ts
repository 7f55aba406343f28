import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileSdk } from './bundle';

const TOKEN = `dts_${'a'.repeat(43)}`;

/**
 * Runs an ES module next to the compiled SDK (`./svc.mjs`) in a plain Node process and returns
 * what it printed: the SDK is an ES module, and "no DOM" must mean no DOM globals at all.
 */
function runBesideSdk(script: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sdk-'));
  try {
    writeFileSync(join(dir, 'svc.mjs'), compileSdk());
    writeFileSync(join(dir, 'main.mjs'), script);
    return execFileSync(process.execPath, ['main.mjs'], { cwd: dir, encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A minimal DOM for the custom element: an element class with attributes and children, an iframe
 * factory that counts the frames made, and a customElements registry.
 */
const FAKE_DOM = `
const frames = [];
class FakeNode extends EventTarget {
  attributes = new Map(); children = []; style = {}; isConnected = false;
  getAttribute(name) { return this.attributes.has(name) ? this.attributes.get(name) : null; }
  setAttribute(name, value) { this.attributes.set(name, value); }
  appendChild(child) { this.children.push(child); child.parent = this; }
  remove() { this.removed = true; }
}
globalThis.HTMLElement = FakeNode;
globalThis.window = Object.assign(new EventTarget(), { location: { origin: 'https://shop.example', pathname: '/' } });
globalThis.document = {
  querySelector: () => null,
  body: new FakeNode(),
  createElement: (tag) => { const node = new FakeNode(); node.tag = tag; frames.push(node); return node; },
};
const registry = new Map();
globalThis.customElements = { get: (name) => registry.get(name), define: (name, ctor) => registry.set(name, ctor) };
`;

/** Issue 19 item 2: the browser SDK is safe to import on a server, and <svc-decision> embeds once. */
describe('browser SDK outside and inside a page', () => {
  it('imports in Node without a DOM and still verifies envelopes there', () => {
    const output = runBesideSdk(`
      const sdk = await import('./svc.mjs');
      const envelope = { type: 'svc:ready', kind: 'consent', version: 2, payload: {}, ts: new Date().toISOString(), message_id: crypto.randomUUID() };
      console.log(JSON.stringify({ exports: Object.keys(sdk).sort(), valid: sdk.isSvcEnvelope(envelope), window: typeof window, element: typeof sdk.SvcDecisionElement }));
    `);
    expect(JSON.parse(output)).toEqual({
      exports: expect.arrayContaining([
        'DecisionHandle',
        'SvcDecisionElement',
        'SvcError',
        'configure',
        'createSession',
        'isSvcEnvelope',
        'open',
      ]),
      valid: true,
      window: 'undefined',
      element: 'function',
    });
  });

  it('embeds one frame when an element already in the page is upgraded (attribute callbacks, then connected)', () => {
    const output = runBesideSdk(`${FAKE_DOM}
      await import('./svc.mjs');
      const Element = customElements.get('svc-decision');
      const element = new Element();
      element.setAttribute('token', '${TOKEN}');
      element.setAttribute('base-url', 'https://us.svc.example');
      element.isConnected = true;
      // The order a browser uses when it upgrades parsed markup.
      element.attributeChangedCallback('token', null, '${TOKEN}');
      element.attributeChangedCallback('base-url', null, 'https://us.svc.example');
      element.connectedCallback();
      const afterUpgrade = frames.length;
      element.setAttribute('token', '${TOKEN.replace(/a$/, 'b')}');
      element.attributeChangedCallback('token', '${TOKEN}', '${TOKEN.replace(/a$/, 'b')}');
      console.log(JSON.stringify({ afterUpgrade, afterTokenChange: frames.length, firstRemoved: frames[0].removed === true, src: frames[0].src }));
    `);
    expect(JSON.parse(output)).toEqual({
      afterUpgrade: 1,
      afterTokenChange: 2,
      firstRemoved: true,
      src: `https://us.svc.example/decisions/${TOKEN}/embed?origin=https%3A%2F%2Fshop.example`,
    });
  });
});
